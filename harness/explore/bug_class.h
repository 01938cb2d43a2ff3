// Bug classes: which known kind of lock failure a proven cause shows (benchmark B6,
// docs/performance.md). A violation's cause is proven by replay (counterfactual.h); its class is
// read from the kinds and targets of the faults in that cause and the lock's family:
//
//   lease-shorter-than-work       mutual exclusion broken with no fault at all
//   holder-pause                  a client pause (a GC pause) on a single-master lock
//   redlock-gc-pause              a client pause on a RedLock
//   failover-before-replication   a failover
//   restart-without-persistence   a node crash and restart on a single-master lock
//   redlock-restart               a node crash and restart on a RedLock
//   node-clock                    a node's clock jump or drift
//   client-clock                  a client's clock jump or drift
//   client-crash / fair-dead-waiter   a client crash (a fair lock's liveness or fairness: the latter)
//   lost-reply                    replies lost (lose_reply)
//   network                       drops, delays or partitions
//   replication-lag               replication lag
//   stale-write                   the fencing property
//
// A cause with faults of several classes is named by all of them, joined by "+" in name order;
// one not proven (the replay budget ran out) is "unproven".
#ifndef LOCKSTEP_HARNESS_EXPLORE_BUG_CLASS_H_
#define LOCKSTEP_HARNESS_EXPLORE_BUG_CLASS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "harness/explore/counterfactual.h"
#include "harness/scenario/scenario.h"

namespace lockstep::explore {

// `faults` is the run's result.json "faults" array (fault numbers, kinds, targets).
std::string bug_class(const scenario::Scenario& s, const nlohmann::json& faults, const Cause& cause);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_BUG_CLASS_H_
