#include "harness/live/exec_monitor.h"

#include <algorithm>
#include <array>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "harness/live/live_client.h"
#include "sim/resp/reply_parser.h"

namespace lockstep::live {

namespace asio = boost::asio;

// One node's MONITOR connection (each status line it sends is one executed command), or its
// subscription to expiry events (each message names a key the node expired).
class ExecMonitor::Watch : public std::enable_shared_from_this<Watch> {
 public:
  Watch(ExecMonitor& m, uint16_t port, bool expiries) : m_(m), port_(port), expiries_(expiries), sock_(m.loop_.io()) {}

  Status open() {
    boost::system::error_code ec;
    sock_.connect(asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port_), ec);
    if (ec) return Status::error("live: MONITOR connection to port " + std::to_string(port_) + ": " + ec.message());
    static const std::string kMonitor = "*1\r\n$7\r\nMONITOR\r\n";
    static const std::string kExpired = "*2\r\n$9\r\nSUBSCRIBE\r\n$22\r\n__keyevent@0__:expired\r\n";
    asio::write(sock_, asio::buffer(expiries_ ? kExpired : kMonitor), ec);
    if (ec) return Status::error("live: MONITOR on port " + std::to_string(port_) + ": " + ec.message());
    read_more();
    return Status::ok_status();
  }

  void close() {
    closed_ = true;
    boost::system::error_code ec;
    sock_.close(ec);
  }

 private:
  void read_more() {
    auto self = shared_from_this();
    sock_.async_read_some(asio::buffer(in_), [self](boost::system::error_code ec, size_t n) {
      if (self->closed_ || ec) return;
      self->parser_.feed(std::string_view(self->in_.data(), n));
      redis::Reply r;
      while (self->parser_.next(&r) == resp::ReplyStatus::kReply) {
        if (self->expiries_) {
          if (r.is_aggregate() && r.elements.size() == 3 && r.elements[0].str == "message") {
            self->m_.on_expired(self->port_, r.elements[2].str);
          }
        } else if (r.type == redis::Reply::Type::kStatus && r.str != "OK") {
          self->m_.on_line(self->port_, r.str);
        }
      }
      self->read_more();
    });
  }

  ExecMonitor& m_;
  uint16_t port_;
  bool expiries_;
  asio::ip::tcp::socket sock_;
  bool closed_ = false;
  std::array<char, 65536> in_{};
  resp::ReplyParser parser_;
};

ExecMonitor::ExecMonitor(LiveLoop& loop, history::Recorder& rec, OffsetFn offset_us)
    : loop_(loop), rec_(rec), offset_us_(std::move(offset_us)) {}

ExecMonitor::~ExecMonitor() {
  for (auto& [port, w] : watches_) {
    for (auto& one : w) one->close();
  }
}

Status ExecMonitor::watch(const std::string& name, uint16_t port) {
  auto it = watches_.find(port);
  if (it != watches_.end()) {
    for (auto& one : it->second) one->close();
  }
  std::vector<std::shared_ptr<Watch>> both;
  for (bool expiries : {false, true}) {
    both.push_back(std::make_shared<Watch>(*this, port, expiries));
    if (Status st = both.back()->open(); !st.ok()) return st;
  }
  watches_[port] = std::move(both);
  names_[port] = name;
  return Status::ok_status();
}

void ExecMonitor::on_expired(uint16_t node_port, const std::string& key) {
  const TimeUs now = loop_.now_us();
  rec_.expire(now, node_at(node_port), key, us_to_ms_floor(now + offset_us_(node_port, now)));
}

const std::string& ExecMonitor::node_at(uint16_t port) const {
  static const std::string kNone;
  auto it = names_.find(port);
  return it == names_.end() ? kNone : it->second;
}

void ExecMonitor::add(uint16_t node_port, uint16_t client_port, Sink sink) {
  sinks_[{node_port, client_port}] = std::move(sink);
}

void ExecMonitor::remove(uint16_t node_port, uint16_t client_port) { sinks_.erase({node_port, client_port}); }

// "1795701602.707904 [0 127.0.0.1:57728] "EVAL" ...": the time, the database and the client.
void ExecMonitor::on_line(uint16_t node_port, const std::string& line) {
  const size_t dot = line.find('.');
  const size_t open = line.find(" [");
  const size_t close = line.find(']', open == std::string::npos ? 0 : open);
  if (dot == std::string::npos || open == std::string::npos || close == std::string::npos || dot > open) return;
  const std::string addr = line.substr(line.find(' ', open + 2) + 1, close - line.find(' ', open + 2) - 1);
  if (addr == "lua") return;  // a command a script ran: part of the script's own execution
  MonitorLine m;
  m.seq = ++seq_[node_port];
  int64_t sec = 0;
  int64_t usec = 0;
  for (size_t i = 0; i < dot; ++i) sec = sec * 10 + (line[i] - '0');
  for (size_t i = dot + 1; i < open; ++i) usec = usec * 10 + (line[i] - '0');
  const int64_t node_us = sec * kUsPerSecond + usec - loop_.wall_start_us();  // the node's own clock
  const TimeUs now = loop_.now_us();
  m.local_ms = us_to_ms_floor(node_us);
  m.t = std::clamp<TimeUs>(node_us - offset_us_(node_port, now), 0, now);
  const size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return;
  const uint16_t client_port = static_cast<uint16_t>(std::atoi(addr.c_str() + colon + 1));
  auto it = sinks_.find({node_port, client_port});
  if (it == sinks_.end()) return;
  const Sink sink = it->second;  // the sink may remove itself
  sink(m);
}

}  // namespace lockstep::live
