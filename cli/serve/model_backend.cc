#include "cli/serve/model_backend.h"

#include <chrono>

#include "sim/core/assert.h"

namespace lockstep::serve {
namespace {

int64_t real_clock_us() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(now).count();
}

class ModelBackend final : public Backend {
 public:
  explicit ModelBackend(PushFn push) : node_(make_config(std::move(push))) {}

  redis::ConnectionId connect() override { return node_.connect(); }
  void disconnect(redis::ConnectionId id) override { node_.disconnect(id); }
  void execute(redis::ConnectionId id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    LS_ASSERT(!argv.empty());
    node_.execute(id, argv, out);
  }
  void tick() override { node_.active_expire_cycle(); }

 private:
  static redis::NodeConfig make_config(PushFn push) {
    LS_ASSERT(push != nullptr);
    redis::NodeConfig config;
    config.clock_us = real_clock_us;
    config.hooks.on_message = std::move(push);
    return config;
  }

  redis::Node node_;
};

}  // namespace

BackendFactory model_backend_factory() {
  return [](int /*index*/, PushFn push) -> std::unique_ptr<Backend> {
    return std::make_unique<ModelBackend>(std::move(push));
  };
}

}  // namespace lockstep::serve
