#include "cli/serve/server.h"

#include <utility>  // before Boost.Asio (see connection.h)

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <pthread.h>
#include <unistd.h>

#include <boost/asio.hpp>

#include "cli/serve/connection.h"
#include "sim/core/assert.h"
#include "sim/resp/writer.h"

namespace lockstep::serve {

namespace asio = boost::asio;

constexpr int kAcceptRetryMs = 100;

struct Server::Impl {
  ServeOptions options;
  asio::io_context io;
  std::vector<std::unique_ptr<NodeSlot>> slots;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::vector<uint16_t> ports;
  asio::steady_timer tick_timer{io};
  bool stopping = false;
  // Set by the signal thread: a running script stops at its next instruction hook.
  std::atomic<bool> stop_requested{false};

  Status bind_all();
  void accept_next(size_t index);
  void on_accept(size_t index, tcp::socket socket);
  void schedule_tick();
  void shutdown();
  // Ends node `index` (SHUTDOWN): closes its port and its connections.
  void shut_node(size_t index);
};

namespace {

// Routes a pub/sub push to the connection it is meant for, if it is still open.
PushFn make_push(NodeSlot* slot) {
  return [slot](redis::ConnectionId id, const redis::Reply& message) {
    auto it = slot->connections.find(id);
    if (it == slot->connections.end()) return;
    // Hold a reference: the push may close the connection (output limit) and erase it.
    std::shared_ptr<Connection> conn = it->second;
    conn->push(message);
  };
}

Status check_options(const ServeOptions& o) {
  if (o.nodes < 1 || o.nodes > 1024) {
    return Status::error("lockstep serve: --nodes must be between 1 and 1024, got " +
                         std::to_string(o.nodes));
  }
  if (o.port < 0 || o.port + o.nodes - 1 > 65535) {
    return Status::error("lockstep serve: ports " + std::to_string(o.port) + ".." +
                         std::to_string(o.port + o.nodes - 1) + " are not all valid TCP ports");
  }
  if (!o.backend) return Status::error("lockstep serve: no backend configured");
  return Status::ok_status();
}

}  // namespace

Status Server::Impl::bind_all() {
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options.bind_address, ec);
  if (ec) {
    return Status::error("lockstep serve: --bind '" + options.bind_address +
                         "' is not an IP address: " + ec.message());
  }
  for (int i = 0; i < options.nodes; i++) {
    const auto port = static_cast<uint16_t>(options.port == 0 ? 0 : options.port + i);
    auto acceptor = std::make_unique<tcp::acceptor>(io);
    const tcp::endpoint endpoint(address, port);
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return Status::error("lockstep serve: cannot listen on " + options.bind_address + ":" +
                           std::to_string(port) + ": " + ec.message());
    }
    ports.push_back(acceptor->local_endpoint().port());
    acceptors.push_back(std::move(acceptor));
  }
  LS_ASSERT(ports.size() == static_cast<size_t>(options.nodes));
  return Status::ok_status();
}

void Server::Impl::accept_next(size_t index) {
  LS_ASSERT(index < acceptors.size());
  acceptors[index]->async_accept([this, index](const boost::system::error_code& ec,
                                               tcp::socket socket) {
    if (stopping || slots[index]->shut) return;
    if (!ec) {
      on_accept(index, std::move(socket));
      accept_next(index);
      return;
    }
    // Accept errors (e.g. out of file descriptors) are transient: retry after a pause rather
    // than spinning on an error that repeats until a connection closes.
    auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(kAcceptRetryMs));
    timer->async_wait([this, index, timer](const boost::system::error_code& wait_ec) {
      if (!wait_ec && !stopping && !slots[index]->shut) accept_next(index);
    });
  });
}

void Server::Impl::on_accept(size_t index, tcp::socket socket) {
  NodeSlot& slot = *slots[index];
  if (slot.open_connections.load() >= options.max_connections) {
    // As Redis: tell the client why, then drop it.
    static const char kFull[] = "-ERR max number of clients reached\r\n";
    boost::system::error_code ignored;
    asio::write(socket, asio::buffer(kFull, sizeof(kFull) - 1), ignored);
    socket.close(ignored);
    return;
  }
  std::make_shared<Connection>(std::move(socket), slot)->start();
}

void Server::Impl::schedule_tick() {
  tick_timer.expires_after(std::chrono::milliseconds(options.tick_interval_ms));
  tick_timer.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping) return;
    for (auto& slot : slots) {
      if (!slot->shut) slot->backend->tick();
    }
    schedule_tick();
  });
}

void Server::Impl::shutdown() {
  if (stopping) return;
  stopping = true;
  boost::system::error_code ignored;
  tick_timer.cancel();
  for (auto& a : acceptors) a->close(ignored);
  for (auto& slot : slots) {
    // Closing erases from the map, so close copies.
    std::vector<std::shared_ptr<Connection>> open;
    for (auto& [id, conn] : slot->connections) open.push_back(conn);
    for (auto& conn : open) conn->close();
    LS_ASSERT(slot->connections.empty());
  }
  io.stop();
}

