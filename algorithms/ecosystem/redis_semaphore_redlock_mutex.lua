-- redis-semaphore's RedlockMutex (npm, swarthy/redis-semaphore v5), written from its
-- documentation and documented behaviour (docs/algorithms.md "redis-semaphore-redlock-mutex"; no
-- code of it is copied).
--
-- new RedlockMutex(clients, key, { lockTimeout = 10000, acquireTimeout = 10000,
-- acquireAttemptsLimit = Infinity, retryInterval = 10, refreshInterval = lockTimeout * 0.8 }),
-- over N independent Redis clients; quorum = round((N + 1) / 2).
-- acquire(): each attempt sends SET key identifier PX lockTimeout NX to every client at once; a
-- client counts when it answered OK (an error or no answer counts 0). With a quorum the mutex is
-- taken, with no check of the time spent; without one, the key is deleted everywhere it still
-- holds the identifier and the next attempt follows retryInterval later, until acquireTimeout or
-- acquireAttemptsLimit runs out.
-- The refresh timer, every refreshInterval, PEXPIREs the key on every client where it still holds
-- the identifier. With a quorum refreshed it also sends SET NX PX to the clients that did not
-- refresh (taking the key back where it had expired); without one it deletes the key everywhere
-- it still holds the identifier, stops, and calls onLockLost.
-- release(): stop refreshing, delete the key everywhere it still holds the identifier.
-- Deviation: the key is the lock's name itself, not "mutex:<name>", so that the history's keys
-- are the lock names the checker reads.
local held = {}

local function quorum()
  return math.floor((lockstep.endpoints() + 1) / 2 + 0.5)
end

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

-- SET NX PX on the endpoints `which` lists (all when nil), at once: per endpoint, 1 when OK.
local function set_nx(lock, id, timeout, op, which)
  return lockstep.fan_out(function(i)
    if which and not which[i] then return 0 end
    local reply, err = lockstep.call({ "SET", lock, id, "PX", timeout, "NX" }, { endpoint = i, op = op })
    if err == lockstep.TIMEOUT then lockstep.cover("sub_lock_unknown") end
    return (not err and reply) and 1 or 0
  end)
end

-- A script on every endpoint at once: per endpoint, its integer reply (0 on an error).
local function everywhere(script, lock, args, op)
  return lockstep.fan_out(function(i)
    local reply, err = lockstep.evalsha(script, { lock }, args, { endpoint = i, op = op })
    if err then return 0 end
    return reply
  end)
end

local function sum(results)
  local n = 0
  for i = 1, lockstep.endpoints() do n = n + results[i] end
  return n
end

local function refresher(thread, lock, id, timeout, every)
  return function()
    while true do
      lockstep.sleep(every)
      local op = lockstep.begin_op{ thread = thread, lock = lock, lease_ms = timeout }
      local refreshed = everywhere("refresh", lock, { id, timeout }, op)
      if sum(refreshed) >= quorum() then
        local failed = {}
        for i = 1, lockstep.endpoints() do
          if refreshed[i] ~= 1 then failed[i] = true end
        end
        if next(failed) then set_nx(lock, id, timeout, op, failed) end
        lockstep.end_op(op, { renewed = true })
        lockstep.cover("renewed")
      else
        everywhere("release", lock, { id }, op)
        lockstep.end_op(op, { renewed = false })
        -- onLockLost: the holder learns it lost the mutex.
        lockstep.cover("renewal_lost")
        lockstep.hold_lost(thread, lock)
        return
      end
    end
  end
end

return {
  name = "redis-semaphore-redlock-mutex",
  kind = "redlock",
  description = "redis-semaphore RedlockMutex: SET NX PX on every node at once, quorum, no validity check; refresh on a quorum",
  default_lease_ms = "lock_timeout_ms",
  renews = true,  -- the refresh timer keeps lockTimeout alive on a quorum while held
  grants = { release = "never" },  -- a failed attempt's clean-up; SET's OK is the grant
  options = {
    lock_timeout_ms = { default = 10000, min = 1, max = 86400000 },
    acquire_timeout_ms = { default = 10000, min = 0, max = 86400000 },
    acquire_attempts_limit = { default = 0, min = 0, max = 100000000 },  -- 0: Infinity
    retry_interval_ms = { default = 10, min = 1, max = 60000 },
    refresh_interval_ms = { default = -1, min = -1, max = 86400000 },  -- -1: 0.8 * lockTimeout; 0: no refresh
  },
  scripts = {
    -- expireIfEqual: PEXPIRE the key if it holds the identifier.
    refresh = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
]],
    -- delIfEqual: DEL the key if it holds the identifier.
    release = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
]],
  },
  coverage = { "quorum_reached", "quorum_short", "sub_lock_unknown", "retry_sleep", "wait_time_ran_out",
               "renewed", "renewal_lost", "released", "unlock_not_held" },

  acquire = function(thread, req)
    local o = lockstep.options
    local timeout = req.lease_ms
    local id = uuid()
    -- As redis-semaphore-mutex: lock() is acquire(); try_lock(wait) a RedlockMutex whose
    -- acquireTimeout is that wait; try_lock(0) one with acquireAttemptsLimit 1.
    local acquire_timeout = req.wait_ms < 0 and o.acquire_timeout_ms or req.wait_ms
    local limit = o.acquire_attempts_limit == 0 and math.huge or o.acquire_attempts_limit
    if req.wait_ms == 0 then acquire_timeout, limit = o.acquire_timeout_ms, 1 end
    local finish = lockstep.now_ms() + acquire_timeout
    local attempt = 0
    while lockstep.now_ms() < finish and attempt < limit do
      attempt = attempt + 1
      if sum(set_nx(req.lock, id, timeout, req.op)) >= quorum() then
        lockstep.cover("quorum_reached")
        local every = o.refresh_interval_ms < 0 and math.floor(timeout * 0.8 + 0.5) or o.refresh_interval_ms
        local task = nil
        if every > 0 then task = lockstep.spawn(refresher(thread, req.lock, id, timeout, every)) end
        held[thread.index .. "\0" .. req.lock] = { id = id, task = task }
        return { acquired = true, count = 1 }
      end
      lockstep.cover("quorum_short")
      everywhere("release", req.lock, { id }, req.op)
      lockstep.cover("retry_sleep")
      lockstep.sleep(o.retry_interval_ms)
    end
    lockstep.cover("wait_time_ran_out")
    if req.wait_ms < 0 then return nil, "TimeoutError: Acquire redlock-mutex " .. req.lock .. " timeout" end
    return false
  end,

  release = function(thread, req)
    local key = thread.index .. "\0" .. req.lock
    local h = held[key]
    if not h then return nil, "redis-semaphore: redlock-mutex not acquired by this thread" end
    held[key] = nil
    lockstep.cancel(h.task)
    -- The library's release reports nothing; the history needs an answer: released when a
    -- quorum still held the identifier.
    if sum(everywhere("release", req.lock, { h.id }, req.op)) >= quorum() then
      lockstep.cover("released")
      return { released = true, count = 0 }
    end
    lockstep.cover("unlock_not_held")
    return nil, "the redlock-mutex was no longer held by a quorum"
  end,
}
