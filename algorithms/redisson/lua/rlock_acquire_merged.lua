-- RLock acquire, current form: the classic script's two tests (the lock is free; the caller
-- already holds it) merged into one `or`. Same semantics, shorter command trace for a re-entry.
-- Written by the lockstep project from the documented behaviour of Redisson 3.16+
-- (RedissonLock.tryLockInnerAsync; /work/shared/reference, section 1.1).
-- KEYS[1] = lock name; ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>".
-- Returns nil when acquired or re-entered (the TTL is reset to the lease), otherwise the
-- holder's remaining PTTL.
if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);
