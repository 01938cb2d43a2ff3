-- Fair lock unlock, classic form (no latch): evicts stale waiters at the head of the queue the
-- way seed 002's acquire does, releases one hold, and when the lock is free wakes the waiter at
-- the head through its own channel. Unlocking a lock that does not exist returns 1.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonFairLock.unlockInnerAsync (/work/shared/reference, section 1.2) in the style of the
-- seed 002 era: the eviction has no guard for a queue entry without a score, like the seed's.
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- KEYS[4] = redisson_lock__channel:{name};
-- ARGV[1] = unlock message (0); ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>";
-- ARGV[4] = now (client ms).
-- Returns 1 released (or no lock), 0 still held (reentrant), nil not the owner.
while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then
        break;
    end;
    local deadline = tonumber(redis.call('zscore', KEYS[3], head));
    if deadline <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) then
    local next_waiter = redis.call('lindex', KEYS[2], 0);
    if next_waiter ~= false then
        redis.call('publish', KEYS[4] .. ':' .. next_waiter, ARGV[1]);
    end;
    return 1;
end;
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    return 0;
end;
redis.call('del', KEYS[1]);
local next_waiter = redis.call('lindex', KEYS[2], 0);
if next_waiter ~= false then
    redis.call('publish', KEYS[4] .. ':' .. next_waiter, ARGV[1]);
end;
return 1;
