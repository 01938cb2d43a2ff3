-- Fenced lock acquire (RFencedLock): like the RLock acquire, and every acquisition — a
-- re-entry too — increments the token counter and returns the new token.
-- Written by the lockstep project from the documented behaviour of Redisson's
-- RedissonFencedLock (/work/shared/reference, section 1.5); the seeds give no script.
-- KEYS[1] = lock name; KEYS[2] = redisson_lock_token:{name};
-- ARGV[1] = lease ms; ARGV[2] = "<uuid>:<threadId>".
-- Returns {-1, token} when acquired, {pttl, -1} when the lock is held by another thread.
if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then
    local token = redis.call('incr', KEYS[2]);
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return {-1, token};
end;
return {redis.call('pttl', KEYS[1]), -1};
