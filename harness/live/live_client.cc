#include "harness/live/live_client.h"

#include <algorithm>
#include <array>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "harness/live/exec_monitor.h"
#include "sim/core/assert.h"
#include "sim/resp/reply_parser.h"
#include "sim/resp/writer.h"

namespace lockstep::live {

namespace asio = boost::asio;
using kernel::WaitRef;

namespace {

// Dumps KEYS as {type, strings, PEXPIRETIME} each, in the simulator's KeyDump form: a list in
// order, a set sorted, a hash as field, value..., a zset as member, score... (lockstep's own
// read-only script, run in the same transaction as the command whose state it shows).
constexpr std::string_view kDumpScript = R"(local out = {}
for i, k in ipairs(KEYS) do
  local t = redis.call('TYPE', k).ok
  local s = {}
  if t == 'string' then s = {redis.call('GET', k)}
  elseif t == 'list' then s = redis.call('LRANGE', k, 0, -1)
  elseif t == 'set' then s = redis.call('SMEMBERS', k); table.sort(s)
  elseif t == 'hash' then s = redis.call('HGETALL', k)
  elseif t == 'zset' then s = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
  end
  out[i] = {t, s, redis.call('PEXPIRETIME', k)}
end
return out)";

}  // namespace
using redis::Reply;
using runtime::Task;

// --- a wait ------------------------------------------------------------------------------

// `co_await Wait(client, deadline, on_open)`: opens a wait, arms the optional local deadline,
// hands the WaitRef to on_open (which files it where the completer finds it) and yields the
// kernel::WaitResult. Destroying the suspended coroutine closes the wait.
class LiveClient::Wait {
 public:
  using OnOpen = std::function<void(WaitRef)>;
  Wait(LiveClient& c, int64_t deadline_local_us, OnOpen on_open = {})
      : c_(c), deadline_local_us_(deadline_local_us), on_open_(std::move(on_open)) {}
  Wait(const Wait&) = delete;
  Wait& operator=(const Wait&) = delete;
  ~Wait() {
    if (ref_.valid()) c_.close_wait(ref_);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    ref_ = c_.open_wait(h, &result_, deadline_local_us_);
    if (on_open_) on_open_(ref_);
  }
  int32_t await_resume() {
    ref_ = WaitRef{};  // the slot was freed before resumption
    return result_;
  }

 private:
  LiveClient& c_;
  const int64_t deadline_local_us_;
  OnOpen on_open_;
  WaitRef ref_;
  int32_t result_ = kernel::kWaitTimedOut;
};

template <typename OnOpen>
LiveClient::Wait LiveClient::open_ended_wait(OnOpen on_open) {
  return Wait(*this, kernel::CoroProcess::kNoDeadline, std::move(on_open));
}

Task<bool> LiveClient::interruptible(const runtime::Thread& thread, Task<bool> wait, runtime::Interrupt* interrupted) {
  return interrupts_.interruptible(thread.index, std::move(wait), interrupted);
}

// --- a RESP connection ---------------------------------------------------------------------

