#include "cli/serve/model_backend.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>
#include <set>

#include "sim/core/assert.h"

namespace lockstep::serve {
namespace {

int64_t real_clock_us() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(now).count();
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Serves the model node. While one of its scripts runs past the busy threshold, the script's
// instruction hook pumps the server's event loop (about 20 times a second): other clients' requests
// then reach execute() re-entrantly and get Redis's busy answers instead of touching the node,
// and SCRIPT KILL stops a script that has not written. A client that leaves meanwhile is
// forgotten once the script is done.
class ModelBackend final : public Backend {
 public:
  ModelBackend(uint16_t port, PushFn push)
      : node_(make_config(port, std::move(push), &blocked_, &shutdown_requested_)) {
    node_.set_script_busy_check(&ModelBackend::busy_check, this);
  }

  redis::ConnectionId connect(const redis::ConnectionInfo& info) override { return node_.connect(info); }
  void disconnect(redis::ConnectionId id) override {
    if (executing_) {
      leaving_.push_back(id);
      return;
    }
    node_.disconnect(id);
    blocked_.erase(id);
  }
  void execute(redis::ConnectionId id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    LS_ASSERT(!argv.empty());
    if (shut_) return;  // SHUTDOWN ended the node: what was already read gets no reply
    if (executing_) {
      if (std::optional<redis::Reply> answer = busy_answer(argv)) out.push_back(std::move(*answer));
      return;
    }
    executing_ = true;
    kill_requested_ = false;
    started_ = std::chrono::steady_clock::now();
    last_pump_ = started_;
    const size_t first = out.size();
    node_.execute(id, argv, out);
    executing_ = false;
    if (shutdown_requested_ && !shut_) {
      // SHUTDOWN, or SHUTDOWN NOSAVE while this script was busy: the node ends, and nobody gets
      // a reply (a redis-server that exited sends none); the killed script's error is dropped.
      shut_ = true;
      out.resize(first);
      if (hooks_.shut_down) hooks_.shut_down();
    }
    for (redis::ConnectionId gone : leaving_) {
      node_.disconnect(gone);
      blocked_.erase(gone);
    }
    leaving_.clear();
  }
  int protocol(redis::ConnectionId id) const override { return node_.protocol(id); }
  bool blocked(redis::ConnectionId id) const override { return blocked_.count(id) != 0; }
  void tick() override {
    if (executing_) return;
    node_.active_expire_cycle();
    // Redis notices a blocked client's timeout in its event loop, at least every 1000/hz ms.
    node_.time_out_blocked();
  }
  void set_server_hooks(ServerHooks hooks) override { hooks_ = std::move(hooks); }

 private:
  static redis::NodeConfig make_config(uint16_t port, PushFn push, std::set<redis::ConnectionId>* blocked,
                                       bool* shutdown_requested) {
    LS_ASSERT(push != nullptr);
    redis::NodeConfig config;
    config.tcp_port = port;
    config.clock_us = real_clock_us;
    // As on redis-server, a script runs until it ends or SCRIPT KILL stops it; the busy hook
    // keeps the server answering meanwhile. (The simulator's budget keeps runs finite.)
    config.lua_instruction_budget = UINT64_MAX;
    // Replies keep their RESP3 types; each connection writes them in its protocol.
    config.typed_replies = true;
    config.hooks.on_message = push;
    // A blocked connection's late reply is written like a push; the connection then runs the
    // requests it read meanwhile.
    config.hooks.on_block = [blocked](redis::ConnectionId id, int64_t) { blocked->insert(id); };
    config.hooks.on_unblock = [blocked, push](redis::ConnectionId id, const redis::Reply& reply) {
      blocked->erase(id);
      push(id, reply);
    };
    config.hooks.on_shutdown = [shutdown_requested](redis::ConnectionId) { *shutdown_requested = true; };
    return config;
  }

  // What a client gets while a script runs (Redis 7.0's texts; scriptKill's checks, in order).
  // Nothing when the request ends the node (SHUTDOWN NOSAVE): the script stops at its next hook.
  std::optional<redis::Reply> busy_answer(std::span<const std::string_view> argv) {
    static constexpr std::string_view kBusyEval =
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    static constexpr std::string_view kBusyFunction =
        "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    const bool function = node_.running_function();
    const bool script_kill = argv.size() == 2 && iequals(argv[0], "script") && iequals(argv[1], "kill");
    const bool function_kill = argv.size() == 2 && iequals(argv[0], "function") && iequals(argv[1], "kill");
    if (iequals(argv[0], "shutdown")) {
      // Redis 7.0's shutdownCommand runs while busy: its syntax, then ABORT, then only NOSAVE.
      const redis::ShutdownArgs shutdown = redis::parse_shutdown(argv);
      if (!shutdown.valid) return redis::Reply::error("ERR syntax error");
      if (shutdown.abort) return redis::Reply::error("ERR No shutdown in progress.");
      if (!shutdown.nosave) return redis::Reply::error(function ? kBusyFunction : kBusyEval);
      kill_requested_ = true;
      shutdown_requested_ = true;
      return std::nullopt;
    }
    if (script_kill || function_kill) {
      if (node_.script_wrote()) {
        return redis::Reply::error(
            "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either "
            "wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
      }
      if (script_kill && function) return redis::Reply::error(kBusyFunction);
      if (function_kill && !function) return redis::Reply::error(kBusyEval);
      kill_requested_ = true;
      return redis::Reply::ok();
    }
    return redis::Reply::error(function ? kBusyFunction : kBusyEval);
  }

  // The running script's instruction hook: true stops the script.
  static bool busy_check(void* context) {
    auto* self = static_cast<ModelBackend*>(context);
    if (self->kill_requested_) return true;
    if (!self->hooks_.pump) return false;
    if (self->hooks_.stopping && self->hooks_.stopping()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - self->started_ < std::chrono::milliseconds(self->hooks_.threshold_ms)) return false;
    if (now - self->last_pump_ < std::chrono::milliseconds(kPumpIntervalMs)) return false;
    self->last_pump_ = now;
    self->hooks_.pump();
    return self->kill_requested_ || (self->hooks_.stopping && self->hooks_.stopping());
  }

  static constexpr int kPumpIntervalMs = 50;
  std::set<redis::ConnectionId> blocked_;  // before node_: its hooks point here
  redis::Node node_;
  ServerHooks hooks_;
  bool executing_ = false;
  bool kill_requested_ = false;
  bool shutdown_requested_ = false;  // SHUTDOWN was accepted; the node ends once its command returns
  bool shut_ = false;                // ... and has ended
  std::chrono::steady_clock::time_point started_, last_pump_;
  std::vector<redis::ConnectionId> leaving_;
};

}  // namespace

BackendFactory model_backend_factory() {
  return [](int /*index*/, uint16_t port, PushFn push) -> std::unique_ptr<Backend> {
    return std::make_unique<ModelBackend>(port, std::move(push));
  };
}

}  // namespace lockstep::serve
