-- redis-semaphore's Mutex (npm, swarthy/redis-semaphore v5), written from its documentation and
-- documented behaviour (docs/algorithms.md "redis-semaphore-mutex"; no code of it is copied).
--
-- new Mutex(client, key, { lockTimeout = 10000, acquireTimeout = 10000, acquireAttemptsLimit =
-- Infinity, retryInterval = 10, refreshInterval = lockTimeout * 0.8, identifier = a random UUID }).
-- acquire(): while now < start + acquireTimeout and attempts <= acquireAttemptsLimit, SET key
-- identifier PX lockTimeout NX; OK takes it, otherwise wait retryInterval. Running out is a
-- TimeoutError. While held, a timer refreshes every refreshInterval with a script that PEXPIREs
-- the key if it still holds the identifier; a refresh that finds it gone stops refreshing and
-- calls onLockLost (by default it throws LostLockError). release(): stop refreshing, then delete
-- the key if it still holds the identifier.
-- Deviation: the key is the lock's name itself, not "mutex:<name>", so that the history's keys
-- are the lock names the checker reads.
local held = {}

local function uuid()
  local hex = "0123456789abcdef"
  local out = {}
  for i = 1, 32 do
    local k = lockstep.random(1, 16)
    out[i] = hex:sub(k, k)
  end
  local s = table.concat(out)
  return s:sub(1, 8) .. "-" .. s:sub(9, 12) .. "-4" .. s:sub(14, 16) .. "-" .. s:sub(17, 20) .. "-" .. s:sub(21, 32)
end

return {
  name = "redis-semaphore-mutex",
  kind = "simple",
  description = "redis-semaphore Mutex: SET NX PX every retryInterval, refresh every 0.8 lockTimeout, onLockLost",
  default_lease_ms = "lock_timeout_ms",
  renews = true,  -- the refresh timer keeps lockTimeout alive while held
  options = {
    lock_timeout_ms = { default = 10000, min = 1, max = 86400000 },
    acquire_timeout_ms = { default = 10000, min = 0, max = 86400000 },
    acquire_attempts_limit = { default = 0, min = 0, max = 100000000 },  -- 0: Infinity
    retry_interval_ms = { default = 10, min = 1, max = 60000 },
    refresh_interval_ms = { default = -1, min = -1, max = 86400000 },  -- -1: 0.8 * lockTimeout; 0: no refresh
  },
  scripts = {
    refresh = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
]],
    release = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
]],
  },
  coverage = { "retry_sleep", "wait_time_ran_out", "renewed", "renewal_lost", "renewal_error", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local o = lockstep.options
    local timeout = req.lease_ms
    local id = uuid()
    -- acquire() and tryAcquire() both try until acquireTimeout runs out (tryAcquire returns false
    -- where acquire throws). lock() is acquire(); try_lock(wait) is a Mutex whose acquireTimeout
    -- is that wait; try_lock(0) is a Mutex with acquireAttemptsLimit 1, the library's way to try
    -- once (an acquireTimeout of 0 would make no attempt at all).
    local acquire_timeout = req.wait_ms < 0 and o.acquire_timeout_ms or req.wait_ms
    local limit = o.acquire_attempts_limit == 0 and math.huge or o.acquire_attempts_limit
    if req.wait_ms == 0 then acquire_timeout, limit = o.acquire_timeout_ms, 1 end
    local finish = lockstep.now_ms() + acquire_timeout
    local attempt = 0
    while lockstep.now_ms() < finish and attempt < limit do
      attempt = attempt + 1
      local reply, err = lockstep.call({ "SET", req.lock, id, "PX", timeout, "NX" }, { op = req.op })
      if err then return nil, err end
      if reply then
        local key = thread.index .. "\0" .. req.lock
        local refresh = o.refresh_interval_ms < 0 and math.floor(timeout * 0.8 + 0.5) or o.refresh_interval_ms
        local task = nil
        if refresh > 0 then
          task = lockstep.spawn(function()
            while true do
              lockstep.sleep(refresh)
              local op = lockstep.begin_op{ thread = thread, lock = req.lock, lease_ms = timeout }
              local r, e = lockstep.evalsha("refresh", { req.lock }, { id, timeout }, { op = op })
              if e then
                lockstep.cover("renewal_error")
                lockstep.end_op(op, { outcome = e == lockstep.TIMEOUT and "unknown" or "fail", error = e })
              else
                lockstep.end_op(op, { renewed = r == 1 })
                if r ~= 1 then
                  -- onLockLost: the holder learns it lost the mutex.
                  lockstep.cover("renewal_lost")
                  lockstep.hold_lost(thread, req.lock)
                  return
                end
                lockstep.cover("renewed")
              end
            end
          end)
        end
        held[key] = { id = id, task = task }
        return { acquired = true, count = 1 }
      end
      lockstep.cover("retry_sleep")
      lockstep.sleep(o.retry_interval_ms)
    end
    lockstep.cover("wait_time_ran_out")
    if req.wait_ms < 0 then return nil, "TimeoutError: Acquire mutex " .. req.lock .. " timeout" end
    return false
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local h = held[key]
    if not h then return nil, "redis-semaphore: mutex not acquired by this thread" end
    held[key] = nil
    lockstep.cancel(h.task)
    local reply, err = lockstep.evalsha("release", { req.lock }, { h.id }, { op = req.op })
    if err then return nil, err end
    if reply == 1 then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    -- The library's release does not report this; the history needs an answer: not held.
    lockstep.cover("unlock_not_held")
    return nil, "the mutex was no longer held by this identifier"
  end,
}
