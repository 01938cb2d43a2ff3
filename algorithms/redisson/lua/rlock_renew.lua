-- RLock watchdog renewal (scheduleExpirationRenewal's timer task).
-- Source: seed 001 (../shared/seeds/001_4b1a5badb906d34b.txt, scheduleExpirationRenewal), used as given.
-- KEYS[1] = lock name; ARGV[1] = internalLockLeaseTime ms; ARGV[2] = "<uuid>:<threadId>".
-- Returns 1 renewed, 0 the thread no longer holds the lock.
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;
