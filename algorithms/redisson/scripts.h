// The Redisson lock clients' Lua scripts, embedded from lua/*.lua at build time. Each file's
// header says where it comes from: a seed document (used as given) or the project, written from
// a documented Redisson version's behaviour.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_SCRIPTS_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_SCRIPTS_H_

#include "algorithms/algorithm.h"

namespace lockstep::algorithms::redisson::scripts {

// RLock (seed 001 / seed 003 / current).
const Script& rlock_acquire();
const Script& rlock_acquire_merged();
const Script& rlock_unlock();
const Script& rlock_unlock_owner_check();
const Script& rlock_unlock_latch();
const Script& rlock_renew();
const Script& rlock_force_unlock();
// Fenced lock.
const Script& fenced_acquire();
// Fair lock (seed 002 / project).
const Script& fair_acquire();
const Script& fair_try_acquire();
const Script& fair_acquire_current();
const Script& fair_try_acquire_current();
const Script& fair_unlock();
const Script& fair_unlock_latch();
const Script& fair_force_unlock();
const Script& fair_acquire_failed();
// Read-write lock (seed 004 / project).
const Script& read_acquire();
const Script& read_acquire_plain_pexpire();
const Script& read_unlock();
const Script& read_unlock_latch();
const Script& read_renew();
const Script& read_renew_own();
const Script& read_force_unlock();
const Script& write_acquire();
const Script& write_unlock();
const Script& write_unlock_latch();
const Script& write_force_unlock();

}  // namespace lockstep::algorithms::redisson::scripts

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_SCRIPTS_H_
