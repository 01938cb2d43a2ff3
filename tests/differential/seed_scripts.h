// The seed documents' lock scripts, byte for byte as Redisson sends them (the Java string
// literals of each seed concatenated), for the differential test and benchmark B1.
//
// Extracted once from /work/shared/seeds/ (shared/seeds/ in the repository's parent); the
// algorithm module keeps its own, reformatted copies. Each constant says where it comes from.
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_SEED_SCRIPTS_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_SEED_SCRIPTS_H_

#include <string_view>

namespace lockstep::differential {

// From seed 001 (001_4b1a5badb906d34b.txt): RedissonLock.tryLockInnerAsync, the EVAL text of the seed's MONITOR log (thread A, step 1.1.1).
// KEYS[1]=lock; ARGV[1]=lease ms; ARGV[2]=uuid:thread.
inline constexpr std::string_view kRlockAcquire =
    R"lua(if (redis.call('exists', KEYS[1]) == 0) then redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);)lua";

// From seed 001: RedissonLock.unlockInnerAsync, the EVAL text of the seed's MONITOR log (step 3.1.1).
// KEYS[1]=lock, KEYS[2]=channel; ARGV[1]=message, ARGV[2]=lease ms, ARGV[3]=uuid:thread.
inline constexpr std::string_view kRlockUnlock =
    R"lua(if (redis.call('exists', KEYS[1]) == 0) then redis.call('publish', KEYS[2], ARGV[1]); return 1; end;if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;)lua";

// From seed 002 (002_59c6fa30150c9a8f.txt): RedissonFairLock.tryLockInnerAsync, EVAL_LONG branch: the Java string literals concatenated, the seed's inline annotations dropped and the one closing quote the seed's text lost (after "redis.call('zrem', KEYS[3], firstThreadId2); ") restored.
// KEYS[1]=lock, KEYS[2]=queue, KEYS[3]=timeout zset; ARGV[1]=lease ms, ARGV[2]=uuid:thread, ARGV[3]=now+wait ms, ARGV[4]=now ms.
inline constexpr std::string_view kFairAcquire =
    R"lua(while true do local firstThreadId2 = redis.call('lindex', KEYS[2], 0);if firstThreadId2 == false then break;end; local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));if timeout <= tonumber(ARGV[4]) then redis.call('zrem', KEYS[3], firstThreadId2); redis.call('lpop', KEYS[2]); else break;end; end;if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0) or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then redis.call('lpop', KEYS[2]); redis.call('zrem', KEYS[3], ARGV[2]); redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; local firstThreadId = redis.call('lindex', KEYS[2], 0); local ttl; if firstThreadId ~= false and firstThreadId ~= ARGV[2] then ttl = tonumber(redis.call('zscore', KEYS[3], firstThreadId)) - tonumber(ARGV[4]);else ttl = redis.call('pttl', KEYS[1]);end; local timeout = ttl + tonumber(ARGV[3]);if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then redis.call('rpush', KEYS[2], ARGV[2]);end; return ttl;)lua";

// From seed 004 (004_e7114226efea6b30.txt): RedissonReadLock.tryLockInnerAsync, the Java string literals concatenated.
// KEYS[1]=lock, KEYS[2]={lock}:uuid:thread:rwlock_timeout; ARGV[1]=lease ms, ARGV[2]=uuid:thread, ARGV[3]=uuid:thread:write.
inline constexpr std::string_view kReadAcquire =
    R"lua(local mode = redis.call('hget', KEYS[1], 'mode'); if (mode == false) then redis.call('hset', KEYS[1], 'mode', 'read'); redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('set', KEYS[2] .. ':1', 1); redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1); local key = KEYS[2] .. ':' .. ind;redis.call('set', key, 1); redis.call('pexpire', key, ARGV[1]); local remainTime = redis.call('pttl', KEYS[1]); redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1])); return nil; end;return redis.call('pttl', KEYS[1]);)lua";

// From seed 004: RedissonWriteLock.tryLockInnerAsync, the Java string literals concatenated.
// KEYS[1]=lock; ARGV[1]=lease ms, ARGV[2]=uuid:thread:write.
inline constexpr std::string_view kWriteAcquire =
    R"lua(local mode = redis.call('hget', KEYS[1], 'mode'); if (mode == false) then redis.call('hset', KEYS[1], 'mode', 'write'); redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (mode == 'write') then if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); local currentExpire = redis.call('pttl', KEYS[1]); redis.call('pexpire', KEYS[1], currentExpire + ARGV[1]); return nil; end; end;return redis.call('pttl', KEYS[1]);)lua";

// From seed 004: RedissonReadLock.unlockInnerAsync, the Java string literals concatenated.
// KEYS[1]=lock, KEYS[2]=redisson_rwlock:{lock}, KEYS[3]={lock}:uuid:thread:rwlock_timeout, KEYS[4]={lock}; ARGV[1]=message, ARGV[2]=uuid:thread.
inline constexpr std::string_view kReadUnlock =
    R"lua(local mode = redis.call('hget', KEYS[1], 'mode'); if (mode == false) then redis.call('publish', KEYS[2], ARGV[1]); return 1; end; local lockExists = redis.call('hexists', KEYS[1], ARGV[2]); if (lockExists == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); if (counter == 0) then redis.call('hdel', KEYS[1], ARGV[2]); end;redis.call('del', KEYS[3] .. ':' .. (counter+1)); if (redis.call('hlen', KEYS[1]) > 1) then local maxRemainTime = -3; local keys = redis.call('hkeys', KEYS[1]); for n, key in ipairs(keys) do counter = tonumber(redis.call('hget', KEYS[1], key)); if type(counter) == 'number' then for i=counter, 1, -1 do local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i); maxRemainTime = math.max(remainTime, maxRemainTime);end; end; end; if maxRemainTime > 0 then redis.call('pexpire', KEYS[1], maxRemainTime); return 0; end;if mode == 'write' then return 0;end; end; redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; )lua";

// From seed 004: RedissonWriteLock.unlockInnerAsync, the Java string literals concatenated.
// KEYS[1]=lock, KEYS[2]=redisson_rwlock:{lock}; ARGV[1]=message, ARGV[2]=lease ms, ARGV[3]=uuid:thread:write.
inline constexpr std::string_view kWriteUnlock =
    R"lua(local mode = redis.call('hget', KEYS[1], 'mode'); if (mode == false) then redis.call('publish', KEYS[2], ARGV[1]); return 1; end;if (mode == 'write') then local lockExists = redis.call('hexists', KEYS[1], ARGV[3]); if (lockExists == 0) then return nil;else local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('hdel', KEYS[1], ARGV[3]); if (redis.call('hlen', KEYS[1]) == 1) then redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); else redis.call('hset', KEYS[1], 'mode', 'read'); end; return 1; end; end; end; return nil;)lua";

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_SEED_SCRIPTS_H_
