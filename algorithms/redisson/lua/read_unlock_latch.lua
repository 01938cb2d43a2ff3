-- Read lock release, current form: the unlock latch (3.24+), and unlocking a free lock returns
-- nil (3.44, "unlock() doesn't respect the lock owner") instead of 1. Otherwise seed 004's
-- logic: drop one hold and its timeout key, then keep the hash alive for the longest remaining
-- read hold, or delete it and wake waiters when none is left.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonReadLock.unlockInnerAsync at HEAD (/work/shared/reference, section 1.3).
-- KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name};
-- KEYS[3] = {name}:<uuid>:<threadId>:rwlock_timeout; KEYS[4] = {name};
-- KEYS[5] = redisson_unlock_latch:{name}:<requestId>;
-- ARGV[1] = unlock message (0); ARGV[2] = "<uuid>:<threadId>"; ARGV[3] = the publish command;
-- ARGV[4] = latch TTL ms. Returns 1 released, 0 still held, nil not a holder (or no lock).
local cached = redis.call('get', KEYS[5]);
if cached ~= false then
    return tonumber(cached);
end;
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call(ARGV[3], KEYS[2], ARGV[1]);
    redis.call('set', KEYS[5], 1, 'px', ARGV[4]);
    return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1);
if (counter == 0) then
    redis.call('hdel', KEYS[1], ARGV[2]);
end;
redis.call('del', KEYS[3] .. ':' .. (counter + 1));
if (redis.call('hlen', KEYS[1]) > 1) then
    local max_remain = -3;
    local fields = redis.call('hkeys', KEYS[1]);
    for _, field in ipairs(fields) do
        local holds = tonumber(redis.call('hget', KEYS[1], field));
        if type(holds) == 'number' then
            for i = holds, 1, -1 do
                local remain = redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. i);
                max_remain = math.max(remain, max_remain);
            end;
        end;
    end;
    if max_remain > 0 then
        redis.call('pexpire', KEYS[1], max_remain);
        redis.call('set', KEYS[5], 0, 'px', ARGV[4]);
        return 0;
    end;
    if mode == 'write' then
        redis.call('set', KEYS[5], 0, 'px', ARGV[4]);
        return 0;
    end;
end;
redis.call('del', KEYS[1]);
redis.call(ARGV[3], KEYS[2], ARGV[1]);
redis.call('set', KEYS[5], 1, 'px', ARGV[4]);
return 1;
