// SimWorld: a small simulated world for the lock algorithms' tests — the event loop, the
// network, real Redis nodes (the model running the real Lua scripts), clients running one
// registered algorithm, and a tiny workload driver: each thread runs a list of steps (lock,
// tryLock, unlock, forceUnlock, sleep) and the driver records invoke/complete and holds in the
// history exactly as the scenario runner does. Results and the history can be inspected after
// run_until().
#ifndef LOCKSTEP_ALGORITHMS_TESTING_SIM_WORLD_H_
#define LOCKSTEP_ALGORITHMS_TESTING_SIM_WORLD_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/algorithm.h"
#include "algorithms/testing/tracing_node_model.h"
#include "sim/history/recorder.h"
#include "sim/history/writer.h"
#include "sim/kernel/client_process.h"
#include "sim/kernel/cluster.h"
#include "sim/kernel/network.h"
#include "sim/kernel/node_process.h"

namespace lockstep::algorithms::testing {

struct Step {
  enum class Kind : uint8_t { kAcquire, kRelease, kForceRelease, kSleep };
  Kind kind = Kind::kSleep;
  std::string lock;
  LockMode mode = LockMode::kExclusive;
  int64_t wait_ms = -1;
  int64_t lease_ms = -1;
  int64_t ms = 0;    // sleep
  std::string tag;   // names the step's result
};

// Step builders.
Step lock(std::string lock, int64_t lease_ms = -1, std::string tag = "");
Step try_lock(std::string lock, int64_t wait_ms, int64_t lease_ms = -1, std::string tag = "");
Step unlock(std::string lock, std::string tag = "");
Step force_unlock(std::string lock, std::string tag = "");
Step sleep(int64_t ms);
Step with_mode(Step step, LockMode mode);

struct StepResult {
  size_t client = 0;
  size_t thread = 0;
  std::string tag;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  LockOutcome outcome;
};

class SimWorld : public kernel::EventHandler {
 public:
  struct Options {
    std::string algorithm = "redisson-lock";
    nlohmann::json algorithm_options = nlohmann::json::object();
    std::vector<size_t> shard_sizes = {1};  // nodes per shard (1 = no replica)
    size_t clients = 1;
    size_t threads_per_client = 1;
    ClientOptions client;
    kernel::NodeOptions node;
    kernel::LinkSpec link = kernel::LinkSpec{kernel::LatencyDist::fixed(200), 0};
    kernel::LatencyDist replication_lag = kernel::LatencyDist::fixed(1000);
    int64_t failover_detection_ms = -1;
    uint64_t seed = 1;
    bool trace = false;      // record a MONITOR-like trace of every node (trace())
    bool history = true;     // record the history in memory
  };

  explicit SimWorld(const Options& options);
  ~SimWorld() override;

  // Runs `fn` at true time t.
  void at(TimeUs t, std::function<void()> fn);
  // Thread `thread` of client `client` runs `steps` from true time `start_us`.
  void program(size_t client, size_t thread, TimeUs start_us, std::vector<Step> steps);
  // Runs the loop until true time `end_us`.
  void run_until(TimeUs end_us);

  kernel::ClientProcess& client(size_t c) { return *clients_[c]; }
  kernel::NodeProcess& node(size_t n) { return *nodes_[n]; }
  size_t node_count() const { return nodes_.size(); }
  LockClient& lock_client(size_t c) { return clients_[c]->lock_client(); }
  const Thread& thread(size_t c, size_t t) const { return clients_[c]->thread(static_cast<uint32_t>(t)); }
  std::string owner(size_t c, size_t t) const { return clients_[c]->owner_name(thread(c, t)); }
  kernel::Network& net() { return *net_; }
  kernel::Cluster& cluster() { return *cluster_; }
  kernel::EventLoop& loop() { return loop_; }

  // Results of the programs' steps, in completion order.
  const std::vector<StepResult>& results() const { return results_; }
  // The result tagged `tag`. REQUIRES: exactly one.
  const StepResult& result(const std::string& tag) const;
  // A key's value on a node (nullopt if absent), ignoring expiry.
  std::optional<redis::KeyDump> key(size_t node, const std::string& key) const;
  std::vector<std::string> keys(size_t node) const;
  // The recorded history, one parsed object per line, optionally only one type.
  std::vector<nlohmann::json> lines(const std::string& type = "") const;
  const std::string& history_text() const { return writer_.text(); }
  const Trace& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }

  void on_event(uint64_t arg) override;

 private:
  Task<void> run_program(size_t c, size_t t, std::vector<Step> steps);
  Task<LockOutcome> run_step(kernel::ClientProcess& p, const Thread& thread, const Step& step);

  kernel::EventLoop loop_;
  runtime::ClientOptions client_options_;  // the clients keep a reference
  history::Writer writer_;
  history::Recorder rec_;
  Rng rng_;
  Trace trace_;
  std::unique_ptr<kernel::Network> net_;
  std::unique_ptr<kernel::Cluster> cluster_;
  kernel::SimContext ctx_;
  std::vector<std::unique_ptr<kernel::NodeProcess>> nodes_;
  std::vector<std::unique_ptr<kernel::ClientProcess>> clients_;
  std::vector<std::function<void()>> actions_;
  std::vector<StepResult> results_;
  const AlgorithmInfo* info_ = nullptr;
};

}  // namespace lockstep::algorithms::testing

#endif  // LOCKSTEP_ALGORITHMS_TESTING_SIM_WORLD_H_