// One TCP connection to a redis-server: commands written in order, replies read in order. A
// command connection hands each reply to the wait that sent its command (a wait that timed out
// meanwhile is gone, and its late reply is dropped); a pub/sub connection hands every reply to
// on_push. Once closed — by the server, an error or close() — it stays closed: the client opens
// a new one.
//
// With an ExecMonitor, a command connection also records each command as an `exec` event once
// both its MONITOR line (its place in the node's order) and its reply are in, and holds the
// reply back until then, for at most ExecMonitor::kWaitMs: the exec event comes before the
// client acts on the reply, as in a simulated run.
class LiveClient::Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(LiveClient& c, uint16_t port, std::string label)
      : c_(c), port_(port), node_(c.node_at(port)), label_(std::move(label)), sock_(c.loop().io()) {}

  uint16_t port() const { return port_; }
  bool alive() const { return !closed_; }

  // Connects (loopback: at once, refused or accepted). False when refused.
  bool open() {
    boost::system::error_code ec;
    sock_.connect(asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port_), ec);
    if (ec) {
      closed_ = true;
      return false;
    }
    sock_.set_option(asio::ip::tcp::no_delay(true), ec);
    if (c_.monitor_ != nullptr && !on_push) {
      local_port_ = sock_.local_endpoint(ec).port();
      std::weak_ptr<Conn> weak = shared_from_this();
      c_.monitor_->add(port_, local_port_, [weak](const MonitorLine& line) {
        if (auto self = weak.lock()) self->monitored(line);
      });
      monitored_ = true;
    }
    read_more();
    return true;
  }

  // Sends a command whose reply completes `ref`, storing the reply in *out if the wait is open.
  // A command whose options name state keys is sent inside MULTI ... EXEC with a read-only script
  // that dumps those keys, so that the `state` events show them right after the command, as the
  // simulator shows them (ExecMonitor only: the events need the command's place in the order).
  void request(const std::vector<std::string>& argv, WaitRef ref, Reply* out, const runtime::CallOptions& o) {
    if (closed_) return;  // no reply will come: the wait times out
    if (c_.link_lost(c_.name_, node_)) return;  // lost on the link: the node never sees it
    if (!monitored_ || o.state_keys.empty()) {
      push(argv, ref, out, o, nullptr, Cmd::kPlain);
      return;
    }
    auto group = std::make_shared<Group>();
    group->state_keys = o.state_keys;
    push({"MULTI"}, WaitRef{}, nullptr, o, group, Cmd::kInternal);
    push(argv, WaitRef{}, nullptr, o, group, Cmd::kWrapped);
    std::vector<std::string> keys = o.state_keys;
    std::vector<std::string> none;
    push(runtime::script_argv("EVAL", kDumpScript, keys, none), WaitRef{}, nullptr, o, group, Cmd::kInternal);
    push({"EXEC"}, ref, out, o, group, Cmd::kExec);
  }

  // Sends a command without a reply of its own (pub/sub).
  void send(const std::vector<std::string>& argv) {
    if (closed_) return;
    if (on_push && c_.link_lost(c_.name_, node_)) return;  // a pub/sub command lost on the link
    std::string bytes;
    std::vector<std::string_view> views(argv.begin(), argv.end());
    resp::append_request(views, bytes);
    // A delayed link: the bytes leave later, never before bytes sent earlier.
    hold_back(outgoing_, c_.link_delay_us(c_.name_, node_), [this, bytes = std::move(bytes)] {
      out_ += bytes;
      if (!writing_) write_more();
    });
  }

  // Hands what came from the node (a reply, a push) to the client after the link's delay.
  void arrive(int64_t delay_us, std::function<void()> hand) { hold_back(incoming_, delay_us, std::move(hand)); }

  // What a delayed link holds back in one direction of this connection: each action runs at its
  // time and never before one queued earlier (TCP order), as on the simulator's connections.
  struct DelayLine {
    std::deque<std::pair<TimeUs, std::function<void()>>> queue;
    std::unique_ptr<asio::steady_timer> timer;
  };

  // Runs `action` after delay_us, or at once when nothing is held back.
  void hold_back(DelayLine& line, int64_t delay_us, std::function<void()> action) {
    if (delay_us <= 0 && line.queue.empty()) {
      action();
      return;
    }
    const TimeUs at = std::max(c_.loop().now_us() + delay_us, line.queue.empty() ? 0 : line.queue.back().first);
    line.queue.emplace_back(at, std::move(action));
    if (line.queue.size() == 1) release(line);
  }

  // Runs what is due, and waits for the next.
  void release(DelayLine& line) {
    while (!line.queue.empty() && line.queue.front().first <= c_.loop().now_us() && !closed_) {
      std::function<void()> action = std::move(line.queue.front().second);
      line.queue.pop_front();
      action();
    }
    if (line.queue.empty() || closed_) return;
    if (line.timer == nullptr) line.timer = std::make_unique<asio::steady_timer>(c_.loop().io());
    line.timer->expires_at(c_.loop().at(line.queue.front().first));
    std::weak_ptr<Conn> weak = shared_from_this();
    DelayLine* held = &line;
    line.timer->async_wait([weak, held](boost::system::error_code ec) {
      auto self = weak.lock();
      if (!ec && self != nullptr && !self->closed_) self->release(*held);
    });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    outgoing_.queue.clear();
    incoming_.queue.clear();
    for (const Cmd& cmd : cmds_) {
      if (cmd.replied && !cmd.seen) {
        c_.monitor_lost(port_);
        break;
      }
    }
    cmds_.clear();
    if (monitored_) c_.monitor_->remove(port_, local_port_);
    boost::system::error_code ec;
    sock_.close(ec);
    if (on_closed) on_closed();
  }

  std::function<void(Reply&)> on_push;  // pub/sub connections: every reply
  std::function<void()> on_closed;

 private:
  // A command sent inside MULTI ... EXEC with the dump of its state keys.
  struct Group {
    std::vector<std::string> argv;
    int64_t op = -1;
    const char* script = nullptr;
    std::vector<std::string> state_keys;
    bool seen = false;  // the wrapped command's MONITOR line came
    MonitorLine line;
  };
  struct Cmd {
    enum Kind : uint8_t { kPlain, kInternal, kWrapped, kExec };
    Kind kind = kPlain;
    std::shared_ptr<Group> group;
    WaitRef ref;
    Reply* out = nullptr;
    std::string command;             // its name, for lose_reply
    const char* script_name = nullptr;
    bool lost = false;               // its reply is lost on the link
    int64_t delay_us = 0;            // its reply's extra latency
    std::vector<std::string> argv;  // kept for the exec event (monitored connections)
    int64_t op = -1;
    const char* script = nullptr;
    bool seen = false;       // its MONITOR line came
    MonitorLine line;
    bool replied = false;
    Reply reply;
    bool delivered = false;  // handed to its wait
    std::shared_ptr<asio::steady_timer> timer;
  };

  void push(const std::vector<std::string>& argv, WaitRef ref, Reply* out, const runtime::CallOptions& o,
            std::shared_ptr<Group> group, Cmd::Kind kind) {
    Cmd cmd;
    cmd.kind = kind;
    cmd.ref = ref;
    cmd.out = out;
    if (kind == Cmd::kPlain) {
      cmd.command = argv.front();
      cmd.script_name = o.script;
    }
    if (monitored_ && kind == Cmd::kPlain) {
      cmd.argv = argv;
      cmd.op = o.op;
      cmd.script = o.script;
    }
    if (kind == Cmd::kWrapped) {
      group->argv = argv;
      group->op = o.op;
      group->script = o.script;
    }
    cmd.group = std::move(group);
    cmds_.push_back(std::move(cmd));
    send(argv);
  }

  void write_more() {
    if (closed_ || out_.empty()) return;
    writing_ = true;
    in_flight_.swap(out_);
    out_.clear();
    auto self = shared_from_this();
    asio::async_write(sock_, asio::buffer(in_flight_), [self](boost::system::error_code ec, size_t) {
      self->writing_ = false;
      self->in_flight_.clear();
      if (ec) {
        self->close();
        return;
      }
      self->write_more();
    });
  }

  void read_more() {
    auto self = shared_from_this();
    sock_.async_read_some(asio::buffer(in_), [self](boost::system::error_code ec, size_t n) {
      if (self->closed_) return;
      if (ec) {
        self->close();
        return;
      }
      self->parser_.feed(std::string_view(self->in_.data(), n));
      while (!self->closed_) {
        Reply reply;
        const resp::ReplyStatus st = self->parser_.next(&reply);
        if (st == resp::ReplyStatus::kNeedMore) break;
        if (st == resp::ReplyStatus::kError) {
          self->close();
          return;
        }
        self->replied(reply);
      }
      if (!self->closed_) self->read_more();
    });
  }

  void replied(Reply& reply) {
    if (on_push) {
      if (c_.link_lost(node_, c_.name_)) return;  // a push lost on the link
      std::weak_ptr<Conn> weak = shared_from_this();
      arrive(c_.link_delay_us(node_, c_.name_), [weak, reply = std::move(reply)]() mutable {
        auto self = weak.lock();
        if (self != nullptr && !self->closed_ && self->on_push) self->on_push(reply);
      });
      return;
    }
    auto it = std::find_if(cmds_.begin(), cmds_.end(), [](const Cmd& c) { return !c.replied; });
    if (it == cmds_.end()) return;  // nothing was asked: ignore
    it->replied = true;
    it->reply = std::move(reply);
    // The node ran it (its exec event stays); its reply may be lost on the way back.
    if (it->kind == Cmd::kPlain || it->kind == Cmd::kExec) {
      const bool exec = it->kind == Cmd::kExec;
      const std::string& command = exec ? it->group->argv.front() : it->command;
      const char* script = exec ? it->group->script : it->script_name;
      it->lost = c_.link_lost(node_, c_.name_) || c_.lose_reply(command, script);
      it->delay_us = c_.link_delay_us(node_, c_.name_);
      const int64_t op = exec ? it->group->op : it->op;
      if (script != nullptr && op >= 0 && ran(it->reply, exec)) {
        // The faults waiting for this script land now, before its reply reaches the client: as
        // in simulation, a partition they start still cuts the reply; a drop or lose_reply does
        // not (judged above, when the reply left the node). One may close this connection.
        c_.script_ran(node_, op);
        if (closed_) return;
        it->lost = it->lost || c_.link_partitioned(node_, c_.name_);
      }
    }
    // A command queued in a transaction shows in MONITOR only when EXEC runs.
    const bool queued = it->reply.type == Reply::Type::kStatus && it->reply.str == "QUEUED";
    if (!monitored_ || it->seen || queued) {
      settle(*it);
    } else {
      // Held back until its MONITOR line comes, which redis-server writes in the same event loop
      // turn as the reply; a line that does not come in time is noted in settle().
      it->timer = std::make_shared<asio::steady_timer>(c_.loop().io(), std::chrono::milliseconds(ExecMonitor::kWaitMs));
      std::weak_ptr<Conn> weak = shared_from_this();
      Cmd* cmd = &*it;  // std::deque keeps element addresses while only its ends change
      it->timer->async_wait([weak, cmd](boost::system::error_code ec) {
        auto self = weak.lock();
        if (ec || self == nullptr || self->closed_) return;
        // A timer that fired just before its command settled: the command may be gone.
        if (std::none_of(self->cmds_.begin(), self->cmds_.end(), [cmd](const Cmd& c) { return &c == cmd; })) return;
        self->deliver(*cmd);
        self->pop_settled();
      });
    }
    pop_settled();
  }

  // Whether a script's reply says it ran (an EVALSHA the node did not know ran nothing).
  static bool ran(const Reply& reply, bool exec) {
    const Reply* own = &reply;
    if (exec) {
      if (reply.type != Reply::Type::kArray || reply.elements.empty()) return false;
      own = &reply.elements[0];
    }
    return !(own->is_error() && own->str.starts_with("NOSCRIPT"));
  }

  void monitored(const MonitorLine& line) {
    auto it = std::find_if(cmds_.begin(), cmds_.end(), [](const Cmd& c) { return !c.seen; });
    if (it == cmds_.end()) return;
    it->seen = true;
    it->line = line;
    if (it->kind == Cmd::kWrapped) {
      it->group->seen = true;
      it->group->line = line;
    }
    if (it->replied) settle(*it);
    pop_settled();
  }

  // Both the line and the reply are in (or there is no monitor): record, then deliver.
  void settle(Cmd& cmd) {
    if (monitored_ && cmd.seen && cmd.replied) {
      if (cmd.kind == Cmd::kPlain) c_.record_exec(port_, cmd.line, label_, cmd.argv, cmd.script, cmd.op, cmd.reply);
      if (cmd.kind == Cmd::kExec) unwrap(cmd);
    }
    if (cmd.timer != nullptr) cmd.timer->cancel();
    deliver(cmd);
  }

  // EXEC's reply [the command's reply, the dump]: the exec and state events, and the command's
  // own reply for its wait. A transaction that failed as a whole is delivered as it is.
  void unwrap(Cmd& cmd) {
    Group& g = *cmd.group;
    if (cmd.reply.type != Reply::Type::kArray || cmd.reply.elements.size() != 2 || !g.seen) return;
    Reply own = std::move(cmd.reply.elements[0]);
    const Reply dump = std::move(cmd.reply.elements[1]);
    c_.record_exec(port_, g.line, label_, g.argv, g.script, g.op, own);
    for (size_t i = 0; i < g.state_keys.size(); ++i) {
      c_.record_state(port_, g.line, g.state_keys[i],
                      dump.is_aggregate() && i < dump.elements.size() ? &dump.elements[i] : nullptr);
    }
    cmd.reply = std::move(own);
  }

  void deliver(Cmd& cmd) {
    if (cmd.delivered) return;
    cmd.delivered = true;
    if (cmd.lost || !c_.wait_open(cmd.ref)) return;  // lost on the link, or its attempt timed out
    // The wait may time out before a delayed reply arrives.
    LiveClient* client = &c_;
    arrive(cmd.delay_us, [client, ref = cmd.ref, out = cmd.out, reply = cmd.reply] {
      if (!client->wait_open(ref)) return;
      *out = reply;
      client->complete_wait(ref, kernel::kWaitSignalled);
    });
  }

  void pop_settled() {
    while (!cmds_.empty() && cmds_.front().delivered && (!monitored_ || cmds_.front().seen)) cmds_.pop_front();
  }

  LiveClient& c_;
  const uint16_t port_;
  const std::string node_;
  const std::string label_;
  DelayLine outgoing_;  // requests on their way to the node
  DelayLine incoming_;  // replies and pushes on their way to the client
  asio::ip::tcp::socket sock_;
  bool closed_ = false;
  bool writing_ = false;
  bool monitored_ = false;
  uint16_t local_port_ = 0;
  std::string out_;
  std::string in_flight_;
  std::array<char, 16384> in_{};
  resp::ReplyParser parser_;
  std::deque<Cmd> cmds_;
};

