-- Fair lock acquire without queueing, current form (EVAL_NULL_BOOLEAN, tryLock() with no wait):
-- the guarded eviction (3.32) and, on a grant, every waiter's deadline moved earlier by the wait.
-- Written by the lockstep project from the documented behaviour of Redisson at HEAD
-- (/work/shared/reference, section 1.2).
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_queue:{name}; KEYS[3] = redisson_lock_timeout:{name};
-- ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>"; ARGV[3] = now (client ms);
-- ARGV[4] = threadWaitTime ms. Returns nil when acquired, 1 when not (it never enqueues).
while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then
        break;
    end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[3]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break;
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0)
        or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
    redis.call('lpop', KEYS[2]);
    redis.call('zrem', KEYS[3], ARGV[2]);
    local waiters = redis.call('zrange', KEYS[3], 0, -1);
    for i = 1, #waiters do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[4]), waiters[i]);
    end;
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return 1;
