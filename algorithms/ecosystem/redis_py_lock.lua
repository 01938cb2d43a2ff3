-- redis-py's Lock (redis.lock.Lock), written from its documentation and documented behaviour
-- (docs/algorithms.md "redis-py Lock"; no code of it is copied here).
--
-- Lock(redis, name, timeout=None, sleep=0.1, blocking=True, blocking_timeout=None,
-- thread_local=True). acquire(): SET name token NX [PX timeout], a fresh token per acquisition
-- (uuid1().hex: 32 hex digits); while taken and blocking, sleep `sleep` and try again, giving up
-- when the next try would come after blocking_timeout. release(): a compare-and-delete script run
-- through a registered Script: EVALSHA, and on NOSCRIPT, SCRIPT LOAD and EVALSHA again; 0 raises
-- LockNotOwnedError. The command shapes were checked against redis-py 4.3.4 on lockstep serve
-- --trace (tests/clients/trace_test.py): SET name token [PX ms] NX.
-- timeout=None sets no expiry at all: the key stays until released. The lock neither renews nor
-- re-acquires by itself (extend() and reacquire() are the application's to call).
-- redis-py does not re-send a command that timed out (retry_on_timeout=False): every call here
-- has retry_attempts = 0, and a timeout is the client's timeout_ms (redis-py's socket_timeout).
local tokens = {}  -- thread_local=True: one token per (thread, lock)

local function hex(n)
  local digits = {}
  for i = 1, n do digits[i] = string.format("%x", lockstep.random(0, 15)) end
  return table.concat(digits)
end

return {
  name = "redis-py-lock",
  kind = "simple",
  description = "redis-py's Lock: SET NX [PX timeout], retry every `sleep`, compare-and-delete release (no renewal)",
  -- lock() without a lease: the Lock's `timeout` (0 stands for timeout=None: no expiry at all).
  default_lease_ms = "timeout_ms",
  options = {
    timeout_ms = { default = 0, min = 0, max = 86400000 },  -- 0: timeout=None
    sleep_ms = { default = 100, min = 1, max = 60000 },      -- sleep=0.1
  },
  scripts = {
    -- LUA_RELEASE_SCRIPT: 1 if released, 0 if the token no longer matches.
    release = [[
local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
return 1
]],
  },
  coverage = { "busy_no_wait", "retry_sleep", "wait_time_ran_out", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local token = hex(32)
    local argv = { "SET", req.lock, token, "NX" }
    if req.lease_ms > 0 then
      argv = { "SET", req.lock, token, "PX", req.lease_ms, "NX" }
    end
    local blocking = req.wait_ms ~= 0
    local stop_at = req.wait_ms > 0 and lockstep.now_ms() + req.wait_ms or nil
    while true do
      local reply, err = lockstep.call(argv, { op = req.op, retry_attempts = 0 })
      if err then return nil, err end
      if reply then
        tokens[thread.index .. "\0" .. req.lock] = token
        return { acquired = true, count = 1 }
      end
      if not blocking then
        lockstep.cover("busy_no_wait")
        return false
      end
      if stop_at and lockstep.now_ms() + lockstep.options.sleep_ms > stop_at then
        lockstep.cover("wait_time_ran_out")
        return false
      end
      lockstep.cover("retry_sleep")
      lockstep.sleep(lockstep.options.sleep_ms)
    end
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local token = tokens[key]
    if not token then return nil, "LockError: Cannot release an unlocked lock" end
    tokens[key] = nil
    -- redis-py's Script: EVALSHA; on NOSCRIPT, SCRIPT LOAD, then EVALSHA again.
    local call = { "EVALSHA", lockstep.script_sha("release"), 1, req.lock, token }
    local opts = { op = req.op, retry_attempts = 0, script = "release" }
    local reply, err = lockstep.call(call, opts)
    if err and err:find("^NOSCRIPT") then
      local _, load_err = lockstep.call({ "SCRIPT", "LOAD", lockstep.script_source("release") }, { op = req.op, retry_attempts = 0 })
      if load_err then return nil, load_err end
      reply, err = lockstep.call(call, opts)
    end
    if err then return nil, err end
    if reply == 1 then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    return nil, "LockNotOwnedError: Cannot release a lock that's no longer owned"
  end,
}
