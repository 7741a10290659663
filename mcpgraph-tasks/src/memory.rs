//! `memory`: the tasks of one process, in a map behind a mutex.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::error::StoreError;
use crate::store::TaskStore;
use crate::task::{
    JOURNAL_MAX_BYTES, JOURNAL_MAX_ENTRIES, Outcome, Status, StoreLimits, Task, TaskId,
    check_finish, deadline, millis, now_ms,
};

/// The tasks of one process. Expired tasks are dropped when the store is
/// next used (every create sweeps), so memory stays bounded by the
/// tasks created within one TTL.
pub struct MemoryStore {
    limits: StoreLimits,
    tasks: Mutex<HashMap<TaskId, Entry>>,
}

/// A task and what the runner side keeps beside it.
struct Entry {
    task: Task,
    /// Every key ever asked (keys are unique for the task's lifetime).
    asked: HashSet<String>,
    /// Answers taken by `answer` and not yet by `wait_answer`.
    answers: HashMap<String, Value>,
    journal: Vec<Value>,
    journal_bytes: usize,
    /// The replica holding the lease, and until when (Unix ms).
    lease: Option<(String, u64)>,
    /// Signalled on every change a waiter may care about.
    changed: watch::Sender<()>,
}

impl Entry {
    fn touch(&mut self) {
        self.task.updated_at_ms = now_ms().max(self.task.updated_at_ms);
        self.changed.send_replace(());
    }
}

/// What a waiter does next.
enum Wait<T> {
    Done(T),
    Sleep(watch::Receiver<()>, u64),
}

impl MemoryStore {
    /// An empty store with these bounds.
    pub fn new(limits: StoreLimits) -> MemoryStore {
        MemoryStore {
            limits,
            tasks: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<TaskId, Entry>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the task if it exists and has not expired (an expired
    /// one is dropped here).
    fn with<T>(&self, id: &TaskId, f: impl FnOnce(Option<&mut Entry>) -> T) -> T {
        let mut tasks = self.lock();
        if tasks
            .get(id)
            .is_some_and(|e| e.task.expires_at_ms() <= now_ms())
        {
            tasks.remove(id);
        }
        f(tasks.get_mut(id))
    }

    /// A future that runs `f` on the task when polled (not when made).
    fn later<T: Send + 'static>(
        &self,
        id: &TaskId,
        f: impl FnOnce(Option<&mut Entry>) -> T + Send + 'static,
    ) -> BoxFuture<'_, T> {
        let id = id.clone();
        async move { self.with(&id, f) }.boxed()
    }

    /// Waits for `check` to be `Done`, waking on each change of the task
    /// and at its expiry; gives up with `None` at `deadline`.
    async fn wait<T>(
        &self,
        id: &TaskId,
        deadline: Option<Instant>,
        mut check: impl FnMut(Option<&mut Entry>) -> Wait<T>,
    ) -> Option<T> {
        loop {
            let (mut changed, expires_at_ms) = match self.with(id, &mut check) {
                Wait::Done(value) => return Some(value),
                Wait::Sleep(changed, expires) => (changed, expires),
            };
            let to_expiry = Duration::from_millis(expires_at_ms.saturating_sub(now_ms()));
            let mut wake = crate::task::deadline(to_expiry);
            if let Some(deadline) = deadline {
                if Instant::now() >= deadline {
                    return None;
                }
                wake = wake.min(deadline);
            }
            // A dropped sender (the task was swept) or the wake time: look again.
            let _ = tokio::time::timeout_at(wake, changed.changed()).await;
        }
    }
}

impl TaskStore for MemoryStore {
    fn create(&self, owner: &str, tool: &str) -> BoxFuture<'_, Result<Task, StoreError>> {
        let (owner, tool) = (owner.to_owned(), tool.to_owned());
        async move {
            let id = TaskId::generate()?;
            let now = now_ms();
            let mut tasks = self.lock();
            tasks.retain(|_, e| e.task.expires_at_ms() > now);
            let live = tasks.values().filter(|e| !e.task.status.is_terminal());
            if live.count() >= self.limits.max_live {
                return Err(StoreError::Full {
                    max_live: self.limits.max_live,
                });
            }
            let task = Task {
                id: id.clone(),
                owner,
                tool,
                status: Status::Working,
                status_message: None,
                created_at_ms: now,
                updated_at_ms: now,
                ttl_ms: millis(self.limits.ttl),
                poll_interval_ms: millis(self.limits.poll_interval),
                input_requests: BTreeMap::new(),
                outcome: None,
                cancel_requested: false,
            };
            let entry = Entry {
                task: task.clone(),
                asked: HashSet::new(),
                answers: HashMap::new(),
                journal: Vec::new(),
                journal_bytes: 0,
                lease: None,
                changed: watch::Sender::new(()),
            };
            tasks.insert(id, entry);
            Ok(task)
        }
        .boxed()
    }

    fn get(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<Option<Task>, StoreError>> {
        let owner = owner.to_owned();
        self.later(id, move |e| {
            Ok(e.filter(|e| e.task.owner == owner).map(|e| e.task.clone()))
        })
    }

    fn set_message(&self, id: &TaskId, message: String) -> BoxFuture<'_, Result<(), StoreError>> {
        self.later(id, move |e| {
            if let Some(e) = e.filter(|e| !e.task.status.is_terminal()) {
                e.task.status_message = Some(message);
                e.touch();
            }
            Ok(())
        })
    }

