-- Fair lock unlock, current form: the unlock latch (3.24+) and the guarded stale-waiter
-- eviction (3.32+). Unlocking a lock that does not exist returns 1 (and wakes the head).
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonFairLock.unlockInnerAsync at HEAD (/work/shared/reference, section 1.2).
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- KEYS[4] = redisson_lock__channel:{name}; KEYS[5] = redisson_unlock_latch:{name}:<requestId>;
-- ARGV[1] = unlock message (0); ARGV[2] = internalLockLeaseTime ms; ARGV[3] = "<uuid>:<threadId>";
-- ARGV[4] = now (client ms); ARGV[5] = the publish command; ARGV[6] = latch TTL ms.
-- Returns 1 released (or no lock), 0 still held (reentrant), nil not the owner.
local cached = redis.call('get', KEYS[5]);
if cached ~= false then
    return tonumber(cached);
end;
while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then
        break;
    end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) then
    local next_waiter = redis.call('lindex', KEYS[2], 0);
    if next_waiter ~= false then
        redis.call(ARGV[5], KEYS[4] .. ':' .. next_waiter, ARGV[1]);
    end;
    redis.call('set', KEYS[5], 1, 'px', ARGV[6]);
    return 1;
end;
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    redis.call('set', KEYS[5], 0, 'px', ARGV[6]);
    return 0;
end;
redis.call('del', KEYS[1]);
local next_waiter = redis.call('lindex', KEYS[2], 0);
if next_waiter ~= false then
    redis.call(ARGV[5], KEYS[4] .. ':' .. next_waiter, ARGV[1]);
end;
redis.call('set', KEYS[5], 1, 'px', ARGV[6]);
return 1;