// --- the Runtime's connection, pub/sub and semaphore ----------------------------------------

class LiveClient::LiveConnection : public runtime::Connection {
 public:
  LiveConnection(LiveClient& c, size_t endpoint) : c_(c), endpoint_(endpoint) {}
  Task<runtime::CallResult> call(std::vector<std::string> argv, runtime::CallOptions options) override {
    return c_.call(endpoint_, std::move(argv), std::move(options));
  }

 private:
  LiveClient& c_;
  size_t endpoint_;
};

class LiveClient::LivePubSub : public runtime::PubSub {
 public:
  static constexpr int64_t kReconnectMs = 100;

  LivePubSub(LiveClient& c, size_t endpoint) : c_(c), endpoint_(endpoint), retry_(c.loop().io()) {}

  Task<runtime::CallResult> subscribe(std::string channel, runtime::MessageListener* listener) override {
    subs_[channel] = listener;
    co_return co_await confirm("SUBSCRIBE", channel);
  }

  Task<runtime::CallResult> unsubscribe(std::string channel) override {
    subs_.erase(channel);
    co_return co_await confirm("UNSUBSCRIBE", channel);
  }

  bool subscribed(std::string_view channel) const override { return subs_.find(channel) != subs_.end(); }

  // The master moved: a new connection to it, subscribed to every channel again.
  void moved() {
    if (conn_ != nullptr) {
      conn_->on_closed = nullptr;
      conn_->close();
      conn_.reset();
    }
    if (subs_.empty()) return;
    std::shared_ptr<Conn> conn = connection();
    if (!conn->alive()) {
      reconnect_later();
      return;
    }
    for (const auto& [channel, listener] : subs_) conn->send({"SUBSCRIBE", channel});
  }

