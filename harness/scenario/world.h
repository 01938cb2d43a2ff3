// World: one simulated run assembled from a Scenario — the event loop, the network, the Redis
// topology, the clients with their lock clients and threads, the faults — and run to its end.
//
// Processes are numbered nodes first (node0, node1, ...), then clients in scenario order. Every
// random choice comes from a named stream of the run's seed: the network's per-connection
// streams, each client's stream, each thread's workload stream, the fault profile's streams.
#ifndef LOCKSTEP_HARNESS_SCENARIO_WORLD_H_
#define LOCKSTEP_HARNESS_SCENARIO_WORLD_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"
#include "harness/scenario/workload.h"
#include "sim/history/recorder.h"
#include "sim/kernel/client_process.h"
#include "sim/kernel/cluster.h"
#include "sim/kernel/coverage.h"
#include "sim/kernel/network.h"
#include "sim/kernel/node_model.h"
#include "sim/kernel/node_process.h"

namespace lockstep::scenario {

class FaultInjector;

struct RunStats {
  int64_t virtual_ms = 0;
  uint64_t events = 0;
  uint64_t ops = 0;
  uint64_t messages_sent = 0;
  uint64_t messages_lost = 0;
  uint64_t faults = 0;
  uint64_t holds_open_at_end = 0;  // holds still open when the run ended (before hold_end "end")
};

// Writes the history's header line for a run of `s` with `seed`; `more` adds fields (a live
// run's), in key order.
void write_history_header(history::Writer& w, const Scenario& s, uint64_t seed,
                          const nlohmann::json& more = nlohmann::json::object());

class World {
 public:
  // `recorder` may have no writer (nothing recorded). REQUIRES: factory is set.
  // `count_coverage` false: nothing is counted (coverage() stays empty); the run is the same.
  World(const Scenario& scenario, uint64_t seed, history::Recorder& recorder,
        const kernel::NodeModelFactory& factory, bool count_coverage = true);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Writes the history header, runs to the scenario's end, ends open holds, writes the footer.
  // Fails (and writes no footer) if the event budget runs out. With a progress callback the run
  // goes in slices of virtual time, calling it between slices with (virtual time reached, events
  // run); the events and their order are the same either way.
  using ProgressFn = std::function<void(TimeUs now_us, uint64_t events)>;
  Status run(const ProgressFn& progress = nullptr);

  const Scenario& scenario() const { return scenario_; }
  uint64_t seed() const { return seed_; }
  const std::vector<FaultSpec>& faults() const { return faults_; }
  RunStats stats() const;
  // What the run exercised of the algorithm (docs/coverage.md).
  const kernel::Coverage& coverage() const { return coverage_; }

  kernel::SimContext& context() { return ctx_; }
  kernel::EventLoop& loop() { return loop_; }
  kernel::Network& network() { return *net_; }
  kernel::Cluster& cluster() { return *cluster_; }
  history::Recorder& recorder() { return rec_; }
  kernel::NodeProcess* node(const std::string& name);
  kernel::ClientProcess* client(const std::string& name);
  kernel::Process* process(const std::string& name);
  const std::vector<std::unique_ptr<kernel::ClientProcess>>& clients() const { return clients_; }
  const std::vector<std::unique_ptr<kernel::NodeProcess>>& nodes() const { return nodes_; }
  // From now on every hold the clients believe in is logged in `beliefs` too (null: not logged).
  void set_beliefs(std::vector<kernel::Belief>* beliefs);

 private:
  void build_network();
  void build_nodes(const kernel::NodeModelFactory& factory);
  void build_clients();
  void write_header();

  const Scenario& scenario_;
  const uint64_t seed_;
  history::Recorder& rec_;
  Rng rng_;
  kernel::Coverage coverage_;
  kernel::EventLoop loop_;
  std::unique_ptr<kernel::Network> net_;
  std::unique_ptr<kernel::Cluster> cluster_;
  kernel::SimContext ctx_;
  std::vector<std::unique_ptr<kernel::NodeProcess>> nodes_;
  std::vector<std::unique_ptr<kernel::ClientProcess>> clients_;
  std::vector<FaultSpec> faults_;  // schedule + drawn random faults, by time
  uint64_t holds_open_at_end_ = 0;
  std::unique_ptr<FaultInjector> injector_;
  std::unique_ptr<Workload> workload_;
};

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_WORLD_H_
