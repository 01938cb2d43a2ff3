-- Read lock watchdog renewal, current form (4.4.0+): refreshes the timeout keys of this client's
-- own threads only (the seed 004 renewal refreshes every field's, keeping other clients' dead
-- holds alive), then the hash if any of them still holds.
-- Written by the lockstep project from the documented behaviour of Redisson's ReadLockTask
-- (/work/shared/reference, section 1.3).
-- KEYS[1] = rwlock name; KEYS[2] = {name}; ARGV[1] = lease ms;
-- ARGV[2..] = "<uuid>:<threadId>" of each of this client's threads in the renewal entry.
-- Returns 1 renewed, 0 none of them holds a read lock.
local alive = false;
for j = 2, #ARGV do
    local holds = redis.call('hget', KEYS[1], ARGV[j]);
    if holds ~= false then
        alive = true;
        for i = tonumber(holds), 1, -1 do
            redis.call('pexpire', KEYS[2] .. ':' .. ARGV[j] .. ':rwlock_timeout:' .. i, ARGV[1]);
        end;
    end;
end;
if alive then
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;
