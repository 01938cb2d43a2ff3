-- Fair lock acquireFailed: a waiter that gives up (its tryLock budget ran out) leaves the queue;
-- every waiter queued behind it has its deadline moved earlier by the wait it had been charged,
-- undoing what its own enqueue added for the leaver.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonFairLock.acquireFailedAsync (/work/shared/reference, section 1.2).
-- KEYS[1] = redisson_lock_queue:{name}; KEYS[2] = redisson_lock_timeout:{name};
-- ARGV[1] = "<uuid>:<threadId>"; ARGV[2] = the wait charged per waiter (threadWaitTime, or the
-- tryLock wait in the current profile).
local queue = redis.call('lrange', KEYS[1], 0, -1);
local pos = 1;
while pos <= #queue and queue[pos] ~= ARGV[1] do
    pos = pos + 1;
end;
for i = pos + 1, #queue do
    redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i]);
end;
redis.call('zrem', KEYS[2], ARGV[1]);
redis.call('lrem', KEYS[1], 0, ARGV[1]);
return nil;