    fn ask(
        &self,
        id: &TaskId,
        key: String,
        request: Value,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        self.later(id, move |e| {
            let e = e
                .filter(|e| !e.task.status.is_terminal())
                .ok_or(StoreError::Gone)?;
            if !e.asked.insert(key.clone()) {
                return Err(StoreError::AlreadyAsked { key });
            }
            e.task.input_requests.insert(key, request);
            e.task.status = Status::InputRequired;
            e.touch();
            Ok(())
        })
    }

    fn answer(
        &self,
        id: &TaskId,
        owner: &str,
        answers: serde_json::Map<String, Value>,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let owner = owner.to_owned();
        self.later(id, move |e| {
            let Some(e) = e.filter(|e| e.task.owner == owner) else {
                return Ok(false);
            };
            if e.task.status.is_terminal() {
                return Ok(true);
            }
            let mut taken = false;
            for (key, answer) in answers {
                if e.task.input_requests.remove(&key).is_some() {
                    e.answers.insert(key, answer);
                    taken = true;
                }
            }
            if taken {
                if e.task.input_requests.is_empty() && e.task.status == Status::InputRequired {
                    e.task.status = Status::Working;
                }
                e.touch();
            }
            Ok(true)
        })
    }

    fn wait_answer(
        &self,
        id: &TaskId,
        key: &str,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<Option<Value>, StoreError>> {
        let (id, key) = (id.clone(), key.to_owned());
        async move {
            let deadline = deadline(timeout);
            let answer = self
                .wait(&id, Some(deadline), |e| match e {
                    None => Wait::Done(Err(StoreError::Gone)),
                    Some(e) if e.task.cancel_requested => Wait::Done(Ok(None)),
                    Some(e) => match e.answers.remove(&key) {
                        Some(answer) => Wait::Done(Ok(Some(answer))),
                        None => Wait::Sleep(e.changed.subscribe(), e.task.expires_at_ms()),
                    },
                })
                .await;
            answer.unwrap_or(Ok(None))
        }
        .boxed()
    }

    fn finish(
        &self,
        id: &TaskId,
        status: Status,
        outcome: Option<Outcome>,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        self.later(id, move |e| {
            check_finish(status, &outcome)?;
            if let Some(e) = e.filter(|e| !e.task.status.is_terminal()) {
                e.task.status = status;
                e.task.outcome = outcome;
                e.task.input_requests.clear();
                e.touch();
            }
            Ok(())
        })
    }

    fn cancel(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<bool, StoreError>> {
        let owner = owner.to_owned();
        self.later(id, move |e| {
            let Some(e) = e.filter(|e| e.task.owner == owner) else {
                return Ok(false);
            };
            if !e.task.status.is_terminal() && !e.task.cancel_requested {
                e.task.cancel_requested = true;
                e.touch();
            }
            Ok(true)
        })
    }

    fn cancelled(&self, id: &TaskId) -> BoxFuture<'_, Result<(), StoreError>> {
        let id = id.clone();
        async move {
            self.wait(&id, None, |e| match e {
                Some(e) if !e.task.cancel_requested => {
                    Wait::Sleep(e.changed.subscribe(), e.task.expires_at_ms())
                }
                _ => Wait::Done(()),
            })
            .await;
            Ok(())
        }
        .boxed()
    }

    fn append_journal(&self, id: &TaskId, entry: Value) -> BoxFuture<'_, Result<(), StoreError>> {
        let bytes = serde_json::to_vec(&entry).map_or(0, |v| v.len());
        self.later(id, move |e| {
            let e = e.ok_or(StoreError::Gone)?;
            if e.journal.len() >= JOURNAL_MAX_ENTRIES {
                return Err(StoreError::JournalFull {
                    limit: format!("{JOURNAL_MAX_ENTRIES} entries"),
                });
            }
            if e.journal_bytes + bytes > JOURNAL_MAX_BYTES {
                return Err(StoreError::JournalFull {
                    limit: format!("{JOURNAL_MAX_BYTES} bytes"),
                });
            }
            e.journal_bytes += bytes;
            e.journal.push(entry);
            Ok(())
        })
    }

    fn journal(&self, id: &TaskId) -> BoxFuture<'_, Result<Vec<Value>, StoreError>> {
        self.later(id, |e| Ok(e.map(|e| e.journal.clone()).unwrap_or_default()))
    }

    fn claim(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let replica = replica.to_owned();
        self.later(id, move |e| {
            let now = now_ms();
            let Some(e) = e.filter(|e| !e.task.status.is_terminal()) else {
                return Ok(false);
            };
            let free = match &e.lease {
                Some((holder, until)) => *holder == replica || *until <= now,
                None => true,
            };
            if free {
                e.lease = Some((replica, now.saturating_add(millis(lease))));
            }
            Ok(free)
        })
    }

    fn renew(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let replica = replica.to_owned();
        self.later(id, move |e| {
            let now = now_ms();
            match e.and_then(|e| e.lease.as_mut()) {
                Some((holder, until)) if *holder == replica && *until > now => {
                    *until = now.saturating_add(millis(lease));
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn orphans(&self, grace: Duration) -> BoxFuture<'_, Result<Vec<TaskId>, StoreError>> {
        async move {
            let now = now_ms();
            let born_before =
                now.saturating_sub(u64::try_from(grace.as_millis()).unwrap_or(u64::MAX));
            let mut tasks = self.lock();
            tasks.retain(|_, e| e.task.expires_at_ms() > now);
            let orphans = tasks
                .iter()
                .filter(|(_, e)| !e.task.status.is_terminal())
                .filter(|(_, e)| e.task.created_at_ms <= born_before)
                .filter(|(_, e)| e.lease.as_ref().is_none_or(|(_, until)| *until <= now))
                .map(|(id, _)| id.clone())
                .collect();
            Ok(orphans)
        }
        .boxed()
    }
}
