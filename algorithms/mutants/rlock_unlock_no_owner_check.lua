-- MUTANT rlock_unlock_no_owner_check — deliberately broken; never the algorithm under test.
-- Derived from algorithms/redisson/lua/rlock_unlock.lua (seed 001's unlock) with one change:
-- the `hexists ... == 0 then return nil` owner check is removed, so a thread that does not hold the
-- lock decrements a counter of its own (HINCRBY creates it at -1), and the lock is deleted under
-- its real holder. Expected catch: mutual_exclusion.
-- The original header (algorithms/redisson/lua/rlock_unlock.lua):
-- | RLock unlock (RedissonLock.unlockInnerAsync, classic form with the leading EXISTS check).
-- | Source: seed 001 (../shared/seeds/001_4b1a5badb906d34b.txt, "解锁Lua脚本"), used as given.
-- | KEYS[1] = lock name; KEYS[2] = redisson_lock__channel:{name};
-- | ARGV[1] = unlock message (0); ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>".
-- | Returns 1 fully released (or no lock existed), 0 still held (reentrant), nil not the owner.
if (redis.call('exists', KEYS[1]) == 0) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
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