  // The client crashed: its subscriptions went with its connection.
  void reset() {
    subs_.clear();
    confirms_.clear();
    if (conn_ != nullptr) {
      conn_->on_closed = nullptr;
      conn_->close();
    }
    conn_.reset();
    retry_.cancel();
  }

 private:
  struct Confirm {
    std::string kind;  // "subscribe", "unsubscribe"
    std::string channel;
    WaitRef ref;
  };

  // Sends SUBSCRIBE or UNSUBSCRIBE and waits for its confirmation, up to the subscription timeout.
  Task<runtime::CallResult> confirm(const char* command, std::string channel) {
    runtime::CallResult result;
    result.attempts = 1;
    std::string kind = command;
    for (char& ch : kind) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::shared_ptr<Conn> conn = connection();
    const int32_t r = co_await Wait(c_, c_.now_us() + ms_to_us(c_.options().subscription_timeout_ms),
                                    [&](WaitRef ref) {
                                      confirms_.push_back({kind, channel, ref});
                                      std::vector<std::string> argv = {command, channel};
                                      conn->send(argv);
                                    });
    result.status = r == kernel::kWaitSignalled ? runtime::CallStatus::kOk : runtime::CallStatus::kTimeout;
    if (result.ok()) result.reply = Reply::integer_of(1);
    co_return result;
  }

