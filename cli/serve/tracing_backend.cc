#include "cli/serve/tracing_backend.h"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/core/assert.h"

namespace lockstep::serve {
namespace {

class TracingBackend : public Backend {
 public:
  TracingBackend(std::unique_ptr<Backend> inner, int node, std::shared_ptr<Trace> trace)
      : inner_(std::move(inner)), node_(node), trace_(std::move(trace)) {
    LS_ASSERT(inner_ != nullptr && trace_ != nullptr && trace_->file != nullptr);
  }

  redis::ConnectionId connect(const redis::ConnectionInfo& info) override { return inner_->connect(info); }
  void disconnect(redis::ConnectionId id) override { inner_->disconnect(id); }
  void execute(redis::ConnectionId id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    nlohmann::json args = nlohmann::json::array();
    for (std::string_view a : argv) args.push_back(std::string(a));
    const nlohmann::json line = {{"node", node_}, {"conn", id}, {"argv", std::move(args)}};
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), trace_->file);
    std::fflush(trace_->file);
    inner_->execute(id, argv, out);
  }
  int protocol(redis::ConnectionId id) const override { return inner_->protocol(id); }
  bool blocked(redis::ConnectionId id) const override { return inner_->blocked(id); }
  void tick() override { inner_->tick(); }
  void set_server_hooks(ServerHooks hooks) override { inner_->set_server_hooks(std::move(hooks)); }

 private:
  std::unique_ptr<Backend> inner_;
  const int node_;
  std::shared_ptr<Trace> trace_;
};

}  // namespace

std::unique_ptr<Backend> make_tracing_backend(std::unique_ptr<Backend> inner, int node, std::shared_ptr<Trace> trace) {
  return std::make_unique<TracingBackend>(std::move(inner), node, std::move(trace));
}

}  // namespace lockstep::serve
