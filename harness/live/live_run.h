// LiveRun: a scenario run against real redis-servers in real time (docs/live.md) — the live
// HistorySource of scenario::run_scenario, which then checks and reports it as it does a
// simulated run.
//
// It starts one redis-server per node of the scenario (redis_server.h) in its topology (single,
// independent masters, or a master with replicas behind replication proxies), builds the
// scenario's clients as LiveClients with their lock clients and threads, runs the same workload
// driver for duration_ms of real time, and makes every fault kind real (the fault table's `live`
// column, harness/scenario/fault_table.h; docs/live.md): signals to the servers, lockstep's
// clock shim in them, lockstep's side of each client-node link, the replication proxies, and
// the live clients themselves. Faults on events land when the client sees the event (a script's
// reply, a grant). What cannot run live — mutants, per-link network settings and a default loss
// rate — is refused by supported() with a message naming it: a live run never skips what the
// scenario asks for.
//
// The history's header says "live": true, the redis-server version and "replayable": false.
// Times are microseconds of the monotonic clock since the run started; each node's `exec` events
// come from a MONITOR connection to it, in its own execution order.
#ifndef LOCKSTEP_HARNESS_LIVE_LIVE_RUN_H_
#define LOCKSTEP_HARNESS_LIVE_LIVE_RUN_H_

#include <string>
#include <vector>

#include "harness/scenario/run.h"
#include "harness/scenario/scenario.h"

namespace lockstep::live {

class LiveRun : public scenario::HistorySource {
 public:
  // Whether `s` with `seed` (whose random faults are drawn from it) can run live; otherwise an
  // error naming the file and what cannot be made real.
  static Status supported(const scenario::Scenario& s, uint64_t seed);

  Status run(const scenario::Scenario& s, uint64_t seed, history::Recorder& rec) override;
  scenario::RunStats stats() const override { return stats_; }
  const std::vector<scenario::FaultSpec>& faults() const override { return faults_; }
  std::string replay_flags() const override { return "--live"; }
  // The client states the run reached (script lines run inside redis-server and are not seen).
  kernel::Coverage coverage() const override { return coverage_; }
  // The version of the redis-servers of the last run ("7.0.15").
  const std::string& redis_version() const { return redis_version_; }

 private:
  scenario::RunStats stats_;
  kernel::Coverage coverage_;
  std::vector<scenario::FaultSpec> faults_;
  std::string redis_version_;
};

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_LIVE_RUN_H_