void Server::Impl::shut_node(size_t index) {
  LS_ASSERT(index < slots.size());
  NodeSlot& slot = *slots[index];
  if (stopping || slot.shut) return;
  slot.shut = true;
  boost::system::error_code ignored;
  acceptors[index]->close(ignored);
  std::vector<std::shared_ptr<Connection>> open;
  for (auto& [id, conn] : slot.connections) open.push_back(conn);
  for (auto& conn : open) conn->close();
  LS_ASSERT(slot.connections.empty());
  if (options.on_node_shut_down) options.on_node_shut_down(static_cast<int>(index));
  if (std::all_of(slots.begin(), slots.end(), [](const auto& s) { return s->shut; })) shutdown();
}

Result<std::unique_ptr<Server>> Server::create(ServeOptions options) {
  if (Status s = check_options(options); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  if (Status s = impl->bind_all(); !s.ok()) return s;
  for (int i = 0; i < impl->options.nodes; i++) {
    auto slot = std::make_unique<NodeSlot>();
    slot->index = i;
    slot->request_limits = impl->options.request_limits;
    slot->max_output_bytes = impl->options.max_output_bytes;
    slot->backend = impl->options.backend(i, impl->ports[static_cast<size_t>(i)], make_push(slot.get()));
    LS_ASSERT(slot->backend != nullptr);
    Impl* raw = impl.get();
    Backend::ServerHooks hooks;
    hooks.threshold_ms = impl->options.busy_threshold_ms;
    // Nested poll() is supported by Asio's scheduler: other connections' handlers run from
    // inside the busy script's hook, and reach the busy backend re-entrantly.
    hooks.pump = [raw] { raw->io.poll(); };
    hooks.stopping = [raw] { return raw->stopping || raw->stop_requested.load(); };
    // Posted: SHUTDOWN arrives from inside a connection's command, which must finish first.
    hooks.shut_down = [raw, i] { asio::post(raw->io, [raw, i] { raw->shut_node(static_cast<size_t>(i)); }); };
    slot->backend->set_server_hooks(std::move(hooks));
    impl->slots.push_back(std::move(slot));
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  // Connections reference their slot: close them before the slots go.
  if (!impl_->stopping) impl_->shutdown();
  impl_->io.restart();
  impl_->io.poll();  // let cancelled handlers release their connections
}

const std::vector<uint16_t>& Server::ports() const { return impl_->ports; }

size_t Server::connection_count(int index) const {
  LS_ASSERT(index >= 0 && static_cast<size_t>(index) < impl_->slots.size());
  return impl_->slots[index]->open_connections.load();
}

namespace {

// Waits for SIGINT/SIGTERM/SIGHUP on its own thread (the signals are blocked in every other one), asks
// the server to stop, and ends the process if that does not happen in time: a script stuck in a
// C function never returns to the event loop, and a signal must still end `lockstep serve`.
class SignalWatch {
 public:
  SignalWatch(asio::io_context& io, std::atomic<bool>* requested, std::function<void()> stop,
              int64_t forced_exit_ms)
      : stop_(std::move(stop)), forced_exit_ms_(forced_exit_ms), io_(io), requested_(requested) {
    sigset_t set = signal_set();
    pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
    thread_ = std::thread([this] { watch(); });
  }
  ~SignalWatch() {
    done_ = true;
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  void stopped() { stopped_ = true; }

 private:
  static sigset_t signal_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);  // the terminal closed: stop as for SIGTERM, not die mid-write
    return set;
  }
  void watch() {
    const sigset_t set = signal_set();
    const timespec tick{0, 100 * 1000 * 1000};
    while (!done_) {
      if (sigtimedwait(&set, nullptr, &tick) < 0) continue;  // timeout or EINTR: look again
      requested_->store(true);
      asio::post(io_, stop_);
      for (int64_t waited_ms = 0; waited_ms < forced_exit_ms_; waited_ms += 100) {
        if (stopped_ || done_) return;
        nanosleep(&tick, nullptr);
      }
      if (stopped_ || done_) return;
      static const char kMsg[] = "lockstep serve: a script did not stop in time; exiting\n";
      (void)!write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
      _exit(0);
    }
  }

  std::function<void()> stop_;
  const int64_t forced_exit_ms_;
  asio::io_context& io_;
  std::atomic<bool>* requested_;
  sigset_t old_mask_{};
  std::atomic<bool> done_{false};
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace

void Server::run(bool handle_signals) {
  std::unique_ptr<SignalWatch> watch;
  if (handle_signals) {
    watch = std::make_unique<SignalWatch>(impl_->io, &impl_->stop_requested, [this] { impl_->shutdown(); },
                                          impl_->options.forced_exit_ms);
  }
  for (size_t i = 0; i < impl_->acceptors.size(); i++) impl_->accept_next(i);
  impl_->schedule_tick();
  impl_->io.run();
  if (watch) watch->stopped();
}

void Server::stop() {
  asio::post(impl_->io, [this] { impl_->shutdown(); });
}

}  // namespace lockstep::serve
