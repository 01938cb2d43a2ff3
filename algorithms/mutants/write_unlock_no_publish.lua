-- MUTANT write_unlock_no_publish — deliberately broken; never the algorithm under test.
-- Derived from algorithms/redisson/lua/write_unlock.lua (seed 004's write unlock) with one change:
-- the PUBLISH after the last write hold deletes the lock is removed, so waiters are not woken and
-- sleep out the TTL they were last told (up to the 30 s watchdog lease) on a free lock.
-- Expected catch: liveness.
-- The original header (algorithms/redisson/lua/write_unlock.lua):
-- | Write lock release (RedissonWriteLock.unlockInnerAsync): when the write count reaches zero the
-- | lock is deleted, or downgraded to read mode if the same thread still holds read locks.
-- | Source: seed 004 (../shared/seeds/004_e7114226efea6b30.txt, section 9), used as given.
-- | KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name};
-- | ARGV[1] = READ_UNLOCK_MESSAGE (seed: 0; Redisson publishes 1 so that all waiters wake);
-- | ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>:write".
-- | Returns 1 released (or no lock existed), 0 still held, nil not the owner.
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
if (mode == 'write') then
    local lockExists = redis.call('hexists', KEYS[1], ARGV[3]);
    if (lockExists == 0) then
        return nil;
    else
        local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
        if (counter > 0) then
            redis.call('pexpire', KEYS[1], ARGV[2]);
            return 0;
        else
            redis.call('hdel', KEYS[1], ARGV[3]);
            if (redis.call('hlen', KEYS[1]) == 1) then
                redis.call('del', KEYS[1]);
            else
                redis.call('hset', KEYS[1], 'mode', 'read');
            end;
            return 1;
        end;
    end;
end;
return nil;
