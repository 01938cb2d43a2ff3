-- Fair lock forceUnlock: evicts stale heads, deletes the lock whoever holds it, and wakes the
-- waiter at the head of the queue.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonFairLock.forceUnlockAsync (/work/shared/reference, section 1.2). The eviction carries
-- the 3.32 guard (a queue entry without a score stops it instead of raising an error).
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- KEYS[4] = redisson_lock__channel:{name}; ARGV[1] = unlock message (0); ARGV[2] = now (client ms).
-- Returns 1 if a lock was deleted, 0 if there was none.
while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then
        break;
    end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[2]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('del', KEYS[1]) == 1) then
    local next_waiter = redis.call('lindex', KEYS[2], 0);
    if next_waiter ~= false then
        redis.call('publish', KEYS[4] .. ':' .. next_waiter, ARGV[1]);
    end;
    return 1;
end;
return 0;
