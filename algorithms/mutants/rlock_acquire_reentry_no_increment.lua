-- MUTANT rlock_acquire_reentry_no_increment — deliberately broken; never the algorithm under test.
-- Derived from algorithms/redisson/lua/rlock_acquire.lua (seed 001's acquire) with one change:
-- the re-entry branch no longer runs HINCRBY, so a thread that locks twice holds a count of 1 and
-- its first unlock frees the lock while it still holds one level. Expected catch: linearizability.
-- The original header (algorithms/redisson/lua/rlock_acquire.lua):
-- | RLock acquire (RedissonLock.tryLockInnerAsync, classic two-block form).
-- | Source: seed 001 (../shared/seeds/001_4b1a5badb906d34b.txt, "加锁Lua脚本"), used as given.
-- | KEYS[1] = lock name; ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>".
-- | Returns nil when acquired or re-entered, otherwise the holder's remaining PTTL.
if (redis.call('exists', KEYS[1]) == 0) then
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);
