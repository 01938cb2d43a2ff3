-- node-redlock v5 (mike-marcacci/node-redlock), written from its documentation and documented
-- behaviour (docs/algorithms.md "node-redlock"; facts in ../shared/reference; no code copied).
--
-- Settings: driftFactor 0.01, retryCount 10 (-1: forever), retryDelay 200 ms, retryJitter 100 ms
-- (each delay is retryDelay + floor((rand * 2 - 1) * retryJitter)), quorum floor(n/2) + 1.
-- acquire(resources, duration): every attempt runs the acquire script on every client at once
-- (EVALSHA, EVAL after NOSCRIPT); a client votes for when the script set every resource. With a
-- quorum the lock is returned with expiration = start + duration - (round(driftFactor *
-- duration) + 2), `start` taken at the beginning of the last attempt, and it is NOT checked
-- against the time already spent (issue #296). Without one it waits and tries again; a failed
-- attempt's keys stay where they were set, so the next attempt can find its own key (the
-- self-blocking PR #369 describes). When every attempt failed, it releases everywhere and throws.
-- release(lock) runs the release script on every client the same way, with the same retries: it
-- needs a quorum of clients that deleted the key, else it throws after the retries.
-- Automatic extension exists only inside using(); a plain acquire() holds for `duration`.
local held = {}

local function quorum() return math.floor(lockstep.endpoints() / 2) + 1 end

-- One operation with node-redlock's retries: true when a quorum voted for in some attempt, and
-- the local time that attempt started.
local function execute(script, lock, args, op, retry_count)
  local o = lockstep.options
  local attempts = retry_count == -1 and math.huge or retry_count + 1
  local attempt = 0
  while attempt < attempts do
    attempt = attempt + 1
    local start = lockstep.now_ms()
    local votes = lockstep.fan_out(function(i)
      local r, err = lockstep.evalsha(script, { lock }, args, { endpoint = i, op = op })
      if err == lockstep.TIMEOUT then lockstep.cover("sub_lock_unknown") end
      return r == 1
    end)
    local n = 0
    for i = 1, lockstep.endpoints() do
      if votes[i] then n = n + 1 end
    end
    if n >= quorum() then return true, start end
    if attempt < attempts then
      lockstep.cover("retry_sleep")
      local jitter = math.floor((lockstep.random(0, 1999999) / 1000000 - 1) * o.retry_jitter_ms)
      lockstep.sleep(math.max(0, o.retry_delay_ms + jitter))
    end
  end
  return false
end

return {
  name = "node-redlock",
  kind = "redlock",
  description = "node-redlock v5: acquire script on all clients at once, quorum, retries with jitter; no validity check",
  default_lease_ms = "duration_ms",
  grants = { acquire = 1, release = "never" },  -- acquire replies 1 where it set the key
  options = {
    duration_ms = { default = 10000, min = 1, max = 86400000 },  -- the acquire() call's duration
    retry_count = { default = 10, min = -1, max = 100000 },
    retry_delay_ms = { default = 200, min = 0, max = 60000 },
    retry_jitter_ms = { default = 100, min = 0, max = 60000 },
    drift_factor_ppm = { default = 10000, min = 0, max = 1000000 },  -- 0.01
  },
  scripts = {
    -- ACQUIRE_SCRIPT (one resource): refuse if the key exists, else set it with the duration.
    acquire = [[
for _, key in ipairs(KEYS) do
  if redis.call("exists", key) == 1 then
    return 0
  end
end
for _, key in ipairs(KEYS) do
  redis.call("set", key, ARGV[1], "PX", ARGV[2])
end
return #KEYS
]],
    -- RELEASE_SCRIPT: delete every key that still holds the value; the count deleted.
    release = [[
local count = 0
for _, key in ipairs(KEYS) do
  if redis.call("get", key) == ARGV[1] then
    redis.pcall("del", key)
    count = count + 1
  end
end
return count
]],
  },
  coverage = { "quorum_reached", "quorum_short", "sub_lock_unknown", "retry_sleep", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local o = lockstep.options
    local value = string.format("%08x%08x%08x%08x", lockstep.random(0, 2^32 - 1), lockstep.random(0, 2^32 - 1),
                                lockstep.random(0, 2^32 - 1), lockstep.random(0, 2^32 - 1))
    local duration = req.lease_ms
    local retries = req.wait_ms == 0 and 0 or o.retry_count
    local ok, start = execute("acquire", req.lock, { value, duration }, req.op, retries)
    if not ok then
      lockstep.cover("quorum_short")
      execute("release", req.lock, { value }, req.op, 0)
      if req.wait_ms >= 0 then return false end
      return nil, "ExecutionError: The operation was unable to achieve a quorum during its retry window."
    end
    lockstep.cover("quorum_reached")
    local drift = math.floor(o.drift_factor_ppm * duration / 1000000 + 0.5) + 2
    local expiration = start + duration - drift
    held[thread.index .. "\0" .. req.lock] = value
    -- Possibly already past (#296): the history records 0 then.
    return { acquired = true, count = 1, validity_ms = math.max(0, expiration - lockstep.now_ms()) }
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local value = held[key]
    if not value then return nil, "node-redlock: lock not held by this thread" end
    held[key] = nil
    if execute("release", req.lock, { value }, req.op, lockstep.options.retry_count) then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    return nil, "ExecutionError: The operation was unable to achieve a quorum during its retry window."
  end,
}
