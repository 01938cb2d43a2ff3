-- Read lock release (RedissonReadLock.unlockInnerAsync): recomputes the hash's TTL as the largest
-- remaining TTL of all read holds' timeout keys.
-- Source: seed 004 (../shared/seeds/004_e7114226efea6b30.txt, section 8), used as given.
-- KEYS[1] = rwlock name; KEYS[2] = redisson_rwlock:{name};
-- KEYS[3] = {name}:<uuid>:<threadId>:rwlock_timeout; KEYS[4] = {name};
-- ARGV[1] = unlock message (0); ARGV[2] = "<uuid>:<threadId>".
-- Returns 1 fully released (or no lock existed), 0 still held, nil not a holder.
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
local lockExists = redis.call('hexists', KEYS[1], ARGV[2]);
if (lockExists == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1);
if (counter == 0) then
    redis.call('hdel', KEYS[1], ARGV[2]);
end;
redis.call('del', KEYS[3] .. ':' .. (counter+1));
if (redis.call('hlen', KEYS[1]) > 1) then
    local maxRemainTime = -3;
    local keys = redis.call('hkeys', KEYS[1]);
    for n, key in ipairs(keys) do
        counter = tonumber(redis.call('hget', KEYS[1], key));
        if type(counter) == 'number' then
            for i=counter, 1, -1 do
                local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i);
                maxRemainTime = math.max(remainTime, maxRemainTime);
            end;
        end;
    end;
    if maxRemainTime > 0 then
        redis.call('pexpire', KEYS[1], maxRemainTime);
        return 0;
    end;
    if mode == 'write' then
        return 0;
    end;
end;
redis.call('del', KEYS[1]);
redis.call('publish', KEYS[2], ARGV[1]);
return 1;
