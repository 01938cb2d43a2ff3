-- set-nx-px baseline: lease extension by compare-and-pexpire (the renewal loop used when a lock
-- is taken without an explicit lease).
--
-- Written by the lockstep project from the Redis documentation's single-instance locking
-- algorithm, which extends a lock only if the key still holds the caller's token.
--
-- KEYS[1]: the lock key. ARGV[1]: the caller's token. ARGV[2]: the new lease in milliseconds.
-- Returns 1 if the key held the token and its TTL was reset, 0 otherwise.
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
