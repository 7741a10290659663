//! `redis://`: tasks every replica shares, in Redis or Valkey.

mod connection;
mod record;
mod scripts;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::time::Instant;

use crate::error::{OpenError, StoreError};
use crate::store::TaskStore;
use crate::task::{
    JOURNAL_MAX_BYTES, JOURNAL_MAX_ENTRIES, Outcome, Status, StoreLimits, Task, TaskId,
    check_finish, deadline, millis, now_ms,
};
use connection::Connection;
use scripts::Scripts;

/// What every key of the store starts with.
const PREFIX: &str = "mcpgraph:task:";
/// The running tasks, scored by their expiry (Unix ms).
const LIVE: &str = "mcpgraph:task:live";
/// How often `wait_answer` and `cancelled` look again.
const ANSWER_POLL: Duration = Duration::from_millis(50);
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// Tasks in Redis (or Valkey), shared by every replica on it: a task
/// created on one is read, answered, cancelled and taken over on another.
/// Every key starts with `mcpgraph:task:` and expires with its task.
/// Connects on first use, through a `ConnectionManager` that reconnects;
/// while Redis is away every operation fails within 1.5 s with
/// [`StoreError::Unavailable`].
pub struct RedisStore {
    connection: Connection,
    limits: StoreLimits,
    scripts: Scripts,
}

/// The keys of one task (the id in braces: a cluster hash tag).
struct Keys {
    task: String,
    asks: String,
    asked: String,
    answers: String,
    journal: String,
    lease: String,
}

impl Keys {
    fn of(id: &TaskId) -> Keys {
        let task = format!("{PREFIX}{{{id}}}");
        Keys {
            asks: format!("{task}:asks"),
            asked: format!("{task}:asked"),
            answers: format!("{task}:answers"),
            journal: format!("{task}:journal"),
            lease: format!("{task}:lease"),
            task,
        }
    }
}

fn parse_json(id: &TaskId, what: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("task {id}: {what}: {e}")))
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://`, `valkey://`; `rediss://`
    /// and `valkeys://` with the `tls` feature). Nothing is connected yet.
    pub fn new(url: &str, limits: StoreLimits) -> Result<RedisStore, OpenError> {
        Ok(RedisStore {
            connection: Connection::new(url)?,
            limits,
            scripts: Scripts::new(),
        })
    }

    /// The task as it is, whoever owns it.
    async fn read(&self, id: &TaskId) -> Result<Option<Task>, StoreError> {
        let keys = Keys::of(id);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("HGETALL")
            .arg(&keys.task)
            .cmd("HGETALL")
            .arg(&keys.asks);
        let (fields, asks): (HashMap<String, String>, HashMap<String, String>) =
            self.connection.query(&pipe).await?;
        let task = record::task(id, fields, asks)?;
        // Redis expires the hash (on its own clock).
        Ok(task)
    }
}

