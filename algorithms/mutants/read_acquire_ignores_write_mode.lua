-- MUTANT read_acquire_ignores_write_mode — deliberately broken; never the algorithm under test.
-- Derived from algorithms/redisson/lua/read_acquire.lua (seed 004's read acquire) with one change:
-- the write-mode branch no longer requires the reader to be the writer itself (the `hexists` of
-- ARGV[3] is dropped), so any reader joins a lock held in write mode. Expected catch:
-- mutual_exclusion.
-- The original header (algorithms/redisson/lua/read_acquire.lua):
-- | Read lock acquire (RedissonReadLock.tryLockInnerAsync, with the max(remainTime, lease) form).
-- | Source: seed 004 (../shared/seeds/004_e7114226efea6b30.txt, section 2), used as given.
-- | KEYS[1] = rwlock name; KEYS[2] = {name}:<uuid>:<threadId>:rwlock_timeout;
-- | ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>"; ARGV[3] = "<uuid>:<threadId>:write".
-- | Returns nil when acquired, otherwise the remaining PTTL of the rwlock hash.
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('hset', KEYS[1], 'mode', 'read');
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('set', KEYS[2] .. ':1', 1);
    redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (mode == 'read') or (mode == 'write') then
    local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1);
    local key = KEYS[2] .. ':' .. ind;
    redis.call('set', key, 1);
    redis.call('pexpire', key, ARGV[1]);
    local remainTime = redis.call('pttl', KEYS[1]);
    redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1]));
    return nil;
end;
return redis.call('pttl', KEYS[1]);
