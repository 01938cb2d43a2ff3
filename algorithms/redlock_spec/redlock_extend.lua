-- RedLock (the Redis documentation's algorithm): extend the lock on one instance, only if it
-- still holds the caller's value.
-- Written by the lockstep project from the Redis documentation's "Distributed Locks with Redis"
-- ("extending the lock by sending a Lua script to all the instances that extends the TTL of the
-- key if the key exists and its value is still the random value the client assigned").
-- KEYS[1] = the resource's key; ARGV[1] = the random value; ARGV[2] = the new TTL in ms.
-- Returns 1 if extended, 0 otherwise.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
