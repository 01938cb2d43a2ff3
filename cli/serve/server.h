// `lockstep serve`'s network layer: N independent nodes, one TCP port each, speaking RESP2.
//
// One Boost.Asio io_context on one thread runs everything — accepting, reading, executing,
// writing, the periodic tick — so every command is atomic and replies and pub/sub pushes leave
// each connection in the order they were produced, as on a real redis-server. Per connection:
// requests are parsed by resp::RequestParser (Redis's exact protocol errors; the error is sent
// and the connection closed), QUIT answers +OK and closes, and the output buffer is bounded: a
// client that does not read its replies is disconnected once max_output_bytes are pending (as
// Redis's client-output-buffer-limit does). More than max_connections clients get Redis's
// "max number of clients reached" error. A slow or misbehaving client never blocks the others.
// SHUTDOWN ends the node it is sent to: its port closes, its connections with it.
#ifndef LOCKSTEP_CLI_SERVE_SERVER_H_
#define LOCKSTEP_CLI_SERVE_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/serve/backend.h"
#include "sim/core/status.h"
#include "sim/resp/request_parser.h"

namespace lockstep::serve {

struct ServeOptions {
  std::string bind_address = "127.0.0.1";
  // Node i listens on port + i. Port 0 gives every node an ephemeral port (for tests).
  int port = 6379;
  int nodes = 1;
  resp::RequestLimits request_limits;
  size_t max_output_bytes = 32 * 1024 * 1024;  // per connection, replies not yet sent
  size_t max_connections = 10000;              // per node, as Redis's maxclients
  int tick_interval_ms = 100;                  // active expiry period
  // A script running longer than this keeps the server answering others (-BUSY, SCRIPT KILL),
  // as Redis's busy-reply-threshold (lua-time-limit).
  int64_t busy_threshold_ms = 5000;
  // After SIGINT/SIGTERM/SIGHUP, how long a graceful stop may take before the process ends anyway (a
  // script blocked inside a C function, e.g. a backtracking string.find, never yields).
  int64_t forced_exit_ms = 2000;
  BackendFactory backend;
  // Called when SHUTDOWN ended node `index` (its port is closed); when every node has ended,
  // run() returns.
  std::function<void(int index)> on_node_shut_down;
};

class Server {
 public:
  // Binds every port. Errors (a port in use, a bad address, bad options) name the problem.
  static Result<std::unique_ptr<Server>> create(ServeOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The port of each node, in node order.
  const std::vector<uint16_t>& ports() const;
  // Serves until stop() is called, SIGINT/SIGTERM/SIGHUP arrives (when handle_signals), or
  // SHUTDOWN has ended every node. A signal
  // always ends the process: if the server has not stopped within forced_exit_ms (a script is
  // stuck in C), the process exits at once with status 0 after saying so on stderr.
  void run(bool handle_signals);
  // Stops serving; safe from any thread. run() then returns.
  void stop();

  // Connections currently open on node `index` (for tests and logs).
  size_t connection_count(int index) const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::serve

#endif  // LOCKSTEP_CLI_SERVE_SERVER_H_