impl TaskStore for RedisStore {
    fn create(&self, owner: &str, tool: &str) -> BoxFuture<'_, Result<Task, StoreError>> {
        let (owner, tool) = (owner.to_owned(), tool.to_owned());
        async move {
            let id = TaskId::generate()?;
            let now = now_ms();
            let ttl_ms = millis(self.limits.ttl);
            let poll_interval_ms = millis(self.limits.poll_interval);
            let mut call = self.scripts.create.prepare_invoke();
            call.key(LIVE).key(Keys::of(&id).task);
            call.arg(id.as_str()).arg(now).arg(self.limits.max_live);
            call.arg(&owner).arg(&tool);
            call.arg(ttl_ms).arg(poll_interval_ms);
            if self.connection.eval::<i64>(&call).await? == 0 {
                return Err(StoreError::Full {
                    max_live: self.limits.max_live,
                });
            }
            Ok(Task {
                id,
                owner,
                tool,
                status: Status::Working,
                status_message: None,
                created_at_ms: now,
                updated_at_ms: now,
                ttl_ms,
                poll_interval_ms,
                input_requests: BTreeMap::new(),
                outcome: None,
                cancel_requested: false,
            })
        }
        .boxed()
    }

    fn get(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<Option<Task>, StoreError>> {
        let (id, owner) = (id.clone(), owner.to_owned());
        async move { Ok(self.read(&id).await?.filter(|t| t.owner == owner)) }.boxed()
    }

    fn set_message(&self, id: &TaskId, message: String) -> BoxFuture<'_, Result<(), StoreError>> {
        let keys = Keys::of(id);
        async move {
            let mut call = self.scripts.set_message.prepare_invoke();
            call.key(keys.task).arg(message).arg(now_ms());
            self.connection.eval::<i64>(&call).await.map(drop)
        }
        .boxed()
    }

    fn ask(
        &self,
        id: &TaskId,
        key: String,
        request: Value,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        let keys = Keys::of(id);
        async move {
            let mut call = self.scripts.ask.prepare_invoke();
            call.key(keys.task).key(keys.asks).key(keys.asked);
            call.arg(&key).arg(request.to_string()).arg(now_ms());
            match self.connection.eval::<i64>(&call).await? {
                1 => Ok(()),
                0 => Err(StoreError::AlreadyAsked { key }),
                _ => Err(StoreError::Gone),
            }
        }
        .boxed()
    }

    fn answer(
        &self,
        id: &TaskId,
        owner: &str,
        answers: serde_json::Map<String, Value>,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let (keys, owner) = (Keys::of(id), owner.to_owned());
        async move {
            let mut call = self.scripts.answer.prepare_invoke();
            call.key(keys.task).key(keys.asks).key(keys.answers);
            call.arg(owner).arg(now_ms());
            for (key, answer) in &answers {
                call.arg(key).arg(answer.to_string());
            }
            Ok(self.connection.eval::<i64>(&call).await? == 1)
        }
        .boxed()
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
            let keys = Keys::of(&id);
            let mut call = self.scripts.take_answer.prepare_invoke();
            call.key(keys.task).key(keys.answers).arg(&key);
            loop {
                match self.connection.eval::<(i64, String)>(&call).await? {
                    (1, answer) => return parse_json(&id, "answer", &answer).map(Some),
                    (2, _) => return Ok(None),
                    (3, _) => return Err(StoreError::Gone),
                    _ => {}
                }
                let now = Instant::now();
                if now >= deadline {
                    return Ok(None);
                }
                tokio::time::sleep(ANSWER_POLL.min(deadline - now)).await;
            }
        }
        .boxed()
    }

    fn finish(
        &self,
        id: &TaskId,
        status: Status,
        outcome: Option<Outcome>,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        let (id, keys) = (id.clone(), Keys::of(id));
        async move {
            check_finish(status, &outcome)?;
            let outcome = match &outcome {
                Some(outcome) => serde_json::to_string(outcome)
                    .map_err(|e| StoreError::Invalid(format!("outcome: {e}")))?,
                None => String::new(),
            };
            let mut call = self.scripts.finish.prepare_invoke();
            call.key(keys.task).key(keys.asks).key(LIVE);
            call.arg(id.as_str())
                .arg(status.as_str())
                .arg(outcome)
                .arg(now_ms());
            self.connection.eval::<i64>(&call).await.map(drop)
        }
        .boxed()
    }

    fn cancel(&self, id: &TaskId, owner: &str) -> BoxFuture<'_, Result<bool, StoreError>> {
        let (keys, owner) = (Keys::of(id), owner.to_owned());
        async move {
            let mut call = self.scripts.cancel.prepare_invoke();
            call.key(keys.task).arg(owner).arg(now_ms());
            Ok(self.connection.eval::<i64>(&call).await? == 1)
        }
        .boxed()
    }

    fn cancelled(&self, id: &TaskId) -> BoxFuture<'_, Result<(), StoreError>> {
        let keys = Keys::of(id);
        async move {
            let mut pipe = redis::pipe();
            pipe.cmd("HGET").arg(&keys.task).arg("cancel");
            loop {
                let (flag,): (Option<String>,) = self.connection.query(&pipe).await?;
                if flag.is_none_or(|f| f == "1") {
                    return Ok(());
                }
                tokio::time::sleep(CANCEL_POLL).await;
            }
        }
        .boxed()
    }

    fn append_journal(&self, id: &TaskId, entry: Value) -> BoxFuture<'_, Result<(), StoreError>> {
        let keys = Keys::of(id);
        async move {
            let mut call = self.scripts.append.prepare_invoke();
            call.key(keys.task).key(keys.journal);
            call.arg(entry.to_string())
                .arg(JOURNAL_MAX_ENTRIES)
                .arg(JOURNAL_MAX_BYTES);
            match self.connection.eval::<i64>(&call).await? {
                1 => Ok(()),
                -2 => Err(StoreError::JournalFull {
                    limit: format!("{JOURNAL_MAX_ENTRIES} entries"),
                }),
                -3 => Err(StoreError::JournalFull {
                    limit: format!("{JOURNAL_MAX_BYTES} bytes"),
                }),
                _ => Err(StoreError::Gone),
            }
        }
        .boxed()
    }

    fn journal(&self, id: &TaskId) -> BoxFuture<'_, Result<Vec<Value>, StoreError>> {
        let (id, keys) = (id.clone(), Keys::of(id));
        async move {
            let mut pipe = redis::pipe();
            pipe.cmd("LRANGE").arg(&keys.journal).arg(0).arg(-1);
            let (entries,): (Vec<String>,) = self.connection.query(&pipe).await?;
            entries
                .iter()
                .map(|e| parse_json(&id, "journal entry", e))
                .collect()
        }
        .boxed()
    }

    fn claim(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let (keys, replica) = (Keys::of(id), replica.to_owned());
        async move {
            let mut call = self.scripts.claim.prepare_invoke();
            call.key(keys.task)
                .key(keys.lease)
                .arg(replica)
                .arg(millis(lease));
            Ok(self.connection.eval::<i64>(&call).await? == 1)
        }
        .boxed()
    }

    fn renew(
        &self,
        id: &TaskId,
        replica: &str,
        lease: Duration,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let (keys, replica) = (Keys::of(id), replica.to_owned());
        async move {
            let mut call = self.scripts.renew.prepare_invoke();
            call.key(keys.task).key(keys.lease);
            call.arg(replica).arg(millis(lease));
            Ok(self.connection.eval::<i64>(&call).await? == 1)
        }
        .boxed()
    }

    fn orphans(&self, grace: Duration) -> BoxFuture<'_, Result<Vec<TaskId>, StoreError>> {
        async move {
            let mut call = self.scripts.orphans.prepare_invoke();
            call.key(LIVE)
                .arg(PREFIX)
                .arg(now_ms().saturating_sub(millis(grace)));
            let ids: Vec<String> = self.connection.eval(&call).await?;
            ids.iter()
                .map(|id| {
                    TaskId::parse(id).ok_or_else(|| {
                        StoreError::Corrupt(format!("`{LIVE}` holds a junk task id"))
                    })
                })
                .collect()
        }
        .boxed()
    }
}
