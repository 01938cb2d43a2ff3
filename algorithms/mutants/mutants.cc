#include "algorithms/mutants/mutants.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace lockstep::algorithms::lua {
extern const std::string_view fair_acquire_evicts_live_head;
extern const std::string_view read_acquire_ignores_write_mode;
extern const std::string_view rlock_acquire_no_pexpire;
extern const std::string_view rlock_acquire_reentry_no_increment;
extern const std::string_view rlock_unlock_no_owner_check;
extern const std::string_view write_unlock_no_publish;
}  // namespace lockstep::algorithms::lua

namespace lockstep::algorithms::mutants {
namespace {

// The algorithms that send each replaced script (see algorithms/redisson/*_types.cc): the RLock
// scripts also run inside the fenced lock (unlock, renew) and Redisson's RedLock (its sub-locks).
const std::vector<std::string> kRLockAcquirers = {"redisson-lock", "redisson-redlock"};
const std::vector<std::string> kRLockUnlockers = {"redisson-fenced-lock", "redisson-lock",
                                                  "redisson-redlock"};

Mutant make(const char* name, std::string_view text, std::string replaces,
            std::vector<std::string> algorithms, std::string property, std::string broken) {
  LS_ASSERT(!text.empty());
  LS_ASSERT(!algorithms.empty());
  return Mutant{name, std::move(replaces), std::move(algorithms), std::move(property),
                std::move(broken), runtime::make_script(name, text)};
}

std::vector<Mutant> build() {
  std::vector<Mutant> all;
  all.push_back(make("rlock_unlock_no_owner_check", lua::rlock_unlock_no_owner_check,
                     "rlock_unlock", kRLockUnlockers, "mutual_exclusion",
                     "unlock without the HEXISTS owner check: a non-owner's unlock deletes the "
                     "holder's lock"));
  all.push_back(make("rlock_acquire_reentry_no_increment", lua::rlock_acquire_reentry_no_increment,
                     "rlock_acquire", kRLockAcquirers, "linearizability",
                     "re-entry without HINCRBY: after locking twice, the first unlock frees the "
                     "lock"));
  all.push_back(make("rlock_acquire_no_pexpire", lua::rlock_acquire_no_pexpire, "rlock_acquire",
                     kRLockAcquirers, "liveness",
                     "first acquisition without PEXPIRE: a holder that dies before its first "
                     "renewal leaves a key that never expires"));
  all.push_back(make("fair_acquire_evicts_live_head", lua::fair_acquire_evicts_live_head,
                     "fair_acquire", {"redisson-fair-lock"}, "fairness",
                     "stale-waiter test inverted (timeout >= now): live waiters are evicted "
                     "from the head and overtaken"));
  all.push_back(make("read_acquire_ignores_write_mode", lua::read_acquire_ignores_write_mode,
                     "read_acquire", {"redisson-rwlock"}, "mutual_exclusion",
                     "read acquire joins write mode without checking that the reader is the "
                     "writer: readers share with another owner's write hold"));
  all.push_back(make("write_unlock_no_publish", lua::write_unlock_no_publish, "write_unlock",
                     {"redisson-rwlock"}, "liveness",
                     "write unlock deletes the lock without PUBLISH: waiters sleep out their "
                     "last TTL on a free lock"));
  std::sort(all.begin(), all.end(),
            [](const Mutant& a, const Mutant& b) { return a.name < b.name; });
  return all;
}

}  // namespace

const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> all = build();
  return all;
}

const Mutant* find_mutant(std::string_view name) {
  for (const Mutant& m : mutants()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool applies_to(const Mutant& m, std::string_view algorithm) {
  return std::find(m.algorithms.begin(), m.algorithms.end(), algorithm) != m.algorithms.end();
}

Result<const Mutant*> mutant_for(std::string_view name, std::string_view algorithm) {
  const Mutant* m = find_mutant(name);
  std::string known;
  for (const Mutant& k : mutants()) {
    if (m != nullptr && !applies_to(k, algorithm)) continue;
    known += (known.empty() ? "" : ", ") + k.name;
  }
  if (m == nullptr) {
    return Status::error("unknown mutant \"" + std::string(name) + "\" (known: " + known + ")");
  }
  if (!applies_to(*m, algorithm)) {
    return Status::error("mutant \"" + m->name + "\" replaces " + m->replaces +
                         ", which algorithm \"" + std::string(algorithm) + "\" never sends" +
                         (known.empty() ? std::string(" (no mutant applies to it)")
                                        : " (mutants for it: " + known + ")"));
  }
  return m;
}

}  // namespace lockstep::algorithms::mutants
