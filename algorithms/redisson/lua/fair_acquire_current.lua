-- Fair lock acquire with queueing, current form (RedissonFairLock.tryLockInnerAsync, EVAL_LONG):
-- * the stale-head eviction skips a queue entry without a score instead of failing (3.32);
-- * a granted waiter moves every other waiter's deadline earlier by the wait;
-- * a waiter already queued gets max(0, pttl) and keeps its deadline (3.32, #4705);
-- * a new waiter queues behind the last one, using the last one's deadline only if it still
--   has one (3.45).
-- Written by the lockstep project from the documented behaviour of Redisson at HEAD
-- (/work/shared/reference, section 1.2).
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>"; ARGV[3] = wait ms (threadWaitTime, or the
-- tryLock wait); ARGV[4] = now (client ms). Returns nil when acquired, otherwise a ttl to wait.
while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then
        break;
    end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0)
        or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
    redis.call('lpop', KEYS[2]);
    redis.call('zrem', KEYS[3], ARGV[2]);
    local waiters = redis.call('zrange', KEYS[3], 0, -1);
    for i = 1, #waiters do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), waiters[i]);
    end;
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
    return math.max(0, redis.call('pttl', KEYS[1]));
end;
local last = redis.call('lindex', KEYS[2], -1);
local ttl;
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
    ttl = tonumber(redis.call('zscore', KEYS[3], last)) - tonumber(ARGV[4]);
else
    ttl = redis.call('pttl', KEYS[1]);
end;
local my_deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]);
if redis.call('zadd', KEYS[3], my_deadline, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2]);
end;
return ttl;
