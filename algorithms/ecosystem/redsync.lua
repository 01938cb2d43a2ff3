-- go-redsync/redsync v4's Mutex, written from its documentation and documented behaviour
-- (docs/algorithms.md "redsync"; facts in ../shared/reference; no code of it is copied here).
--
-- NewMutex defaults: expiry 8 s, tries 32, a retry delay drawn in [50, 250) ms, drift factor
-- 0.01, timeout factor 0.05 (each attempt's context times out after expiry * 0.05), quorum
-- len(pools)/2 + 1. One attempt sends SET name value NX PX|EX expiry to every pool at once
-- (EX when the expiry is whole seconds, as go-redis's SetNX sends it), counts the OKs, and takes
-- the lock iff n >= quorum and now < until, with
--   until = now + expiry - (now - start) - expiry * driftFactor   (no +2 ms term).
-- Otherwise it releases on every pool, waits the retry delay and tries again, up to `tries`.
-- "At once" is lockstep.fan_out: one background task per pool.
-- Unlock runs GET == value -> DEL (-1 when the key is gone) on every pool; it succeeds iff a
-- quorum released. No automatic extension: Extend() is the application's to call.
local held = {}  -- (thread, lock) -> the value of the hold

local function value()
  -- genValue: 16 random bytes, base64 (24 characters).
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  local out = {}
  for i = 1, 22 do
    local k = lockstep.random(1, 64)
    out[i] = alphabet:sub(k, k)
  end
  return table.concat(out) .. "=="
end

local function quorum() return math.floor(lockstep.endpoints() / 2) + 1 end

local function release_all(lock, val, op, timeout_ms)
  return lockstep.fan_out(function(i)
    local r, err = lockstep.eval("release", { lock }, { val },
                                 { endpoint = i, op = op, timeout_ms = timeout_ms, retry_attempts = 0 })
    if err then return err end
    return r
  end)
end

return {
  name = "redsync",
  kind = "redlock",
  description = "go-redsync/redsync v4 Mutex: SET NX on all pools at once, quorum + drift-factor validity, release on failure",
  default_lease_ms = "expiry_ms",
  grants = { release = "never" },  -- a failed attempt's clean-up; SET's OK is the grant
  options = {
    expiry_ms = { default = 8000, min = 1, max = 86400000 },
    tries = { default = 32, min = 1, max = 100000 },
    retry_delay_min_ms = { default = 50, min = 0, max = 60000 },
    retry_delay_max_ms = { default = 250, min = 1, max = 60000 },  -- exclusive
    drift_factor_ppm = { default = 10000, min = 0, max = 1000000 },    -- 0.01
    timeout_factor_ppm = { default = 50000, min = 1, max = 1000000 },  -- 0.05
  },
  scripts = {
    -- deleteScript: 1 released, 0 held by another value, -1 already gone (ErrLockAlreadyExpired).
    release = [[
local val = redis.call("GET", KEYS[1])
if val == ARGV[1] then
  return redis.call("DEL", KEYS[1])
elseif val == false then
  return -1
else
  return 0
end
]],
  },
  coverage = { "quorum_reached", "quorum_short", "validity_not_positive", "sub_lock_unknown",
               "retry_sleep", "redlock_wait_ran_out", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local o = lockstep.options
    local expiry = req.lease_ms
    local timeout = math.max(1, math.floor(expiry * o.timeout_factor_ppm / 1000000))
    local drift = math.floor(expiry * o.drift_factor_ppm / 1000000)
    local val = value()
    local set = { "SET", req.lock, val, "PX", expiry, "NX" }
    if expiry % 1000 == 0 then set[4], set[5] = "EX", expiry / 1000 end
    local tries = req.wait_ms == 0 and 1 or o.tries  -- TryLock: one attempt
    local give_up_at = req.wait_ms > 0 and lockstep.now_ms() + req.wait_ms or nil
    for attempt = 1, tries do
      if attempt > 1 then
        if give_up_at and lockstep.now_ms() >= give_up_at then
          lockstep.cover("redlock_wait_ran_out")
          return false
        end
        lockstep.cover("retry_sleep")
        lockstep.sleep(lockstep.random(o.retry_delay_min_ms, math.max(o.retry_delay_min_ms, o.retry_delay_max_ms - 1)))
      end
      local start = lockstep.now_ms()
      local votes = lockstep.fan_out(function(i)
        local r, err = lockstep.call(set, { endpoint = i, op = req.op, timeout_ms = timeout, retry_attempts = 0 })
        if err == lockstep.TIMEOUT then lockstep.cover("sub_lock_unknown") end
        return r and r.ok == "OK"
      end)
      local n = 0
      for i = 1, lockstep.endpoints() do
        if votes[i] then n = n + 1 end
      end
      local now = lockstep.now_ms()
      local until_ms = now + expiry - (now - start) - drift
      if n >= quorum() and now < until_ms then
        lockstep.cover("quorum_reached")
        held[thread.index .. "\0" .. req.lock] = val
        return { acquired = true, count = 1, validity_ms = until_ms - now }
      end
      lockstep.cover(n >= quorum() and "validity_not_positive" or "quorum_short")
      release_all(req.lock, val, req.op, timeout)
    end
    if req.wait_ms ~= 0 and req.wait_ms < 0 then return nil, "redsync: failed to acquire lock" end
    return false
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local val = held[key]
    if not val then return nil, "redsync: lock not held by this thread" end
    held[key] = nil
    local expiry = lockstep.options.expiry_ms
    local timeout = math.max(1, math.floor(expiry * lockstep.options.timeout_factor_ppm / 1000000))
    local results = release_all(req.lock, val, req.op, timeout)
    local n, expired, unknown = 0, 0, 0
    for i = 1, lockstep.endpoints() do
      local r = results[i]
      if r == 1 then n = n + 1 elseif r == -1 then expired = expired + 1 elseif type(r) == "string" then unknown = unknown + 1 end
    end
    if n >= quorum() then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    if unknown > 0 and n + unknown >= quorum() then return nil, lockstep.TIMEOUT end
    if expired > 0 then return nil, "redsync: failed to unlock, lock was already expired" end
    return nil, "redsync: failed to unlock, lock was taken by another value"
  end,
}