  std::shared_ptr<Conn> connection() {
    if (conn_ != nullptr && conn_->alive() && conn_->port() == c_.port(endpoint_)) return conn_;
    if (conn_ != nullptr) {
      conn_->on_closed = nullptr;
      conn_->close();
    }
    conn_ = std::make_shared<Conn>(c_, c_.port(endpoint_), c_.label("pubsub", endpoint_));
    conn_->on_push = [this](Reply& r) { on_push(r); };
    conn_->on_closed = [this] { reconnect_later(); };
    conn_->open();
    return conn_;
  }

  // Redisson reconnects a lost pub/sub connection and subscribes its channels again.
  void reconnect_later() {
    if (subs_.empty()) return;
    retry_.expires_after(std::chrono::milliseconds(kReconnectMs));
    retry_.async_wait([this](boost::system::error_code ec) {
      if (ec || subs_.empty()) return;
      std::shared_ptr<Conn> conn = connection();
      if (!conn->alive()) {
        reconnect_later();
        return;
      }
      for (const auto& [channel, listener] : subs_) conn->send({"SUBSCRIBE", channel});
    });
  }

  void on_push(Reply& r) {
    if (!r.is_aggregate() || r.elements.size() < 3) return;
    const std::string kind = r.elements[0].str;
    const std::string channel = r.elements[1].str;
    if (kind == "message") {
      std::string message = r.elements[2].str;
      c_.run_step([this, channel, message] {
        auto it = subs_.find(channel);
        if (it != subs_.end()) it->second->on_message(channel, message);
      });
      return;
    }
    for (auto it = confirms_.begin(); it != confirms_.end(); ++it) {
      if (it->kind != kind || it->channel != channel) continue;
      const WaitRef ref = it->ref;
      confirms_.erase(it);
      c_.complete_wait(ref, kernel::kWaitSignalled);
      return;
    }
  }

  LiveClient& c_;
  size_t endpoint_;
  std::map<std::string, runtime::MessageListener*, std::less<>> subs_;
  std::deque<Confirm> confirms_;
  std::shared_ptr<Conn> conn_;
  asio::steady_timer retry_;
};

class LiveClient::LiveSemaphore : public runtime::Semaphore {
 public:
  LiveSemaphore(LiveClient& c, int64_t permits) : c_(c), permits_(permits) {}

  void release(int64_t permits) override {
    permits_ += permits;
    while (permits_ > 0 && !waiters_.empty()) {
      const WaitRef ref = waiters_.front();
      waiters_.pop_front();
      if (c_.complete_wait(ref, kernel::kWaitSignalled)) --permits_;
    }
  }

  Task<bool> try_acquire(int64_t timeout_ms) override {
    if (permits_ > 0) {
      --permits_;
      co_return true;
    }
    if (timeout_ms == 0) co_return false;
    const int64_t deadline = timeout_ms < 0 ? kernel::CoroProcess::kNoDeadline : c_.now_us() + ms_to_us(timeout_ms);
    const int32_t r = co_await Wait(c_, deadline, [this](WaitRef ref) { waiters_.push_back(ref); });
    co_return r == kernel::kWaitSignalled;
  }

