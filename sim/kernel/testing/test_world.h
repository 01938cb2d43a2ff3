// TestWorld: a small simulated world for kernel tests — loop, network, recorder writing to
// memory, a cluster of fake nodes and some clients — plus helpers to schedule actions and read
// the recorded history back.
#ifndef LOCKSTEP_SIM_KERNEL_TESTING_TEST_WORLD_H_
#define LOCKSTEP_SIM_KERNEL_TESTING_TEST_WORLD_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/history/recorder.h"
#include "sim/history/writer.h"
#include "sim/kernel/client_process.h"
#include "sim/kernel/cluster.h"
#include "sim/kernel/network.h"
#include "sim/kernel/node_process.h"
#include "sim/kernel/testing/fake_node_model.h"

namespace lockstep::kernel::testing {

class TestWorld : public EventHandler {
 public:
  struct Options {
    std::vector<size_t> shard_sizes = {1};  // nodes per shard (1 = no replica)
    NodeOptions node;
    size_t clients = 1;
    runtime::ClientOptions client;
    LinkSpec link = LinkSpec{LatencyDist::fixed(500), 0};
    LatencyDist replication_lag = LatencyDist::fixed(1000);
    int64_t failover_detection_ms = -1;
    uint64_t seed = 1;
  };

  explicit TestWorld(const Options& options);
  ~TestWorld() override;

  const runtime::ClientOptions client_options;  // the clients keep a reference

  EventLoop loop;
  history::Writer writer;
  history::Recorder rec{&writer};
  Rng rng;
  std::unique_ptr<Network> net;
  std::unique_ptr<Cluster> cluster;
  SimContext ctx;
  std::vector<std::unique_ptr<NodeProcess>> nodes;
  std::vector<std::unique_ptr<ClientProcess>> clients;

  // Runs `fn` at true time t.
  void at(TimeUs t, std::function<void()> fn);
  // Runs the loop until true time `end`. REQUIRES: it succeeds.
  void run_until(TimeUs end);
  // The recorded history, one parsed object per line, optionally only lines of one type.
  std::vector<nlohmann::json> lines(const std::string& type = "") const;
  // The value of a key on a node (nullopt if absent), ignoring expiry.
  std::optional<std::string> value(size_t node, const std::string& key);

  void on_event(uint64_t arg) override;

 private:
  std::vector<std::function<void()>> actions_;
};

}  // namespace lockstep::kernel::testing

#endif  // LOCKSTEP_SIM_KERNEL_TESTING_TEST_WORLD_H_
