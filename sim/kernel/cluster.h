// Cluster: the Redis topology — which nodes form which endpoint, and who is master.
//
// An endpoint (a "shard") is one master and its replicas: a single node is one shard with no
// replica; master + replicas is one shard with several nodes; N independent masters (RedLock)
// are N shards of one node each. Clients address shards, and always talk to the shard's current
// master.
//
// Node faults go through the cluster so the topology can react: when a master crashes or pauses
// and stays down for the failover detection delay, the most up-to-date reachable replica is
// promoted (the `failover` fault does the same at once). Promotion loses what the replica had not
// received (recorded as `data_loss` on the new master), the other replicas and the old master
// (now, if it is up; when it restarts, otherwise) follow the new master after a full resync, and
// clients are told so they re-subscribe. A master that restarts without a failover keeps its
// role, and its replicas resync from it — a master restarted without persistence empties them,
// as in Redis.
#ifndef LOCKSTEP_SIM_KERNEL_CLUSTER_H_
#define LOCKSTEP_SIM_KERNEL_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/kernel/latency.h"
#include "sim/kernel/node_process.h"
#include "sim/kernel/sim_context.h"

namespace lockstep::kernel {

// Told when a shard's master changes or comes back from a restart.
class TopologyListener {
 public:
  virtual ~TopologyListener() = default;
  virtual void endpoint_changed(size_t shard) = 0;
};

class Cluster : public EventHandler {
 public:
  explicit Cluster(SimContext& ctx);

  // Adds a shard: nodes[0] is its master, the rest replicate from it. Returns the shard index.
  size_t add_shard(const std::vector<NodeProcess*>& nodes);
  size_t shards() const { return shards_.size(); }
  NodeProcess* master(size_t shard) const { return shards_[shard].master; }
  const std::vector<NodeProcess*>& nodes(size_t shard) const { return shards_[shard].nodes; }
  // The shard a node belongs to. REQUIRES: the node was added.
  size_t shard_of(const NodeProcess* node) const;

  // The replication stream's latency. REQUIRES: before add_shard.
  void set_replication_lag(const LatencyDist& lag);
  const LatencyDist* replication_lag() const { return &replication_lag_; }
  // Automatic failover after a master has been down this long (< 0: never).
  void set_failover_detection_ms(int64_t detection_ms) { detection_ms_ = detection_ms; }
  void add_listener(TopologyListener* listener) { listeners_.push_back(listener); }

  // Node faults.
  void crash(NodeProcess* node);
  void restart(NodeProcess* node);
  void pause(NodeProcess* node);
  void resume(NodeProcess* node);
  // Promotes a replica of `shard` now: `preferred` if given and up, else the up replica with the
  // highest offset (ties: the first in the shard's list). Returns nullptr if none is up.
  NodeProcess* failover(size_t shard, NodeProcess* preferred = nullptr);

  void on_event(uint64_t arg) override;

  // Keys whose values differ between two nodes' datasets, sorted.
  static std::vector<std::string> differing_keys(NodeModel& a, NodeModel& b);

 private:
  struct Shard {
    std::vector<NodeProcess*> nodes;
    NodeProcess* master = nullptr;
    uint32_t down_episode = 0;
    bool master_down = false;
  };
  void master_went_down(size_t shard);
  void master_came_back(size_t shard);
  void notify(size_t shard);

  SimContext& ctx_;
  std::vector<Shard> shards_;
  LatencyDist replication_lag_ = LatencyDist::fixed(1000);
  int64_t detection_ms_ = -1;
  std::vector<TopologyListener*> listeners_;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_CLUSTER_H_