  int64_t available() const override { return permits_; }

 private:
  LiveClient& c_;
  int64_t permits_;
  std::deque<WaitRef> waiters_;
};

// --- the client -----------------------------------------------------------------------------

LiveClient::LiveClient(LiveLoop& loop, history::Recorder& rec, std::string name, std::string uuid, Rng rng,
                       kernel::LocalClock clock, const runtime::ClientOptions& options,
                       const std::vector<uint16_t>& ports, std::function<void(std::string)> on_fail)
    : loop_(loop),
      rec_(rec),
      name_(std::move(name)),
      uuid_(std::move(uuid)),
      rng_(rng),
      clock_(clock),
      options_(options),
      ports_(ports),
      on_fail_(std::move(on_fail)),
      holds_(rec),
      link_rng_(rng.stream("live-links")) {
  cmd_.resize(ports_.size());
  for (size_t e = 0; e < ports_.size(); ++e) {
    connections_.push_back(std::make_unique<LiveConnection>(*this, e));
    pubsubs_.push_back(std::make_unique<LivePubSub>(*this, e));
  }
}

LiveClient::~LiveClient() {
  // Frames first: their waits deregister from the semaphores and connections.
  for (uint32_t i = 0; i < roots_.size(); ++i) roots_[i].task.reset();
  lock_client_.reset();
  for (auto& p : pubsubs_) p->reset();
  for (auto& c : cmd_) {
    if (c != nullptr) c->close();
  }
}

const runtime::Thread& LiveClient::add_thread() {
  auto t = std::make_unique<runtime::Thread>();
  t->index = static_cast<uint32_t>(threads_.size());
  t->id = t->index;
  t->name = name_ + "/t" + std::to_string(t->index);
  threads_.push_back(std::move(t));
  return *threads_.back();
}

WaitRef LiveClient::open_wait(std::coroutine_handle<> h, int32_t* result, int64_t deadline_local_us) {
  uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[index];
  s.handle = h;
  s.result = result;
  s.state = 1;
  s.deadline_local_us = deadline_local_us;
  if (deadline_local_us != kernel::CoroProcess::kNoDeadline) {
    s.timer = std::make_unique<asio::steady_timer>(loop_.io());
    arm_timer(index);
  }
  return WaitRef{index, s.gen};
}

void LiveClient::arm_timer(uint32_t index) {
  Slot& s = slots_[index];
  LS_ASSERT(s.state == 1 && s.timer != nullptr);
  const WaitRef ref{index, s.gen};
  // Setting the expiry cancels an earlier wait on the timer: its handler sees operation_aborted.
  s.timer->expires_at(loop_.at(clock_.true_time_at(s.deadline_local_us, loop_.now_us())));
  s.timer->async_wait([this, ref](boost::system::error_code ec) {
    if (!ec) complete_wait(ref, kernel::kWaitTimedOut);
  });
}

void LiveClient::change_clock(const std::function<void(kernel::LocalClock&, TimeUs)>& change) {
  change(clock_, loop_.now_us());
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].state == 1 && slots_[i].timer != nullptr) arm_timer(i);
  }
}

bool LiveClient::wait_open(WaitRef ref) const {
  return ref.valid() && ref.index < slots_.size() && slots_[ref.index].gen == ref.gen && slots_[ref.index].state == 1;
}

bool LiveClient::complete_wait(WaitRef ref, int32_t result) {
  if (!wait_open(ref)) return false;
  Slot& s = slots_[ref.index];
  *s.result = result;
  s.state = 2;
  if (s.timer != nullptr) s.timer->cancel();
  const uint32_t epoch = epoch_;
  asio::post(loop_.io(), [this, ref, epoch] {
    if (epoch != epoch_) return;
    run_step([this, ref] {
      if (ref.index >= slots_.size()) return;
      Slot& slot = slots_[ref.index];
      if (slot.gen != ref.gen || slot.state != 2) return;  // its coroutine is gone
      const std::coroutine_handle<> h = slot.handle;
      free_slot(ref.index);
      h.resume();
    });
  });
  return true;
}

void LiveClient::close_wait(WaitRef ref) {
  if (!ref.valid() || ref.index >= slots_.size() || slots_[ref.index].gen != ref.gen) return;
  if (slots_[ref.index].state == 0) return;
  free_slot(ref.index);
}

void LiveClient::free_slot(uint32_t index) {
  Slot& s = slots_[index];
  if (s.timer != nullptr) {
    s.timer->cancel();
    s.timer.reset();
  }
  s.handle = {};
  s.result = nullptr;
  s.state = 0;
  ++s.gen;
  free_slots_.push_back(index);
}

