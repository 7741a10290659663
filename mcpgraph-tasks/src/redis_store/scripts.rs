//! The Lua scripts behind every update that reads before it writes or
//! touches several keys: Redis runs each atomically, so replicas racing
//! on one task see one order.
//!
//! A task's keys (see [`Keys`](super::Keys)): its hash (`owner`, `tool`,
//! `status`, `message`, `created`, `updated`, `ttl`, `poll`, `cancel`,
//! `outcome`, `jbytes`), `:asks` (outstanding questions), `:asked` (every
//! key ever asked), `:answers` (answers not yet taken), `:journal`,
//! `:lease`; and the shared `live` sorted set of running tasks scored by
//! their expiry. Expiry runs on Redis's clock, never a replica's (their
//! clocks may disagree): the hash gets `PX ttl`, every other key of the
//! task the hash's remaining time, the lease no more than that, and `live`
//! is trimmed by Redis's `TIME`.

use redis::Script;

/// Shared by the scripts: whether a status has ended, Redis's clock, a
/// key made to expire with its task.
const PRELUDE: &str = "
local function terminal(s)
  return s == 'completed' or s == 'failed' or s == 'cancelled'
end
local function now_ms()
  local t = redis.call('TIME')
  return string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
local function follow(task, key)
  local left = redis.call('PTTL', task)
  if left > 0 then redis.call('PEXPIRE', key, left) end
end
";

/// KEYS: live, task. ARGV: id, now (the replica's, for `created`),
/// max_live, owner, tool, ttl, poll. 1 if created, 0 if full.
const CREATE: &str = "
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], 'owner', ARGV[4], 'tool', ARGV[5], 'status', 'working',
  'created', ARGV[2], 'updated', ARGV[2], 'ttl', ARGV[6], 'poll', ARGV[7],
  'cancel', '0', 'jbytes', '0')
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[1], string.format('%d', now + tonumber(ARGV[6])), ARGV[1])
return 1
";

/// KEYS: task. ARGV: message, now.
const SET_MESSAGE: &str = "
local s = redis.call('HGET', KEYS[1], 'status')
if not s or terminal(s) then return 0 end
redis.call('HSET', KEYS[1], 'message', ARGV[1], 'updated', ARGV[2])
return 1
";

/// KEYS: task, asks, asked. ARGV: key, request, now. 1 if asked, 0 if the
/// key was asked before, -1 if the task is gone or ended.
const ASK: &str = "
local s = redis.call('HGET', KEYS[1], 'status')
if not s or terminal(s) then return -1 end
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'status', 'input_required', 'updated', ARGV[3])
follow(KEYS[1], KEYS[2])
follow(KEYS[1], KEYS[3])
return 1
";

/// KEYS: task, asks, answers. ARGV: owner, now, then key and answer pairs.
/// 1 if the owner's task exists, 0 if not.
const ANSWER: &str = "
local t = redis.call('HMGET', KEYS[1], 'owner', 'status')
if not t[1] or t[1] ~= ARGV[1] then return 0 end
if terminal(t[2]) then return 1 end
local taken = 0
for i = 3, #ARGV, 2 do
  if redis.call('HDEL', KEYS[2], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    taken = taken + 1
  end
end
if taken > 0 then
  if t[2] == 'input_required' and redis.call('HLEN', KEYS[2]) == 0 then
    redis.call('HSET', KEYS[1], 'status', 'working')
  end
  redis.call('HSET', KEYS[1], 'updated', ARGV[2])
  follow(KEYS[1], KEYS[3])
end
return 1
";

/// KEYS: task, answers. ARGV: key. {1, answer} taken, {0, ''} not yet,
/// {2, ''} cancellation requested, {3, ''} the task is gone.
const TAKE_ANSWER: &str = "
local t = redis.call('HMGET', KEYS[1], 'status', 'cancel')
if not t[1] then return {3, ''} end
if t[2] == '1' then return {2, ''} end
local answer = redis.call('HGET', KEYS[2], ARGV[1])
if not answer then return {0, ''} end
redis.call('HDEL', KEYS[2], ARGV[1])
return {1, answer}
";

/// KEYS: task, asks, live. ARGV: id, status, outcome (empty for none), now.
const FINISH: &str = "
local s = redis.call('HGET', KEYS[1], 'status')
if not s or terminal(s) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'outcome', ARGV[3]) end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
";

/// KEYS: task. ARGV: owner, now. 1 if the owner's task exists, 0 if not.
const CANCEL: &str = "
local t = redis.call('HMGET', KEYS[1], 'owner', 'status', 'cancel')
if not t[1] or t[1] ~= ARGV[1] then return 0 end
if not terminal(t[2]) and t[3] ~= '1' then
  redis.call('HSET', KEYS[1], 'cancel', '1', 'updated', ARGV[2])
end
return 1
";

/// KEYS: task, journal. ARGV: entry, max entries, max bytes. 1 appended,
/// -1 the task is gone, -2 too many entries, -3 too many bytes.
const APPEND: &str = "
local jbytes = redis.call('HGET', KEYS[1], 'jbytes')
if not jbytes then return -1 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return -2 end
local bytes = tonumber(jbytes) + string.len(ARGV[1])
if bytes > tonumber(ARGV[3]) then return -3 end
redis.call('HSET', KEYS[1], 'jbytes', bytes)
redis.call('RPUSH', KEYS[2], ARGV[1])
follow(KEYS[1], KEYS[2])
return 1
";

/// KEYS: task, lease. ARGV: replica, lease ms. 1 if taken.
const CLAIM: &str = "
local s = redis.call('HGET', KEYS[1], 'status')
if not s or terminal(s) then return 0 end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then follow(KEYS[1], KEYS[2]) end
return 1
";

/// KEYS: task, lease. ARGV: replica, lease ms. 1 if still held (and
/// extended).
const RENEW: &str = "
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then follow(KEYS[1], KEYS[2]) end
return 1
";

/// KEYS: live. ARGV: the key prefix, the latest creation time (ms) of a
/// task to list. The running tasks created by then with no lease. (The lease keys are built here, not declared: fine for one
/// Redis, not for a cluster.)
const ORPHANS: &str = "
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms())
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local task = ARGV[1] .. '{' .. id .. '}'
  local created = tonumber(redis.call('HGET', task, 'created') or '0')
  if created <= tonumber(ARGV[2]) and redis.call('EXISTS', task .. ':lease') == 0 then
    table.insert(out, id)
  end
end
return out
";

/// The scripts, loaded once per store (by their SHA1, on first use).
pub(super) struct Scripts {
    pub(super) create: Script,
    pub(super) set_message: Script,
    pub(super) ask: Script,
    pub(super) answer: Script,
    pub(super) take_answer: Script,
    pub(super) finish: Script,
    pub(super) cancel: Script,
    pub(super) append: Script,
    pub(super) claim: Script,
    pub(super) renew: Script,
    pub(super) orphans: Script,
}

impl Scripts {
    pub(super) fn new() -> Scripts {
        let script = |body: &str| Script::new(&format!("{PRELUDE}{body}"));
        Scripts {
            create: script(CREATE),
            set_message: script(SET_MESSAGE),
            ask: script(ASK),
            answer: script(ANSWER),
            take_answer: script(TAKE_ANSWER),
            finish: script(FINISH),
            cancel: script(CANCEL),
            append: script(APPEND),
            claim: script(CLAIM),
            renew: script(RENEW),
            orphans: script(ORPHANS),
        }
    }
}
