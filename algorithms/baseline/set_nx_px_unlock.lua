-- set-nx-px baseline: release by compare-and-delete.
--
-- Written by the lockstep project from the Redis documentation's single-instance locking
-- algorithm ("Distributed Locks with Redis": acquire with SET resource token NX PX ttl, release
-- by deleting the key only if it still holds the caller's token, atomically in a script).
--
-- KEYS[1]: the lock key. ARGV[1]: the token this client set when it acquired the lock.
-- Returns 1 if the key held the token and was deleted, 0 otherwise (expired, or taken).
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
