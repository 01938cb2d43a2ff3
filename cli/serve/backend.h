// What `lockstep serve` serves: one command-executing node behind each listening port.
//
// The server owns the sockets and the RESP codec; a Backend owns the data. The real backend is
// the Redis node model (model_backend.h); tests of the network layer may use a small fake so
// they do not depend on the model's progress. Everything runs on the server's single thread, so
// a Backend needs no locking and every command is atomic, as on a real redis-server.
#ifndef LOCKSTEP_CLI_SERVE_BACKEND_H_
#define LOCKSTEP_CLI_SERVE_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sim/redis/node.h"
#include "sim/redis/reply.h"

namespace lockstep::serve {

// Delivers a message the backend pushes to a connection outside a reply (pub/sub), or the late
// reply of a blocked connection (Backend::blocked). Replies and pushes are typed (redis::Reply's
// RESP3 types); the connection writes them in its protocol.
using PushFn = std::function<void(redis::ConnectionId, const redis::Reply&)>;

class Backend {
 public:
  virtual ~Backend() = default;
  // A new client connection; `info` says where it comes from (CLIENT LIST).
  virtual redis::ConnectionId connect(const redis::ConnectionInfo& info) = 0;
  // The connection is gone; forget its state (subscriptions).
  virtual void disconnect(redis::ConnectionId id) = 0;
  // Runs one request and appends its replies (possibly none, possibly several) to `out`.
  // REQUIRES: argv is non-empty; `id` came from connect() and was not disconnected.
  virtual void execute(redis::ConnectionId id, std::span<const std::string_view> argv,
                       std::vector<redis::Reply>& out) = 0;
  // The protocol the connection speaks now (2 or 3; HELLO switches it): its replies and pushes
  // are written in it. A backend without HELLO speaks RESP2 only.
  virtual int protocol(redis::ConnectionId id) const {
    (void)id;
    return 2;
  }
  // True while the connection is blocked (BLPOP): the server runs none of its next requests
  // until the backend delivers its late reply through the connection's PushFn.
  virtual bool blocked(redis::ConnectionId id) const {
    (void)id;
    return false;
  }
  // Periodic work (active expiry, blocked connections' timeouts), called every
  // ServeOptions::tick_interval_ms.
  virtual void tick() = 0;
  // What the server offers its backends. While a script has run for `threshold_ms`, the backend
  // calls `pump` now and then from inside it, so that the server keeps reading and answering
  // other clients (Redis's busy script: -BUSY, SCRIPT KILL); `stopping` says the server is
  // shutting down (the script is then stopped). `shut_down` ends this node (SHUTDOWN): the
  // server stops listening on its port and closes its connections, later, from its event loop.
  // A backend without scripts or SHUTDOWN ignores them.
  struct ServerHooks {
    int64_t threshold_ms = 5000;
    std::function<void()> pump;
    std::function<bool()> stopping;
    std::function<void()> shut_down;
  };
  virtual void set_server_hooks(ServerHooks hooks) { (void)hooks; }
};

// Makes the backend of node `index`, listening on `port` (INFO's tcp_port); `push` reaches that
// node's connections.
using BackendFactory = std::function<std::unique_ptr<Backend>(int index, uint16_t port, PushFn push)>;

}  // namespace lockstep::serve

#endif  // LOCKSTEP_CLI_SERVE_BACKEND_H_
