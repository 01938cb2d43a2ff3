-- RLock forceUnlock: deletes the lock whoever holds it and wakes one waiter.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonLock.forceUnlockAsync (/work/shared/reference, section 1.1); the seeds give no script.
-- KEYS[1] = lock name; KEYS[2] = redisson_lock__channel:{name}; ARGV[1] = unlock message (0).
-- Returns 1 if a lock was deleted, 0 if there was none.
if (redis.call('del', KEYS[1]) == 1) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return 0;
