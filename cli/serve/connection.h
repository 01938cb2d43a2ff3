// One client connection of `lockstep serve` (internal to the server).
//
// Reads bytes, feeds the RESP request parser, runs each complete request on the node's
// backend, and queues the replies encoded in the connection's protocol (RESP2 until HELLO 3,
// asked of the backend after each request); pub/sub pushes are queued through push(). At most
// one write is in flight; replies produced meanwhile wait in a pending buffer whose size, with
// the in-flight bytes, may not exceed the output limit. The connection closes itself after a
// protocol error (once the error is written), after QUIT, on EOF or an I/O error, and at once
// when the output limit is passed.
#ifndef LOCKSTEP_CLI_SERVE_CONNECTION_H_
#define LOCKSTEP_CLI_SERVE_CONNECTION_H_

#include <utility>  // before Boost.Asio: Boost 1.74 + GCC 12 need std::exchange declared

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <boost/asio.hpp>

#include "cli/serve/backend.h"
#include "sim/resp/request_parser.h"
#include "sim/resp/writer.h"

namespace lockstep::serve {

using tcp = boost::asio::ip::tcp;

class Connection;

// What the connections of one node share.
struct NodeSlot {
  int index = 0;
  std::unique_ptr<Backend> backend;
  std::map<redis::ConnectionId, std::shared_ptr<Connection>> connections;
  std::atomic<size_t> open_connections{0};
  resp::RequestLimits request_limits;
  size_t max_output_bytes = 0;
  bool shut = false;  // SHUTDOWN ended the node: its port is closed
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, NodeSlot& slot);
  // Registers with the backend and starts reading.
  void start();
  // Queues a pub/sub message, or the late reply of the blocking command the connection waits
  // in; after the latter, the requests that arrived meanwhile run.
  void push(const redis::Reply& message);
  // Closes at once (server shutdown, output limit); idempotent.
  void close();

 private:
  static constexpr size_t kReadChunkBytes = 16 * 1024;  // as Redis's PROTO_IOBUF_LEN

  // The socket's peer and local addresses and descriptor, for CLIENT LIST.
  redis::ConnectionInfo connection_info();
  void do_read();
  void on_read(const boost::system::error_code& ec, size_t n);
  // Runs every complete request buffered. Returns false once the connection must stop reading.
  bool process_requests();
  bool run_request();
  // Runs the requests that waited behind a blocking command (posted, never from inside one).
  void resume();
  void queue(std::string_view bytes);
  // Encodes in the connection's protocol (protocol_).
  void queue_reply(const redis::Reply& reply);
  void do_write();
  void on_write(const boost::system::error_code& ec);

  tcp::socket socket_;
  NodeSlot& slot_;
  redis::ConnectionId id_ = 0;
  resp::RequestParser parser_;
  resp::Protocol protocol_ = resp::Protocol::kResp2;
  std::array<char, kReadChunkBytes> read_buf_;
  std::string pending_;   // replies not yet handed to the socket
  std::string inflight_;  // bytes of the write in progress
  bool writing_ = false;
  bool close_after_write_ = false;
  bool closed_ = false;
  bool doomed_ = false;  // past the output limit: a close() is posted, nothing more is sent
  // Inside a blocking command (BLPOP): requests read meanwhile wait in the parser, and reading
  // goes on, so that a client that leaves is noticed (as Redis keeps reading a blocked client).
  bool blocked_ = false;
  bool stopped_ = false;  // a resumed connection met QUIT or a protocol error: no more requests
  std::vector<redis::Reply> replies_;  // scratch, reused across requests
  std::vector<std::string_view> argv_views_;
};

}  // namespace lockstep::serve

#endif  // LOCKSTEP_CLI_SERVE_CONNECTION_H_
