-- Write lock forceUnlock: deletes the read-write lock only if it is in write mode and wakes all
-- waiters.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonWriteLock.forceUnlockAsync (/work/shared/reference, section 1.4).
-- KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name}; ARGV[1] = READ_UNLOCK_MESSAGE (1).
-- Returns 1 if a write-mode lock was deleted, 0 otherwise.
if (redis.call('hget', KEYS[1], 'mode') == 'write') then
    redis.call('del', KEYS[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return 0;