void LiveClient::run_step(std::function<void()> step) {
  if (!up_) return;
  if (paused_) {
    deferred_.push_back(std::move(step));
    return;
  }
  step();
}

runtime::TaskId LiveClient::spawn(Task<void> task) {
  LS_ASSERT(task.valid());
  uint32_t index;
  if (!free_roots_.empty()) {
    index = free_roots_.back();
    free_roots_.pop_back();
  } else {
    index = static_cast<uint32_t>(roots_.size());
    roots_.emplace_back();
  }
  Root& r = roots_[index];
  r.task = std::move(task);
  r.task.make_root(this, index);
  r.live = true;
  const uint32_t gen = r.gen;
  const uint32_t epoch = epoch_;
  asio::post(loop_.io(), [this, index, gen, epoch] {
    if (epoch == epoch_) run_step([this, index, gen] { start_root(index, gen); });
  });
  return runtime::TaskId{index, gen};
}

void LiveClient::start_root(uint32_t index, uint32_t gen) {
  Root& r = roots_[index];
  if (!r.live || r.gen != gen) return;  // cancelled before it started
  r.task.handle().resume();
}

void LiveClient::root_finished(uint32_t root_index) {
  // Called from inside the frame's final suspension: destroyed once control is back in the loop.
  const uint32_t gen = roots_[root_index].gen;
  asio::post(loop_.io(), [this, root_index, gen] {
    if (root_index < roots_.size() && roots_[root_index].gen == gen && roots_[root_index].live) destroy_root(root_index);
  });
}

void LiveClient::destroy_root(uint32_t index) {
  Root& r = roots_[index];
  r.live = false;
  ++r.gen;
  r.task.reset();
  free_roots_.push_back(index);
}

void LiveClient::cancel(runtime::TaskId id) {
  if (!running(id)) return;
  // Not from inside the coroutine being cancelled: after the current step.
  asio::post(loop_.io(), [this, id] {
    if (running(id)) destroy_root(id.index);
  });
}

bool LiveClient::running(runtime::TaskId id) const {
  return id.valid() && id.index < roots_.size() && roots_[id.index].live && roots_[id.index].gen == id.gen;
}

Task<void> LiveClient::sleep_ms(int64_t ms) {
  co_await Wait(*this, now_us() + ms_to_us(std::max<int64_t>(0, ms)));
}

Task<void> LiveClient::sleep_until_local_us(TimeUs local_us) { co_await Wait(*this, local_us); }

Task<bool> LiveClient::sleep_for(int64_t ms) {
  co_await Wait(*this, now_us() + ms_to_us(std::max<int64_t>(0, ms)));
  co_return true;
}

runtime::Connection& LiveClient::conn(size_t endpoint) {
  LS_ASSERT(endpoint < connections_.size());
  return *connections_[endpoint];
}

runtime::PubSub& LiveClient::pubsub(size_t endpoint) {
  LS_ASSERT(endpoint < pubsubs_.size());
  return *pubsubs_[endpoint];
}

std::unique_ptr<runtime::Semaphore> LiveClient::new_semaphore(int64_t permits) {
  return std::make_unique<LiveSemaphore>(*this, permits);
}

std::shared_ptr<LiveClient::Conn> LiveClient::command_conn(size_t endpoint) {
  std::shared_ptr<Conn>& c = cmd_[endpoint];
  if (c != nullptr && c->alive() && c->port() == ports_[endpoint]) return c;
  if (c != nullptr) c->close();
  c = std::make_shared<Conn>(*this, ports_[endpoint], label("cmd", endpoint));
  c->open();
  return c;
}

namespace {

// Closes a blocking call's own connection however the call ends (a reply, a timeout, its frame
// destroyed by a crash or a cancel).
template <typename C>
struct CloseOnExit {
  std::shared_ptr<C> conn;
  ~CloseOnExit() {
    if (conn != nullptr) conn->close();
  }
};

}  // namespace

Task<runtime::CallResult> LiveClient::call(size_t endpoint, std::vector<std::string> argv,
                                           runtime::CallOptions options) {
  LS_ASSERT(endpoint < ports_.size());
  LS_ASSERT(!argv.empty());
  const runtime::CallPlan plan = runtime::plan_call(options, options_);
  runtime::CallResult result;
  for (int32_t attempt = 0; attempt <= plan.retries; ++attempt) {
    CloseOnExit<Conn> own;
    std::shared_ptr<Conn> conn;
    if (options.own_connection) {
      conn = std::make_shared<Conn>(*this, ports_[endpoint], label("blocking", endpoint));
      conn->open();
      own.conn = conn;
    } else {
      conn = command_conn(endpoint);
    }
    result.attempts = attempt + 1;
    const int32_t r = co_await Wait(*this, now_us() + ms_to_us(plan.timeout_ms),
                                    [&](WaitRef ref) { conn->request(argv, ref, &result.reply, options); });
    if (r == kernel::kWaitSignalled) {
      result.status = runtime::CallStatus::kOk;
      co_return result;
    }
    if (attempt < plan.retries) co_await Wait(*this, now_us() + ms_to_us(plan.retry_interval_ms));
  }
  result.status = runtime::CallStatus::kTimeout;
  result.reply = Reply();
  co_return result;
}

