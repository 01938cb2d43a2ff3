-- RedLock (the Redis documentation's algorithm): release by compare-and-delete on one instance.
-- Written by the lockstep project from the Redis documentation's "Distributed Locks with Redis"
-- (the release script deletes the key only if it still holds the caller's random value).
-- KEYS[1] = the resource's key; ARGV[1] = the random value of this acquisition.
-- Returns 1 if the key held the value and was deleted, 0 otherwise.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
