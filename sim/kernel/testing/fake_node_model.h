// FakeNodeModel: a tiny stand-in for the Redis node model, for kernel tests only.
//
// Strings with millisecond expiry, pub/sub, WAIT through the hook, replica mode, propagation,
// snapshots — enough to test the kernel's networking, persistence, replication and failover
// without Lua. Scripts are not interpreted: a test registers a C++ function for a script body,
// and EVAL/EVALSHA of that body runs the function (with the time frozen, as Redis does).
// Commands: PING GET SET(NX|XX, PX|EX) DEL EXISTS PEXPIRE PTTL INCR PUBLISH SUBSCRIBE
// UNSUBSCRIBE WAIT EVAL EVALSHA.
#ifndef LOCKSTEP_SIM_KERNEL_TESTING_FAKE_NODE_MODEL_H_
#define LOCKSTEP_SIM_KERNEL_TESTING_FAKE_NODE_MODEL_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/kernel/node_model.h"

namespace lockstep::kernel::testing {

class FakeNodeModel : public NodeModel {
 public:
  // Runs a script: KEYS and ARGV as given; may call get/set_value/del/pexpire/publish.
  using ScriptFn = std::function<redis::Reply(FakeNodeModel& node,
                                              const std::vector<std::string>& keys,
                                              const std::vector<std::string>& args)>;
  // Makes EVAL/EVALSHA of `body` run `fn` in every FakeNodeModel.
  static void register_script(std::string_view body, ScriptFn fn);
  static NodeModelFactory factory();

  explicit FakeNodeModel(redis::NodeConfig config);

  uint64_t connect() override;
  void disconnect(uint64_t id) override;
  void execute(uint64_t id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override;
  size_t active_expire_cycle() override;
  size_t time_out_blocked() override { return 0; }  // no blocking commands
  void set_replica(bool replica) override { replica_ = replica; }
  void apply_replicated(std::span<const std::string> effect) override;
  std::unique_ptr<NodeSnapshot> snapshot() const override;
  void restore(const NodeSnapshot& data) override;
  void reset() override;
  std::optional<redis::KeyDump> inspect(std::string_view key) const override;
  std::vector<std::string> keys_sorted() const override;

  // For script functions: operations that honour expiry and propagate their effects.
  std::optional<std::string> get(const std::string& key);
  void set_value(const std::string& key, const std::string& value, int64_t px_ms);
  int64_t del(const std::string& key);
  int64_t pexpire(const std::string& key, int64_t ms);
  int64_t publish(const std::string& channel, const std::string& message);

 private:
  struct Value {
    std::string s;
    int64_t expire_at_ms = -1;
  };
  int64_t now_ms() const;
  bool expire_if_needed(const std::string& key);
  void propagate(std::vector<std::string> effect);
  redis::Reply run(uint64_t id, const std::vector<std::string>& argv);
  redis::Reply cmd_set(const std::vector<std::string>& argv);
  redis::Reply cmd_eval(const std::vector<std::string>& argv, bool sha);

  redis::NodeConfig config_;
  std::map<std::string, Value> data_;
  std::map<std::string, std::set<uint64_t>> channels_;
  std::set<uint64_t> connections_;
  uint64_t next_conn_ = 1;
  bool replica_ = false;
  uint64_t group_ = 0;
  int64_t frozen_ms_ = -1;  // time during a script
  std::vector<redis::Reply>* out_ = nullptr;
};

}  // namespace lockstep::kernel::testing

#endif  // LOCKSTEP_SIM_KERNEL_TESTING_FAKE_NODE_MODEL_H_
