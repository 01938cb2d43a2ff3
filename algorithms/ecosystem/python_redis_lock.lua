-- python-redis-lock (PyPI python-redis-lock 4.0, redis_lock.Lock), written from its documentation
-- and documented behaviour (docs/algorithms.md "python-redis-lock"; no code of it is copied here).
--
-- Lock(redis, name, expire=None, id=None, auto_renewal=False, signal_expire=1000): a new Lock
-- per acquisition here (`with Lock(conn, name):`), so its id (24 base64 characters) is fresh
-- each time. acquire(blocking=True, timeout=None): GET the key first (an instance that already
-- holds it raises AlreadyAcquired), then SET key id [EX expire] NX; while it is taken, a
-- non-blocking call gives up, a blocking one waits with BLPOP on the signal list for `timeout`
-- seconds, else `expire`, else forever, and tries SET again; once a wait with a timeout has
-- come back empty, the next taken SET gives up. Timeouts and expiries are whole seconds
-- (int(...)), and a timeout above expire without auto_renewal raises TimeoutTooLarge.
-- auto_renewal: a thread extends the key every expire * 2/3 s with a script (the key holds the
-- id, has a TTL, EXPIRE expire); a failed extension raises inside that thread, which ends it,
-- and the holder is not told. release(): stop the renewal thread and wait for it, then a script:
-- if the key holds the id, DEL the signal list, LPUSH one element onto it, PEXPIRE it
-- signal_expire ms and DEL the key (0); else 1, NotAcquired. The release wakes one waiter.
-- Scripts run through redis-py's Script: EVALSHA; on NOSCRIPT, SCRIPT LOAD and EVALSHA again.
-- redis-py sends a command once (no retry). BLPOP takes a pool connection of its own (the
-- client's other threads are not stuck behind it), and its socket wait is its block time plus
-- the client's timeout_ms (socket_timeout=None waits for ever; a day here).
-- Deviation: the key is the lock's name itself, not "lock:<name>", so that the history's keys
-- are the lock names the checker reads; the signal list is "lock-signal:<name>" as in the library.
local held = {}  -- thread index .. "\0" .. lock -> { id, stop, done }

local BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function lock_id()  -- b64encode(urandom(18)): 24 characters, no padding
  local out = {}
  for i = 1, 24 do
    local k = lockstep.random(1, 64)
    out[i] = BASE64:sub(k, k)
  end
  return table.concat(out)
end

-- redis-py sends a command once: no retry.
local function opts(op, extra)
  local o = { op = op, retry_attempts = 0 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

-- redis-py's Script.__call__: EVALSHA; on NOSCRIPT, SCRIPT LOAD, then EVALSHA again.
local function run_script(name, keys, args, op)
  local call = { "EVALSHA", lockstep.script_sha(name), #keys }
  for _, k in ipairs(keys) do call[#call + 1] = k end
  for _, a in ipairs(args) do call[#call + 1] = a end
  local o = opts(op, { script = name })
  local reply, err = lockstep.call(call, o)
  if err and err:find("^NOSCRIPT") then
    local _, load_err = lockstep.call({ "SCRIPT", "LOAD", lockstep.script_source(name) }, opts(op))
    if load_err then return nil, load_err end
    reply, err = lockstep.call(call, o)
  end
  return reply, err
end

local function signal_of(lock) return "lock-signal:" .. lock end

-- The renewal thread: every interval, extend; an error or a lost key ends it (the exception
-- stays inside the thread). `stop` is the Event release() sets, `done` lets release() join.
local function renewer(thread, lock, id, expire_s, interval_ms, stop, done)
  while not stop:acquire(interval_ms) do
    local op = lockstep.begin_op{ thread = thread, lock = lock, lease_ms = expire_s * 1000 }
    local r, e = run_script("extend", { lock, signal_of(lock) }, { id, expire_s }, op)
    if e then
      lockstep.cover("renewal_error")
      lockstep.end_op(op, { outcome = e == lockstep.TIMEOUT and "unknown" or "fail", error = e })
      break
    end
    lockstep.end_op(op, { renewed = r == 0 })
    if r ~= 0 then  -- NotAcquired (1) or NotExpirable (2), raised in the thread
      lockstep.cover("renewal_lost")
      break
    end
    lockstep.cover("renewed")
  end
  done:release(1)
end

return {
  name = "python-redis-lock",
  kind = "simple",
  description = "python-redis-lock: SET NX [EX], BLPOP on a signal list the release pushes to, optional auto_renewal",
  -- lock() without a lease: the Lock's `expire` (0 stands for expire=None: no expiry at all).
  default_lease_ms = "expire_ms",
  renews = "auto_renewal",
  options = {
    expire_ms = { default = 0, min = 0, max = 86400000 },  -- 0: expire=None; used in whole seconds
    auto_renewal = false,
    signal_expire_ms = { default = 1000, min = 0, max = 86400000 },
  },
  scripts = {
    -- UNLOCK: 1 when the key does not hold the id; else wake one waiter, delete, 0.
    unlock = [[
if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 1
end
redis.call('del', KEYS[2])
redis.call('lpush', KEYS[2], 1)
redis.call('pexpire', KEYS[2], ARGV[2])
redis.call('del', KEYS[1])
return 0
]],
    -- EXTEND: 1 when the key does not hold the id, 2 when it has no TTL, else EXPIRE and 0.
    extend = [[
if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 1
end
if redis.call('ttl', KEYS[1]) < 0 then
  return 2
end
redis.call('expire', KEYS[1], ARGV[2])
return 0
]],
  },
  coverage = { "busy_no_wait", "wait_for_unlock", "woken_by_message", "woken_by_ttl", "wait_time_ran_out",
               "renewed", "renewal_lost", "renewal_error", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local o = lockstep.options
    -- Lock(..., expire): int(expire) seconds when given (lease 0 is expire=None).
    local expire = req.lease_ms > 0 and math.floor(req.lease_ms / 1000) or nil
    if o.auto_renewal and expire == nil then
      return nil, "ValueError: Expire may not be None when auto_renewal is set"
    end
    local blocking = req.wait_ms ~= 0
    -- acquire(timeout=wait): int(timeout) seconds; 0 (a wait under a second) waits like None.
    local timeout = req.wait_ms > 0 and math.floor(req.wait_ms / 1000) or 0
    if timeout > 0 and expire and expire > 0 and not o.auto_renewal and timeout > expire then
      return nil, "TimeoutTooLarge: Timeout (" .. timeout .. ") cannot be greater than expire (" .. expire .. ")"
    end
    local id = lock_id()
    local signal = signal_of(req.lock)
    -- The _held check: GET the key (a fresh id never matches it).
    local _, get_err = lockstep.call({ "GET", req.lock }, opts(req.op))
    if get_err then
      return nil, get_err == lockstep.TIMEOUT and "TimeoutError: Timeout reading from socket" or get_err
    end
    local set = { "SET", req.lock, id, "NX" }
    if expire then set = { "SET", req.lock, id, "EX", expire, "NX" } end
    local blpop_timeout = timeout > 0 and timeout or expire or 0
    local socket_ms = blpop_timeout > 0 and math.min(blpop_timeout * 1000 + lockstep.client.timeout_ms, 86400000) or 86400000
    local timed_out = false
    while true do
      local reply, err = lockstep.call(set, opts(req.op))
      if err then return nil, err end  -- a timeout: the SET may have run (unknown)
      if reply then break end
      if timed_out then
        lockstep.cover("wait_time_ran_out")
        return false
      end
      if not blocking then
        lockstep.cover("busy_no_wait")
        return false
      end
      lockstep.cover("wait_for_unlock")
      local popped, pop_err = lockstep.call({ "BLPOP", signal, blpop_timeout }, opts(req.op, { timeout_ms = socket_ms, own_connection = true }))
      if pop_err then
        -- Nothing was taken: the acquisition fails with redis-py's exception.
        return nil, pop_err == lockstep.TIMEOUT and "TimeoutError: Timeout reading from socket" or pop_err
      end
      lockstep.cover(popped and "woken_by_message" or "woken_by_ttl")
      timed_out = not popped and timeout > 0
    end
    local h = { id = id }
    if o.auto_renewal then
      h.stop, h.done = lockstep.semaphore(0), lockstep.semaphore(0)
      lockstep.spawn(renewer, thread, req.lock, id, expire, math.floor(expire * 2000 / 3), h.stop, h.done)
    end
    held[thread.index .. "\0" .. req.lock] = h
    return { acquired = true, count = 1 }
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local h = held[key]
    if not h then return nil, "NotAcquired: Lock(" .. req.lock .. ") is not acquired or it already expired." end
    held[key] = nil
    if h.stop then  -- _stop_lock_renewer: set the event, join the thread
      h.stop:release(1)
      h.done:acquire(-1)
    end
    local reply, err = run_script("unlock", { req.lock, signal_of(req.lock) }, { h.id, lockstep.options.signal_expire_ms }, req.op)
    if err then return nil, err end
    if reply == 0 then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    return nil, "NotAcquired: Lock(" .. req.lock .. ") is not acquired or it already expired."
  end,
}
