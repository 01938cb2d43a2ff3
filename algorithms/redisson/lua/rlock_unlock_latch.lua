-- RLock unlock with the unlock latch (Redisson 3.24+): the result is cached under a per-request
-- key, so a retried unlock whose first attempt already ran returns that result instead of nil.
-- Written by the lockstep project from the documented behaviour of Redisson 3.24+
-- (RedissonLock.unlockInnerAsync; /work/shared/reference, section 1.1).
-- KEYS[1] = lock name; KEYS[2] = redisson_lock__channel:{name};
-- KEYS[3] = redisson_unlock_latch:{name}:<requestId>;
-- ARGV[1] = unlock message (0); ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>";
-- ARGV[4] = the publish command; ARGV[5] = latch TTL ms.
-- Returns 1 fully released, 0 still held (reentrant), nil not the owner (or no lock).
local cached = redis.call('get', KEYS[3]);
if cached ~= false then
    return tonumber(cached);
end;
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    redis.call('set', KEYS[3], 0, 'px', ARGV[5]);
    return 0;
end;
redis.call('del', KEYS[1]);
redis.call(ARGV[4], KEYS[2], ARGV[1]);
redis.call('set', KEYS[3], 1, 'px', ARGV[5]);
return 1;
