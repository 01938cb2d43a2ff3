// Test fixture support: a Node with a hand-driven clock that records everything it emits.
#ifndef LOCKSTEP_SIM_REDIS_TEST_NODE_H_
#define LOCKSTEP_SIM_REDIS_TEST_NODE_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/node.h"
#include "sim/redis/reply.h"

namespace lockstep::redis {
// GoogleTest prints replies as redis-cli would.
inline void PrintTo(const Reply& reply, std::ostream* os) { *os << describe(reply); }
}  // namespace lockstep::redis

namespace lockstep::redis::testing {

struct Effect {
  std::vector<std::string> argv;
  uint64_t group;
};

class TestNode {
 public:
  // The clock starts at `start_ms` (node-local) and only moves when the test says so. With
  // `typed_replies`, replies keep their RESP3 types (NodeConfig::typed_replies, as `lockstep
  // serve` runs the node); without, they come in their RESP2 shape, as the simulator gets them.
  explicit TestNode(int64_t start_ms = 1'000'000, uint64_t budget = 100'000'000, bool typed_replies = false) {
    now_us_ = std::make_shared<int64_t>(start_ms * 1000);
    tick_us_ = std::make_shared<int64_t>(0);
    NodeConfig config;
    auto now = now_us_;
    auto tick = tick_us_;
    // Every reading of the clock advances it by `tick` (0 by default): time passing inside a
    // command or a script.
    config.clock_us = [now, tick] {
      int64_t t = *now;
      *now += *tick;
      return t;
    };
    config.lua_instruction_budget = budget;
    config.typed_replies = typed_replies;
    config.hooks.on_propagate = [this](std::span<const std::string> e, uint64_t group) {
      effects.push_back(Effect{std::vector<std::string>(e.begin(), e.end()), group});
    };
    config.hooks.on_message = [this](ConnectionId id, const Reply& r) { messages.emplace_back(id, r); };
    config.hooks.on_expire = [this](std::string_view key, int64_t ms) {
      expired.emplace_back(key);
      expired_at.push_back(ms);
    };
    config.hooks.on_block = [this](ConnectionId id, int64_t deadline_ms) { blocks.emplace_back(id, deadline_ms); };
    config.hooks.on_unblock = [this](ConnectionId id, const Reply& r) { unblocked.emplace_back(id, r); };
    node = std::make_unique<Node>(std::move(config));
    conn = node->connect();
  }

  Reply run(std::initializer_list<std::string_view> argv) { return run_on(conn, argv); }
  Reply run_on(ConnectionId id, std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    return node->execute_one(id, v);
  }
  std::vector<Reply> run_all(ConnectionId id, std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    std::vector<Reply> out;
    node->execute(id, v, out);
    return out;
  }

  int64_t now_ms() const { return *now_us_ / 1000; }
  void advance_ms(int64_t ms) { *now_us_ += ms * 1000; }
  void set_us(int64_t us) { *now_us_ = us; }
  void set_tick_us(int64_t us) { *tick_us_ = us; }

  std::unique_ptr<Node> node;
  ConnectionId conn = 0;
  std::vector<Effect> effects;
  std::vector<std::pair<ConnectionId, Reply>> messages;
  std::vector<std::pair<ConnectionId, int64_t>> blocks;     // on_block: connection, deadline
  std::vector<std::pair<ConnectionId, Reply>> unblocked;    // on_unblock: late replies
  std::vector<std::string> expired;
  std::vector<int64_t> expired_at;

 private:
  std::shared_ptr<int64_t> now_us_;
  std::shared_ptr<int64_t> tick_us_;
};

// A TestNode whose replies keep their RESP3 types.
class TypedTestNode : public TestNode {
 public:
  TypedTestNode() : TestNode(1'000'000, 100'000'000, /*typed_replies=*/true) {}
};

// Shorthands for expected replies.
inline Reply I(int64_t v) { return Reply::integer_of(v); }
inline Reply B(std::string_view s) { return Reply::bulk(s); }
inline Reply S(std::string_view s) { return Reply::status(s); }
inline Reply E(std::string_view s) { return Reply::error(s); }
inline Reply N() { return Reply::nil(); }
inline Reply A(std::vector<Reply> items) { return Reply::array(std::move(items)); }
inline Reply OK() { return Reply::ok(); }
inline Reply NA() { return Reply::nil_array(); }
inline Reply M(std::vector<Reply> keys_and_values) { return Reply::map(std::move(keys_and_values)); }
inline Reply Set(std::vector<Reply> members) { return Reply::set(std::move(members)); }
inline Reply P(std::vector<Reply> items) { return Reply::push(std::move(items)); }
inline Reply D(double v) { return Reply::double_of(v); }
inline Reply T(bool v) { return Reply::boolean(v); }

}  // namespace lockstep::redis::testing

#endif  // LOCKSTEP_SIM_REDIS_TEST_NODE_H_
