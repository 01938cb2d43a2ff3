#include "cli/serve/connection.h"

#include <strings.h>

#include "sim/core/assert.h"
#include "sim/resp/writer.h"

namespace lockstep::serve {

namespace asio = boost::asio;
using redis::Reply;

Connection::Connection(tcp::socket socket, NodeSlot& slot)
    : socket_(std::move(socket)), slot_(slot), parser_(slot.request_limits) {}

void Connection::start() {
  LS_ASSERT(slot_.backend != nullptr);
  id_ = slot_.backend->connect(connection_info());
  LS_ASSERT(slot_.connections.count(id_) == 0);
  slot_.connections[id_] = shared_from_this();
  slot_.open_connections++;
  boost::system::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  do_read();
}

redis::ConnectionInfo Connection::connection_info() {
  // Redis's anetFormatAddr: "ip:port", an IPv6 address in brackets ("[::1]:6379").
  auto text = [](const tcp::endpoint& e) {
    const std::string ip = e.address().to_string();
    return (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + std::to_string(e.port());
  };
  redis::ConnectionInfo info;
  boost::system::error_code ec;
  const tcp::endpoint peer = socket_.remote_endpoint(ec);
  if (!ec) info.addr = text(peer);
  const tcp::endpoint local = socket_.local_endpoint(ec);
  if (!ec) info.laddr = text(local);
  info.fd = static_cast<int>(socket_.native_handle());
  return info;
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  slot_.backend->disconnect(id_);
  slot_.open_connections--;
  // Erasing drops the slot's reference; handlers in flight hold their own until they finish.
  slot_.connections.erase(id_);
}

void Connection::do_read() {
  LS_ASSERT(!closed_);
  socket_.async_read_some(asio::buffer(read_buf_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      size_t n) { self->on_read(ec, n); });
}

void Connection::on_read(const boost::system::error_code& ec, size_t n) {
  if (closed_ || stopped_) return;
  if (ec == boost::asio::error::eof && (writing_ || !pending_.empty())) {
    // The client half-closed after its last request: like Redis, deliver what it asked for
    // before closing, and read no more.
    close_after_write_ = true;
    return;
  }
  if (ec) {
    close();  // reset, cancelled, or EOF with nothing owed: the client just goes away
    return;
  }
  LS_ASSERT(n <= read_buf_.size());
  parser_.feed(std::string_view(read_buf_.data(), n));
  const bool more = blocked_ || process_requests();
  if (more && !closed_ && !doomed_) do_read();
}

bool Connection::process_requests() {
  // Bounded: each round consumes one complete request from the bytes already read.
  while (!closed_ && !doomed_) {
    switch (parser_.next()) {
      case resp::ParseStatus::kNeedMore: return true;
      case resp::ParseStatus::kRequest:
        if (!run_request()) return false;
        if (blocked_) return true;  // the rest waits for the late reply; reading goes on
        break;
      case resp::ParseStatus::kProtocolError:
        queue_reply(Reply::error(parser_.error()));
        close_after_write_ = true;
        if (!writing_ && !closed_) close();
        return false;
      case resp::ParseStatus::kQueryLimit:
        close();  // Redis drops such a client without a reply
        return false;
    }
  }
  return false;
}

bool Connection::run_request() {
  const std::vector<std::string>& argv = parser_.argv();
  LS_ASSERT(!argv.empty());
  // Redis 7.0 handles QUIT before looking the command up: any arguments, +OK, then close.
  if (strcasecmp(argv[0].c_str(), "quit") == 0 && argv[0].size() == 4) {
    queue(std::string_view("+OK\r\n"));
    close_after_write_ = true;
    if (!writing_ && !closed_) close();
    return false;
  }
  argv_views_.assign(argv.begin(), argv.end());
  replies_.clear();
  slot_.backend->execute(id_, argv_views_, replies_);
  if (closed_) return false;  // the client left while its (busy) script ran
  blocked_ = slot_.backend->blocked(id_);
  // The command's replies are in the protocol it leaves in effect (HELLO 3's reply is a map).
  protocol_ = resp::protocol_of(slot_.backend->protocol(id_));
  for (const Reply& r : replies_) queue_reply(r);
  return !closed_;
}

void Connection::push(const Reply& message) {
  if (closed_) return;
  queue_reply(message);
  if (blocked_ && !slot_.backend->blocked(id_)) {
    // The late reply of the blocking command: run what was read meanwhile, but not from inside
    // the command that served it (the backend is running that one).
    blocked_ = false;
    boost::asio::post(socket_.get_executor(), [self = shared_from_this()] { self->resume(); });
  }
}

void Connection::resume() {
  if (closed_ || doomed_ || blocked_ || stopped_) return;
  if (!process_requests()) stopped_ = true;  // QUIT or a protocol error: read no more
}

void Connection::queue_reply(const Reply& reply) {
  std::string bytes;
  resp::append_reply(reply, protocol_, bytes);
  queue(bytes);
}

void Connection::queue(std::string_view bytes) {
  if (closed_ || doomed_) return;
  pending_.append(bytes);
  if (pending_.size() + inflight_.size() > slot_.max_output_bytes) {
    // The client does not read its replies: Redis's output buffer limit. The close is posted,
    // not done here, because a push arrives from inside another connection's command and the
    // backend must not be re-entered (disconnect) while it runs that command.
    doomed_ = true;
    pending_.clear();
    boost::asio::post(socket_.get_executor(), [self = shared_from_this()] { self->close(); });
    return;
  }
  if (!writing_) do_write();
}

void Connection::do_write() {
  LS_ASSERT(!writing_);
  LS_ASSERT(!closed_);
  if (pending_.empty()) return;
  inflight_.swap(pending_);
  pending_.clear();
  writing_ = true;
  asio::async_write(socket_, asio::buffer(inflight_),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                      self->on_write(ec);
                    });
}

void Connection::on_write(const boost::system::error_code& ec) {
  LS_ASSERT(writing_);
  writing_ = false;
  inflight_.clear();
  if (closed_) return;
  if (ec) {
    close();
    return;
  }
  if (doomed_) return;  // a posted close() is on its way
  if (!pending_.empty()) {
    do_write();
  } else if (close_after_write_) {
    close();
  }
}

}  // namespace lockstep::serve
