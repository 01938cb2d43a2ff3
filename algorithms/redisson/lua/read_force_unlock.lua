-- Read lock forceUnlock: deletes the read-write lock only if it is in read mode.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonReadLock.forceUnlockAsync (/work/shared/reference, section 1.3). The per-hold timeout
-- keys are left to expire, as Redisson leaves them.
-- KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name}; ARGV[1] = unlock message (0).
-- Returns 1 if a read-mode lock was deleted, 0 otherwise.
if (redis.call('hget', KEYS[1], 'mode') == 'read') then
    redis.call('del', KEYS[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return 0;
