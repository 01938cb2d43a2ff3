#include "harness/live/repl_proxy.h"

#include <array>
#include <deque>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "harness/live/live_client.h"

namespace lockstep::live {

namespace asio = boost::asio;
using asio::ip::tcp;

// One replica connection and its upstream connection to the master.
class ReplicationProxy::Pipe : public std::enable_shared_from_this<Pipe> {
 public:
  Pipe(ReplicationProxy& p, tcp::socket down)
      : p_(p), alive_(p.alive_), down_(std::move(down)), up_(p.loop_.io()), timer_(p.loop_.io()) {}

  void start() {
    boost::system::error_code ec;
    up_.connect(tcp::endpoint(asio::ip::address_v4::loopback(), p_.master_port_), ec);
    if (ec) {
      close();
      return;
    }
    pump_up();
    read_master();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    down_.close(ec);
    up_.close(ec);
    timer_.cancel();
  }

 private:
  // Replica → master: at once.
  void pump_up() {
    auto self = shared_from_this();
    down_.async_read_some(asio::buffer(from_replica_), [self](boost::system::error_code ec, size_t n) {
      if (ec || self->closed_) return self->close();
      asio::async_write(self->up_, asio::buffer(self->from_replica_.data(), n), [self](boost::system::error_code wec, size_t) {
        if (wec || self->closed_) return self->close();
        self->pump_up();
      });
    });
  }

  // Master → replica: each chunk held back by the lag.
  void read_master() {
    auto self = shared_from_this();
    up_.async_read_some(asio::buffer(from_master_), [self](boost::system::error_code ec, size_t n) {
      if (ec || self->closed_) return self->close();
      if (!*self->alive_) return self->close();
      const TimeUs now = self->p_.loop_.now_us();
      const TimeUs at = std::max(now + self->p_.lag_us_(), self->held_.empty() ? now : self->held_.back().first);
      self->held_.emplace_back(at, std::string(self->from_master_.data(), n));
      if (self->held_.size() == 1) self->release();
      self->read_master();
    });
  }

  void release() {
    if (closed_ || held_.empty() || writing_) return;
    if (!*alive_) return close();
    const TimeUs now = p_.loop_.now_us();
    if (held_.front().first > now || p_.blocked_()) {
      // Not due yet, or partitioned: look again then (a partition is re-checked every 10 ms).
      const TimeUs wait = held_.front().first > now ? held_.front().first - now : 10'000;
      timer_.expires_after(std::chrono::microseconds(wait));
      auto self = shared_from_this();
      timer_.async_wait([self](boost::system::error_code ec) {
        if (!ec) self->release();
      });
      return;
    }
    writing_ = true;
    auto self = shared_from_this();
    asio::async_write(down_, asio::buffer(held_.front().second), [self](boost::system::error_code ec, size_t) {
      self->writing_ = false;
      if (ec || self->closed_) return self->close();
      self->held_.pop_front();
      self->release();
    });
  }

  ReplicationProxy& p_;
  std::shared_ptr<bool> alive_;
  tcp::socket down_;
  tcp::socket up_;
  asio::steady_timer timer_;
  std::array<char, 65536> from_replica_{};
  std::array<char, 65536> from_master_{};
  std::deque<std::pair<TimeUs, std::string>> held_;
  bool writing_ = false;
  bool closed_ = false;
};

ReplicationProxy::ReplicationProxy(LiveLoop& loop, uint16_t master_port, std::function<int64_t()> lag_us,
                                   std::function<bool()> blocked)
    : loop_(loop), master_port_(master_port), lag_us_(std::move(lag_us)), blocked_(std::move(blocked)), acceptor_(loop.io()) {}

Result<std::unique_ptr<ReplicationProxy>> ReplicationProxy::start(LiveLoop& loop, uint16_t master_port,
                                                                  std::function<int64_t()> lag_us,
                                                                  std::function<bool()> blocked) {
  std::unique_ptr<ReplicationProxy> p(new ReplicationProxy(loop, master_port, std::move(lag_us), std::move(blocked)));
  boost::system::error_code ec;
  const tcp::endpoint at(asio::ip::address_v4::loopback(), 0);
  p->acceptor_.open(at.protocol(), ec);
  if (!ec) p->acceptor_.bind(at, ec);
  if (!ec) p->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::error("live: the replication proxy cannot listen on a loopback port: " + ec.message());
  p->port_ = p->acceptor_.local_endpoint().port();
  p->accept();
  return p;
}

ReplicationProxy::~ReplicationProxy() {
  *alive_ = false;
  boost::system::error_code ec;
  acceptor_.close(ec);
  for (auto& w : pipes_) {
    if (auto pipe = w.lock()) pipe->close();
  }
}

void ReplicationProxy::accept() {
  std::shared_ptr<bool> alive = alive_;
  acceptor_.async_accept([this, alive](boost::system::error_code ec, tcp::socket socket) {
    if (!*alive || ec) return;
    auto pipe = std::make_shared<Pipe>(*this, std::move(socket));
    pipes_.push_back(pipe);
    pipe->start();
    accept();
  });
}

}  // namespace lockstep::live
