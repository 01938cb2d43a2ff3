// Adapts redis::Node to NodeModel (a forwarding layer), when the model is built.
#include "sim/kernel/node_model.h"

namespace lockstep::kernel {

#ifdef LOCKSTEP_HAVE_NODE_MODEL
namespace {

class DatasetSnapshot : public NodeSnapshot {
 public:
  explicit DatasetSnapshot(std::unique_ptr<redis::Dataset> d) : data(std::move(d)) {}
  std::unique_ptr<redis::Dataset> data;
};

class RedisNodeModel : public NodeModel {
 public:
  explicit RedisNodeModel(redis::NodeConfig config) : node_(std::move(config)) {}
  uint64_t connect() override { return node_.connect(); }
  void disconnect(uint64_t id) override { node_.disconnect(id); }
  void execute(uint64_t id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    node_.execute(id, argv, out);
  }
  size_t active_expire_cycle() override { return node_.active_expire_cycle(); }
  size_t time_out_blocked() override { return node_.time_out_blocked(); }
  void set_replica(bool replica) override { node_.set_replica(replica); }
  void apply_replicated(std::span<const std::string> effect) override {
    node_.apply_replicated(effect);
  }
  std::unique_ptr<NodeSnapshot> snapshot() const override {
    return std::make_unique<DatasetSnapshot>(node_.snapshot());
  }
  void restore(const NodeSnapshot& data) override {
    node_.restore(*static_cast<const DatasetSnapshot&>(data).data);
  }
  void reset() override { node_.reset(); }
  std::optional<redis::KeyDump> inspect(std::string_view key) const override {
    return node_.inspect(key);
  }
  std::vector<std::string> keys_sorted() const override { return node_.keys_sorted(); }

 private:
  redis::Node node_;
};

}  // namespace

NodeModelFactory redis_node_model_factory() {
  return [](redis::NodeConfig config) -> std::unique_ptr<NodeModel> {
    return std::make_unique<RedisNodeModel>(std::move(config));
  };
}
#else
NodeModelFactory redis_node_model_factory() { return {}; }
#endif

}  // namespace lockstep::kernel
