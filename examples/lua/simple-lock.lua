-- simple-lock.lua: the tutorial's lock (docs/lua-algorithms.md). SET key token NX PX lease to
-- take it, a compare-and-delete script to release it. No renewal: a holder that works longer
-- than its lease loses the lock without knowing.
local retry_ms = lockstep.options.retry_delay_ms

return {
  name = "tutorial-simple-lock",
  kind = "simple",
  description = "SET NX PX with a fixed lease, compare-and-delete release (the Lua tutorial)",
  -- lock() without a lease gets the lease_ms option's lease (and the history records it).
  default_lease_ms = "lease_ms",
  options = {
    retry_delay_ms = { default = 50, min = 1, max = 60000 },
    lease_ms = { default = 10000, min = 1, max = 3600000 },
  },
  scripts = {
    release = [[
      if redis.call('get', KEYS[1]) == ARGV[1] then
        return redis.call('del', KEYS[1])
      end
      return 0
    ]],
  },
  coverage = { "retry_sleep", "wait_time_ran_out", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local lease = req.lease_ms  -- the scenario's, or default_lease_ms
    local token = lockstep.owner(thread) .. ":" .. lockstep.random(1, 2^40)
    local deadline = req.wait_ms >= 0 and lockstep.now_ms() + req.wait_ms or nil
    while true do
      local reply, err = lockstep.call({ "SET", req.lock, token, "NX", "PX", lease }, { op = req.op })
      if err then return nil, err end
      if reply then
        tokens = tokens or {}
        tokens[thread.index .. "/" .. req.lock] = token
        return { acquired = true, count = 1 }
      end
      if deadline and lockstep.now_ms() >= deadline then
        lockstep.cover("wait_time_ran_out")
        return false
      end
      lockstep.cover("retry_sleep")
      lockstep.sleep(lockstep.random(math.ceil(retry_ms / 2), retry_ms))
    end
  end,

  release = function(thread, req)
    local key = thread.index .. "/" .. req.lock
    local token = tokens and tokens[key]
    if not token then return nil, "lock not held by this thread" end
    tokens[key] = nil
    local reply, err = lockstep.eval("release", { req.lock }, { token }, { op = req.op })
    if err then return nil, err end
    if reply == 1 then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    return nil, "the lock was no longer held by this thread (expired or taken)"
  end,
}
