#include "algorithms/testing/tracing_node_model.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "sim/core/assert.h"
#include "sim/redis/node.h"

namespace lockstep::algorithms::testing {
namespace {

constexpr std::string_view kTraceKey = "__lockstep_trace";

// Shadows `redis` with a table whose call() logs its arguments and forwards them.
constexpr std::string_view kPrologue =
    "local __real = redis\n"
    "local __log = {}\n"
    "local redis = setmetatable({}, {__index = __real})\n"
    "redis.call = function(...)\n"
    "  local parts = {}\n"
    "  for i = 1, select('#', ...) do parts[#parts + 1] = tostring(select(i, ...)) end\n"
    "  __log[#__log + 1] = table.concat(parts, ' ')\n"
    "  return __real.call(...)\n"
    "end\n"
    "local __result = (function()\n";
constexpr std::string_view kEpilogue =
    "\nend)()\n"
    "__real.call('set', '__lockstep_trace', table.concat(__log, '\\n'))\n"
    "return __result\n";

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

class TracingNodeModel : public kernel::NodeModel {
 public:
  TracingNodeModel(std::unique_ptr<kernel::NodeModel> inner, Trace* trace)
      : inner_(std::move(inner)), trace_(trace) {
    LS_ASSERT(inner_ != nullptr && trace_ != nullptr);
  }

  uint64_t connect() override { return inner_->connect(); }
  void disconnect(uint64_t id) override { inner_->disconnect(id); }
  size_t active_expire_cycle() override { return inner_->active_expire_cycle(); }
  size_t time_out_blocked() override { return inner_->time_out_blocked(); }
  void set_replica(bool replica) override { inner_->set_replica(replica); }
  void apply_replicated(std::span<const std::string> effect) override {
    inner_->apply_replicated(effect);
  }
  std::unique_ptr<kernel::NodeSnapshot> snapshot() const override { return inner_->snapshot(); }
  void restore(const kernel::NodeSnapshot& data) override { inner_->restore(data); }
  void reset() override { inner_->reset(); }
  std::optional<redis::KeyDump> inspect(std::string_view key) const override {
    return inner_->inspect(key);
  }
  std::vector<std::string> keys_sorted() const override { return inner_->keys_sorted(); }

  void execute(uint64_t id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    LS_ASSERT(!argv.empty());
    const std::string cmd = lower(argv[0]);
    const bool eval = cmd == "eval" && argv.size() >= 2;
    const bool evalsha = cmd == "evalsha" && argv.size() >= 2 && bodies_.count(std::string(argv[1]));
    if (!eval && !evalsha) {
      std::string line(argv[0]);
      for (size_t i = 1; i < argv.size(); ++i) line += " " + std::string(argv[i]);
      trace_->push_back(line);
      inner_->execute(id, argv, out);
      return;
    }
    const std::string body = eval ? std::string(argv[1]) : bodies_[std::string(argv[1])];
    const std::string sha = redis::sha1_hex(body);
    bodies_[sha] = body;
    std::string line = std::string(argv[0]) + " " + sha;
    for (size_t i = 2; i < argv.size(); ++i) line += " " + std::string(argv[i]);
    trace_->push_back(line);
    const std::string wrapped = std::string(kPrologue) + body + std::string(kEpilogue);
    std::vector<std::string_view> args(argv.begin(), argv.end());
    args[0] = "EVAL";
    args[1] = wrapped;
    inner_->execute(id, args, out);
    collect(id);
  }

 private:
  void collect(uint64_t id) {
    std::vector<redis::Reply> got;
    std::vector<std::string_view> get = {"GET", kTraceKey};
    inner_->execute(id, get, got);
    std::vector<std::string_view> del = {"DEL", kTraceKey};
    std::vector<redis::Reply> ignored;
    inner_->execute(id, del, ignored);
    if (got.empty() || got[0].type != redis::Reply::Type::kBulk) return;
    std::string_view log = got[0].str;
    while (!log.empty()) {
      const size_t nl = log.find('\n');
      trace_->push_back("lua " + std::string(log.substr(0, nl)));
      if (nl == std::string_view::npos) break;
      log.remove_prefix(nl + 1);
    }
  }

  std::unique_ptr<kernel::NodeModel> inner_;
  Trace* trace_;
  std::map<std::string, std::string> bodies_;
};

}  // namespace

kernel::NodeModelFactory tracing_factory(kernel::NodeModelFactory inner, Trace* trace) {
  LS_ASSERT(inner != nullptr);
  LS_ASSERT(trace != nullptr);
  return [inner, trace](redis::NodeConfig config) -> std::unique_ptr<kernel::NodeModel> {
    return std::make_unique<TracingNodeModel>(inner(std::move(config)), trace);
  };
}

}  // namespace lockstep::algorithms::testing
