-- MUTANT fair_acquire_evicts_live_head — deliberately broken; never the algorithm under test.
-- Derived from algorithms/redisson/lua/fair_acquire.lua (seed 002's acquire) with one change:
-- the stale-waiter test `timeout <= now` is inverted to `timeout >= now`, so the eviction loop
-- removes waiters whose deadline has NOT passed (live heads) and a later waiter overtakes them.
-- Expected catch: fairness.
-- The original header (algorithms/redisson/lua/fair_acquire.lua):
-- | Fair lock acquire with queueing (RedissonFairLock.tryLockInnerAsync, EVAL_LONG branch).
-- | Source: seed 002 (../shared/seeds/002_59c6fa30150c9a8f.txt), used as given (the seed's
-- | annotations removed). Stale heads are evicted against ARGV[4]; note the classic script has no
-- | guard for a queue entry without a zset score (tonumber(false) compares nil with a number).
-- | KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- | ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>"; ARGV[3] = now + threadWaitTime (client ms);
-- | ARGV[4] = now (client ms). Returns nil when acquired, otherwise a ttl to wait.
while true do
    local firstThreadId2 = redis.call('lindex', KEYS[2], 0);
    if firstThreadId2 == false then
        break;
    end;
    local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));
    if timeout >= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], firstThreadId2);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0)
        or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
    redis.call('lpop', KEYS[2]);
    redis.call('zrem', KEYS[3], ARGV[2]);
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
local firstThreadId = redis.call('lindex', KEYS[2], 0);
local ttl;
if firstThreadId ~= false and firstThreadId ~= ARGV[2] then
    ttl = tonumber(redis.call('zscore', KEYS[3], firstThreadId)) - tonumber(ARGV[4]);
else
    ttl = redis.call('pttl', KEYS[1]);
end;
local timeout = ttl + tonumber(ARGV[3]);
if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2]);
end;
return ttl;
