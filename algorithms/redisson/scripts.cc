#include "algorithms/redisson/scripts.h"

#include <string_view>

namespace lockstep::algorithms::lua {
extern const std::string_view rlock_acquire;
extern const std::string_view rlock_acquire_merged;
extern const std::string_view rlock_unlock;
extern const std::string_view rlock_unlock_owner_check;
extern const std::string_view rlock_unlock_latch;
extern const std::string_view rlock_renew;
extern const std::string_view rlock_force_unlock;
extern const std::string_view fenced_acquire;
extern const std::string_view fair_acquire;
extern const std::string_view fair_try_acquire;
extern const std::string_view fair_acquire_current;
extern const std::string_view fair_try_acquire_current;
extern const std::string_view fair_unlock;
extern const std::string_view fair_unlock_latch;
extern const std::string_view fair_force_unlock;
extern const std::string_view fair_acquire_failed;
extern const std::string_view read_acquire;
extern const std::string_view read_acquire_plain_pexpire;
extern const std::string_view read_unlock;
extern const std::string_view read_unlock_latch;
extern const std::string_view read_renew;
extern const std::string_view read_renew_own;
extern const std::string_view read_force_unlock;
extern const std::string_view write_acquire;
extern const std::string_view write_unlock;
extern const std::string_view write_unlock_latch;
extern const std::string_view write_force_unlock;
}  // namespace lockstep::algorithms::lua

namespace lockstep::algorithms::redisson::scripts {

// One Script per file, built (and its SHA-1 computed) on first use.
#define LOCKSTEP_SCRIPT(name)                                   \
  const Script& name() {                                        \
    static const Script s = make_script(#name, lua::name);      \
    return s;                                                   \
  }

LOCKSTEP_SCRIPT(rlock_acquire)
LOCKSTEP_SCRIPT(rlock_acquire_merged)
LOCKSTEP_SCRIPT(rlock_unlock)
LOCKSTEP_SCRIPT(rlock_unlock_owner_check)
LOCKSTEP_SCRIPT(rlock_unlock_latch)
LOCKSTEP_SCRIPT(rlock_renew)
LOCKSTEP_SCRIPT(rlock_force_unlock)
LOCKSTEP_SCRIPT(fenced_acquire)
LOCKSTEP_SCRIPT(fair_acquire)
LOCKSTEP_SCRIPT(fair_try_acquire)
LOCKSTEP_SCRIPT(fair_acquire_current)
LOCKSTEP_SCRIPT(fair_try_acquire_current)
LOCKSTEP_SCRIPT(fair_unlock)
LOCKSTEP_SCRIPT(fair_unlock_latch)
LOCKSTEP_SCRIPT(fair_force_unlock)
LOCKSTEP_SCRIPT(fair_acquire_failed)
LOCKSTEP_SCRIPT(read_acquire)
LOCKSTEP_SCRIPT(read_acquire_plain_pexpire)
LOCKSTEP_SCRIPT(read_unlock)
LOCKSTEP_SCRIPT(read_unlock_latch)
LOCKSTEP_SCRIPT(read_renew)
LOCKSTEP_SCRIPT(read_renew_own)
LOCKSTEP_SCRIPT(read_force_unlock)
LOCKSTEP_SCRIPT(write_acquire)
LOCKSTEP_SCRIPT(write_unlock)
LOCKSTEP_SCRIPT(write_unlock_latch)
LOCKSTEP_SCRIPT(write_force_unlock)

#undef LOCKSTEP_SCRIPT

}  // namespace lockstep::algorithms::redisson::scripts