const std::string& LiveClient::node_at(uint16_t port) const {
  static const std::string kNone;
  return links_ != nullptr ? links_->node_at(port) : kNone;
}

bool LiveClient::link_lost(const std::string& from, const std::string& to) {
  return links_ != nullptr && links_->lost(from, to, link_rng_);
}

bool LiveClient::link_partitioned(const std::string& from, const std::string& to) const {
  return links_ != nullptr && links_->partitioned(from, to);
}

void LiveClient::script_ran(const std::string& node, int64_t op) {
  if (on_script_ran_) on_script_ran_(node, op);
}

int64_t LiveClient::link_delay_us(const std::string& from, const std::string& to) {
  return links_ != nullptr ? links_->extra_delay_us(from, to, link_rng_) : 0;
}

bool LiveClient::lose_reply(std::string_view command, const char* script) {
  return links_ != nullptr && links_->take_lose_reply(name_, command, script);
}

std::string LiveClient::label(const char* kind, size_t endpoint) {
  const std::string& node = node_at(ports_[endpoint]);
  return name_ + "/" + kind + "@" + (node.empty() ? std::to_string(ports_[endpoint]) : node) + "#" +
         std::to_string(++conn_serial_);
}

void LiveClient::record_exec(uint16_t node_port, const MonitorLine& line, const std::string& conn,
                             const std::vector<std::string>& argv, const char* script, int64_t op,
                             const Reply& reply) {
  history::Exec e;
  e.node = node_at(node_port);
  e.seq = line.seq;
  e.local_ms = line.local_ms;
  e.conn = conn;
  e.argv = argv;
  e.script = script;
  e.op = op;
  e.reply = &reply;
  rec_.exec(line.t, e);
}

void LiveClient::record_state(uint16_t node_port, const MonitorLine& line, const std::string& key,
                              const Reply* dump) {
  std::optional<redis::KeyDump> value;
  if (dump != nullptr && dump->is_aggregate() && dump->elements.size() == 3 && dump->elements[0].str != "none") {
    redis::KeyDump d;
    d.type = dump->elements[0].str;
    for (const Reply& e : dump->elements[1].elements) d.strings.push_back(e.str);
    const int64_t at = dump->elements[2].integer;
    d.expire_at_ms = at < 0 ? -1 : at - loop_.wall_start_us() / kUsPerMs;
    value = std::move(d);
  }
  rec_.state(line.t, node_at(node_port), line.seq, key, value);
}

void LiveClient::monitor_lost(uint16_t node_port) {
  rec_.node_event(history_now(), node_at(node_port), "monitor_lost");
}

int64_t LiveClient::begin_op(const runtime::OpRecord& record) {
  return holds_.begin_op(history_now(), owner_name(*record.thread), record);
}

void LiveClient::end_op(int64_t op, const runtime::OpResult& result) { holds_.end_op(history_now(), op, result); }

void LiveClient::hold_lost(const runtime::Thread& thread, std::string_view lock, history::LockMode mode) {
  holds_.lost(history_now(), thread, lock, mode);
}

void LiveClient::fail(std::string message) {
  if (on_fail_) on_fail_(name_ + ": " + message);
}

void LiveClient::endpoint_changed(size_t endpoint) {
  if (!up_) return;
  if (cmd_[endpoint] != nullptr) cmd_[endpoint]->close();
  cmd_[endpoint].reset();
  pubsubs_[endpoint]->moved();
}

void LiveClient::pause() { paused_ = true; }

void LiveClient::resume() {
  paused_ = false;
  std::vector<std::function<void()>> steps;
  steps.swap(deferred_);
  const uint32_t epoch = epoch_;
  for (auto& step : steps) {
    asio::post(loop_.io(), [this, epoch, step = std::move(step)] {
      if (epoch == epoch_) run_step(step);
    });
  }
}

void LiveClient::crash() {
  if (!up_) return;
  up_ = false;
  paused_ = false;
  ++epoch_;
  deferred_.clear();
  for (uint32_t i = 0; i < roots_.size(); ++i) {
    if (roots_[i].live) destroy_root(i);
  }
  for (auto& p : pubsubs_) p->reset();
  for (auto& c : cmd_) {
    if (c != nullptr) c->close();
    c.reset();
  }
  holds_.end_all(history_now(), history::HoldEnd::kCrash);
  interrupts_.clear();  // the threads are gone, and their interrupt status with them
}

}  // namespace lockstep::live
