// A tiny Backend for the network-layer tests of `lockstep serve`: a handful of commands with
// fixed, known replies, so the server's framing, limits and push routing are tested on their
// own, independent of the Redis model.
//   PING -> +PONG; ECHO x -> $x; BIG n -> a bulk of n 'x' bytes;
//   SUBSCRIBE ch -> the push ["subscribe", ch, 1]; PUBLISH ch msg -> pushes ["message", ch, msg]
//   to every subscriber of ch, replies :count; PROTO n -> switches the connection to RESP n,
//   replies the map {proto: n} and the double 1.5; anything else -> -ERR unknown command.
#ifndef LOCKSTEP_CLI_SERVE_FAKE_BACKEND_TEST_UTIL_H_
#define LOCKSTEP_CLI_SERVE_FAKE_BACKEND_TEST_UTIL_H_

#include <atomic>
#include <map>
#include <set>
#include <string>

#include "cli/serve/backend.h"

namespace lockstep::serve::testing {

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(PushFn push) : push_(std::move(push)) {}
  redis::ConnectionId connect(const redis::ConnectionInfo&) override { return ++last_id_; }
  void disconnect(redis::ConnectionId id) override {
    for (auto& [ch, subs] : subscribers_) subs.erase(id);
    disconnects_++;
  }
  void execute(redis::ConnectionId id, std::span<const std::string_view> argv,
               std::vector<redis::Reply>& out) override {
    using redis::Reply;
    const std::string cmd(argv[0]);
    if (cmd == "PING") {
      out.push_back(Reply::status("PONG"));
    } else if (cmd == "ECHO" && argv.size() == 2) {
      out.push_back(Reply::bulk(argv[1]));
    } else if (cmd == "BIG" && argv.size() == 2) {
      out.push_back(Reply::bulk(std::string(std::stoul(std::string(argv[1])), 'x')));
    } else if (cmd == "SUBSCRIBE" && argv.size() == 2) {
      subscribers_[std::string(argv[1])].insert(id);
      out.push_back(Reply::push({Reply::bulk("subscribe"), Reply::bulk(argv[1]), Reply::integer_of(1)}));
    } else if (cmd == "PUBLISH" && argv.size() == 3) {
      const auto& subs = subscribers_[std::string(argv[1])];
      for (redis::ConnectionId s : subs) {
        push_(s, Reply::push({Reply::bulk("message"), Reply::bulk(argv[1]), Reply::bulk(argv[2])}));
      }
      out.push_back(Reply::integer_of(static_cast<int64_t>(subs.size())));
    } else if (cmd == "PROTO" && argv.size() == 2 && (argv[1] == "2" || argv[1] == "3")) {
      protocols_[id] = argv[1] == "3" ? 3 : 2;
      out.push_back(Reply::map({Reply::bulk("proto"), Reply::integer_of(protocols_[id])}));
      out.push_back(Reply::double_of(1.5));
    } else {
      out.push_back(Reply::error("ERR unknown command"));
    }
  }
  int protocol(redis::ConnectionId id) const override {
    auto it = protocols_.find(id);
    return it == protocols_.end() ? 2 : it->second;
  }
  void tick() override { ticks_++; }

  // Read by the test thread while the server thread runs.
  std::atomic<int> ticks_{0};
  std::atomic<int> disconnects_{0};

 private:
  PushFn push_;
  redis::ConnectionId last_id_ = 0;
  std::map<std::string, std::set<redis::ConnectionId>> subscribers_;
  std::map<redis::ConnectionId, int> protocols_;
};

}  // namespace lockstep::serve::testing

#endif  // LOCKSTEP_CLI_SERVE_FAKE_BACKEND_TEST_UTIL_H_
