-- Write lock release, current form: the unlock latch (3.24+), and unlocking a free lock returns
-- nil (3.44) instead of 1. Otherwise seed 004's logic: the last write hold deletes the lock, or
-- downgrades it to read mode when the same thread still holds read locks; waiters are woken with
-- READ_UNLOCK_MESSAGE (1) so that all of them retry.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonWriteLock.unlockInnerAsync at HEAD (/work/shared/reference, section 1.4).
-- KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name};
-- KEYS[3] = redisson_unlock_latch:{name}:<requestId>;
-- ARGV[1] = READ_UNLOCK_MESSAGE (1); ARGV[2] = internalLockLeaseTime ms;
-- ARGV[3] = "<uuid>:<threadId>:write"; ARGV[4] = the publish command; ARGV[5] = latch TTL ms.
-- Returns 1 released, 0 still held, nil not the owner (or no lock).
local cached = redis.call('get', KEYS[3]);
if cached ~= false then
    return tonumber(cached);
end;
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call(ARGV[4], KEYS[2], ARGV[1]);
    redis.call('set', KEYS[3], 1, 'px', ARGV[5]);
    return nil;
end;
if (mode == 'write') then
    if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
        return nil;
    end;
    local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
    if (counter > 0) then
        redis.call('pexpire', KEYS[1], ARGV[2]);
        redis.call('set', KEYS[3], 0, 'px', ARGV[5]);
        return 0;
    end;
    redis.call('hdel', KEYS[1], ARGV[3]);
    if (redis.call('hlen', KEYS[1]) == 1) then
        redis.call('del', KEYS[1]);
        redis.call(ARGV[4], KEYS[2], ARGV[1]);
    else
        redis.call('hset', KEYS[1], 'mode', 'read');
    end;
    redis.call('set', KEYS[3], 1, 'px', ARGV[5]);
    return 1;
end;
return nil;
