-- Read lock acquire before Redisson 3.11.1: re-entry and additional readers set the hash's TTL to
-- this reader's lease with a plain PEXPIRE, so a short reader shortens a long reader's lock.
-- Derived from seed 004's script (../shared/seeds/004_e7114226efea6b30.txt, section 2) by the
-- project: the one line that differs is written from the documented pre-3.11.1 behaviour
-- (../shared/reference, section 1.3: "Before that it was a plain pexpire").
-- KEYS/ARGV as read_acquire.lua.
local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('hset', KEYS[1], 'mode', 'read');
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('set', KEYS[2] .. ':1', 1);
    redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1);
    local key = KEYS[2] .. ':' .. ind;
    redis.call('set', key, 1);
    redis.call('pexpire', key, ARGV[1]);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);
