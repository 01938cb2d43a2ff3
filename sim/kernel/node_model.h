// NodeModel: the calls the kernel makes on a Redis node model, behind one small interface.
//
// The real model is redis::Node (sim/redis/node.h); redis_node_model.cc adapts it. Kernel unit
// tests use FakeNodeModel (testing/fake_node_model.h), which implements just enough of Redis to
// exercise networking, persistence, replication and failover without Lua. The interface mirrors
// redis::Node call for call, so the adapter is a forwarding layer and nothing more.
#ifndef LOCKSTEP_SIM_KERNEL_NODE_MODEL_H_
#define LOCKSTEP_SIM_KERNEL_NODE_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/node.h"
#include "sim/redis/reply.h"

namespace lockstep::kernel {

// What a snapshot (RDB, or the AOF's replay) keeps of a node.
class NodeSnapshot {
 public:
  virtual ~NodeSnapshot() = default;
};

class NodeModel {
 public:
  virtual ~NodeModel() = default;
  virtual uint64_t connect() = 0;
  virtual void disconnect(uint64_t id) = 0;
  virtual void execute(uint64_t id, std::span<const std::string_view> argv,
                       std::vector<redis::Reply>& out) = 0;
  virtual size_t active_expire_cycle() = 0;
  virtual size_t time_out_blocked() = 0;
  virtual void set_replica(bool replica) = 0;
  virtual void apply_replicated(std::span<const std::string> effect) = 0;
  virtual std::unique_ptr<NodeSnapshot> snapshot() const = 0;
  virtual void restore(const NodeSnapshot& data) = 0;
  virtual void reset() = 0;
  virtual std::optional<redis::KeyDump> inspect(std::string_view key) const = 0;
  virtual std::vector<std::string> keys_sorted() const = 0;
};

// Builds a model with the given clock and hooks.
using NodeModelFactory = std::function<std::unique_ptr<NodeModel>(redis::NodeConfig config)>;

// The real Redis model, when it is built into this binary (sim/redis/node.cc); otherwise an
// empty function.
NodeModelFactory redis_node_model_factory();

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_NODE_MODEL_H_
