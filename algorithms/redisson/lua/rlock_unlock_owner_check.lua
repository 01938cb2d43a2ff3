-- RLock unlock, later form without the leading EXISTS check: unlocking a lock that is not held
-- at all returns nil (IllegalMonitorStateException) instead of 1.
-- Source: seed 003 (../shared/seeds/003_208ae04c0f7ec0fc.txt, unlockInnerAsync), used as given.
-- KEYS[1] = lock name; KEYS[2] = redisson_lock__channel:{name};
-- ARGV[1] = unlock message (0); ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>".
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    return 0;
else
    redis.call('del', KEYS[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return nil;
