#include "sim/kernel/client_process.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "runtime/coverage_point.h"
#include "sim/core/assert.h"
#include "sim/kernel/semaphore.h"

namespace lockstep::kernel {
namespace {

std::array<char, kUuidChars> uuid_chars(const std::string& uuid) {
  LS_ASSERT(uuid.size() == kUuidChars);
  std::array<char, kUuidChars> out;
  std::copy(uuid.begin(), uuid.end(), out.begin());
  return out;
}

// Local work (not a network message): re-subscribe the channels of a shard's endpoint.
constexpr uint64_t kResubscribeBit = uint64_t{1} << 44;

}  // namespace

// --- the connection classes -------------------------------------------------------------

class ClientProcess::SimConnection : public runtime::Connection {
 public:
  SimConnection(ClientProcess& p, size_t endpoint) : p_(p), endpoint_(endpoint) {}
  Task<runtime::CallResult> call(std::vector<std::string> argv,
                                    runtime::CallOptions options) override {
    return p_.call(endpoint_, false, std::move(argv), std::move(options));
  }

 private:
  ClientProcess& p_;
  size_t endpoint_;
};

class ClientProcess::SimPubSub : public runtime::PubSub {
  using Sub = std::pair<std::string, runtime::MessageListener*>;
  template <typename Subs>  // const or not
  static auto lower_bound(Subs& subs, std::string_view channel) {
    return std::lower_bound(subs.begin(), subs.end(), channel,
                            [](const Sub& s, std::string_view c) { return std::string_view(s.first) < c; });
  }

 public:
  SimPubSub(ClientProcess& p, size_t endpoint) : p_(p), endpoint_(endpoint) {}

  Task<runtime::CallResult> subscribe(std::string channel,
                                         runtime::MessageListener* listener) override {
    LS_ASSERT(listener != nullptr);
    auto it = lower_bound(subs, channel);
    if (it != subs.end() && it->first == channel) {
      it->second = listener;
    } else {
      subs.emplace(it, channel, listener);
    }
    runtime::CallOptions o;
    o.timeout_ms = p_.options_.subscription_timeout_ms;
    o.retry_attempts = 0;
    std::vector<std::string> argv = {"SUBSCRIBE", std::move(channel)};
    return p_.call(endpoint_, true, std::move(argv), std::move(o));
  }

  Task<runtime::CallResult> unsubscribe(std::string channel) override {
    if (auto it = lower_bound(subs, channel); it != subs.end() && it->first == channel) subs.erase(it);
    runtime::CallOptions o;
    o.retry_attempts = 0;
    std::vector<std::string> argv = {"UNSUBSCRIBE", std::move(channel)};
    return p_.call(endpoint_, true, std::move(argv), std::move(o));
  }

  bool subscribed(std::string_view channel) const override { return listener(channel) != nullptr; }

  // The listener of `channel`, or null.
  runtime::MessageListener* listener(std::string_view channel) const {
    auto it = lower_bound(subs, channel);
    return it != subs.end() && it->first == channel ? it->second : nullptr;
  }

  // Listeners by channel, sorted by name (resubscription goes in this order): a sorted vector
  // rather than a std::map for the channel or two a client listens on (B5: bytes per client).
  std::vector<Sub> subs;

 private:
  ClientProcess& p_;
  size_t endpoint_;
};

struct ClientProcess::Endpoint {
  Endpoint(ClientProcess& p, size_t shard) : shard(shard), cmd(p, shard), pubsub(p, shard) {}
  size_t shard;
  SimConnection cmd;
  SimPubSub pubsub;
};

// Waits for the reply to one request, or the local deadline. Files itself in pending_ and
// removes itself however the wait ends (reply, timeout, or the coroutine being destroyed).
class ClientProcess::ReplyAwaiter {
 public:
  ReplyAwaiter(ClientProcess& p, ConnId conn, uint64_t request, int64_t deadline_us,
               redis::Reply* out)
      : p_(p), conn_(conn), request_(request), deadline_us_(deadline_us), out_(out) {}
  ReplyAwaiter(const ReplyAwaiter&) = delete;
  ReplyAwaiter& operator=(const ReplyAwaiter&) = delete;
  ~ReplyAwaiter() {
    if (!ref_.valid()) return;
    p_.cancel_wait(ref_);
    p_.remove_pending(request_);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    LS_ASSERT(p_.pending_.size() < kMaxPendingCalls);
    ref_ = p_.open_wait(h, &result_);
    p_.add_wait_timeout(ref_, deadline_us_);
    p_.pending_.push_back(PendingCall{conn_, request_, ref_, out_});
  }
  int32_t await_resume() {
    p_.remove_pending(request_);
    ref_ = WaitRef{};
    return result_;
  }

 private:
  ClientProcess& p_;
  ConnId conn_;
  uint64_t request_;
  int64_t deadline_us_;
  redis::Reply* out_;
  WaitRef ref_;
  int32_t result_ = kWaitTimedOut;
};

// --- construction ----------------------------------------------------------------------

ClientProcess::ClientProcess(SimContext& ctx, ProcessId id, std::string name, LocalClock clock,
                             const runtime::ClientOptions& options)
    : CoroProcess(*ctx.loop, id, std::move(name), clock),
      ctx_(ctx),
      options_(options),
      uuid_(uuid_chars(make_uuid(ctx.rng->stream("client-uuid/" + this->name())))),
      rng_(ctx.rng->stream("client/" + this->name())),
      holds_(*ctx.rec) {
  LS_ASSERT(ctx_.cluster != nullptr && ctx_.cluster->shards() > 0);
  LS_ASSERT(options_.timeout_ms >= 0 && options_.retry_attempts >= 0);
  // Reserved: conn() and pubsub() hand out references into it.
  endpoints_.reserve(ctx_.cluster->shards());
  for (size_t e = 0; e < ctx_.cluster->shards(); ++e) endpoints_.emplace_back(*this, e);
}

size_t ClientProcess::endpoints() const { return endpoints_.size(); }

ClientProcess::~ClientProcess() {
  // Coroutine frames reference pending_ and the lock client: destroy them first.
  destroy_all_roots();
  lock_client_.reset();
}

runtime::Connection& ClientProcess::conn(size_t endpoint) {
  LS_ASSERT(endpoint < endpoints_.size());
  return endpoints_[endpoint].cmd;
}

runtime::PubSub& ClientProcess::pubsub(size_t endpoint) {
  LS_ASSERT(endpoint < endpoints_.size());
  return endpoints_[endpoint].pubsub;
}

int64_t ClientProcess::replicas(size_t endpoint) const {
  LS_ASSERT(endpoint < endpoints_.size());
  const size_t shard = endpoints_[endpoint].shard;
  const NodeProcess* master = ctx_.cluster->master(shard);
  int64_t n = 0;
  for (const NodeProcess* node : ctx_.cluster->nodes(shard)) {
    if (node != master && node->up()) ++n;
  }
  LS_ASSERT(n >= 0);
  return n;
}

const runtime::Thread& ClientProcess::add_thread() {
  LS_ASSERT(threads_.size() < kMaxThreads);
  auto t = std::make_unique<runtime::Thread>();
  t->index = static_cast<uint32_t>(threads_.size());
  t->id = t->index;
  t->name = name() + "/t" + std::to_string(t->index);
  threads_.push_back(std::move(t));
  return *threads_.back();
}

void ClientProcess::override_script(std::string replaces, const runtime::Script* with) {
  LS_ASSERT(with != nullptr);
  rare_.for_write().script_overrides.emplace_back(std::move(replaces), with);
}

const runtime::Script& ClientProcess::script(const runtime::Script& script) const {
  for (const auto& [replaces, with] : rare_.get().script_overrides) {
    if (replaces == script.name) return *with;
  }
  return script;
}

void ClientProcess::set_lock_client(std::unique_ptr<runtime::LockClient> client) {
  LS_ASSERT(client != nullptr);
  LS_ASSERT(lock_client_ == nullptr);
  lock_client_ = std::move(client);
}

// --- time, tasks, semaphores -----------------------------------------------------------

Task<void> ClientProcess::sleep_ms(int64_t ms) {
  co_await sleep_until(*this, local_us() + ms_to_us(std::max<int64_t>(0, ms)));
}

Task<void> ClientProcess::sleep_until_local_us(TimeUs local_us) {
  co_await sleep_until(*this, local_us);
}

Task<bool> ClientProcess::sleep_for(int64_t ms) {
  co_await sleep_until(*this, local_us() + ms_to_us(std::max<int64_t>(0, ms)));
  co_return true;
}

std::unique_ptr<runtime::Semaphore> ClientProcess::new_semaphore(int64_t permits) {
  return std::make_unique<SimSemaphore>(*this, permits);
}

runtime::TaskId ClientProcess::spawn(Task<void> task) {
  const RootId r = CoroProcess::spawn(std::move(task));
  return runtime::TaskId{r.index, r.gen};
}

void ClientProcess::cancel(runtime::TaskId id) {
  if (!id.valid()) return;
  CoroProcess::cancel(RootId{id.index, id.gen});
}

void ClientProcess::fail(std::string message) { ctx_.loop->fail(name() + ": " + message); }

bool ClientProcess::running(runtime::TaskId id) const {
  return id.valid() && alive(RootId{id.index, id.gen});
}

// --- interrupts --------------------------------------------------------------------------

Task<bool> ClientProcess::interruptible(const runtime::Thread& thread, Task<bool> wait,
                                        runtime::Interrupt* interrupted) {
  return interrupts_.interruptible(thread.index, std::move(wait), interrupted);
}

runtime::Interrupt ClientProcess::take_interrupt(const runtime::Thread& thread) {
  return interrupts_.take(thread.index);
}

void ClientProcess::interrupt_thread(uint32_t index, runtime::Interrupt kind) {
  if (!up() || index >= threads_.size()) return;  // a dead client's threads are gone
  interrupts_.interrupt(index, kind);
}

void ClientProcess::call_started(uint32_t index, bool cancellable) { interrupts_.call_started(index, cancellable); }

void ClientProcess::call_ended(uint32_t index) { interrupts_.call_ended(index); }

// --- connections and calls -------------------------------------------------------------

ConnId ClientProcess::connection_to(ProcessId node, bool pubsub) {
  auto it = std::find_if(conns_.begin(), conns_.end(),
                         [node](const NodeConns& c) { return c.node == node; });
  if (it == conns_.end()) {
    conns_.push_back(NodeConns{node});
    it = conns_.end() - 1;
  }
  ConnId& id = pubsub ? it->pubsub : it->cmd;
  if (id == UINT32_MAX) {
    const std::string& node_name = ctx_.net->process(node).name();
    const std::string kind = pubsub ? "/pubsub" : "/cmd";
    const std::string label =
        name() + kind + "@" + node_name + "#" + std::to_string(++conn_serial_);
    id = ctx_.net->connect(this->id(), node, label, pubsub ? ConnName::kPubSub : ConnName::kClient, 0);
  }
  return id;
}

ConnId ClientProcess::open_own_connection(ProcessId node) {
  const std::string label = name() + "/blocking@" + ctx_.net->process(node).name() + "#" + std::to_string(++conn_serial_);
  const ConnId conn = ctx_.net->connect(this->id(), node, label, ConnName::kClient, 0);
  rare_.for_write().own_conns.push_back(conn);
  return conn;
}

void ClientProcess::close_own_connection(ConnId conn) {
  if (!rare_) return;  // closed already (a crash)
  std::vector<ConnId>& own = rare_.for_write().own_conns;
  auto it = std::find(own.begin(), own.end(), conn);
  if (it == own.end()) return;  // closed already (a crash)
  own.erase(it);
  const uint32_t slot = ctx_.net->alloc();
  ctx_.net->msg(slot).kind = MsgKind::kClose;
  ctx_.net->send(conn, /*up=*/true, slot);
}

// Closes a blocking call's connection when the call's frame goes, however it ends.
class ClientProcess::OwnConnection {
 public:
  OwnConnection(ClientProcess& p, ConnId conn) : p_(p), conn_(conn) {}
  OwnConnection(const OwnConnection&) = delete;
  OwnConnection& operator=(const OwnConnection&) = delete;
  ~OwnConnection() { p_.close_own_connection(conn_); }

 private:
  ClientProcess& p_;
  ConnId conn_;
};

void ClientProcess::close_connections_to(ProcessId node) {
  auto it = std::find_if(conns_.begin(), conns_.end(),
                         [node](const NodeConns& c) { return c.node == node; });
  if (it == conns_.end()) return;
  for (ConnId c : {it->cmd, it->pubsub}) {
    if (c == UINT32_MAX) continue;
    const uint32_t slot = ctx_.net->alloc();
    ctx_.net->msg(slot).kind = MsgKind::kClose;
    ctx_.net->send(c, /*up=*/true, slot);
  }
  conns_.erase(it);
}

void ClientProcess::remove_pending(uint64_t request) {
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].request == request) {
      pending_[i] = pending_.back();
      pending_.pop_back();
      return;
    }
  }
}

Task<runtime::CallResult> ClientProcess::call(size_t endpoint, bool pubsub,
                                                 std::vector<std::string> argv,
                                                 runtime::CallOptions options) {
  LS_ASSERT(endpoint < endpoints_.size());
  LS_ASSERT(!argv.empty());
  const runtime::CallPlan plan = runtime::plan_call(options, options_);
  const int64_t timeout_ms = plan.timeout_ms;
  const int32_t retries = plan.retries;
  const int64_t interval_ms = plan.retry_interval_ms;
  runtime::CallResult result;
  LS_ASSERT(!(options.own_connection && pubsub));
  for (int32_t attempt = 0; attempt <= retries; ++attempt) {
    NodeProcess* node = ctx_.cluster->master(endpoints_[endpoint].shard);
    const ConnId conn = options.own_connection ? open_own_connection(node->id()) : connection_to(node->id(), pubsub);
    std::optional<OwnConnection> closing;  // a blocking call's connection ends with the attempt
    if (options.own_connection) closing.emplace(*this, conn);
    const uint64_t request = next_request_++;
    const uint32_t slot = ctx_.net->alloc();
    Message& m = ctx_.net->msg(slot);
    m.kind = MsgKind::kRequest;
    m.id = request;
    m.op = options.op;
    m.script = options.script;
    // The last attempt gives the message the arguments instead of a copy: a herd of callers
    // would otherwise hold every argument twice while their calls are in flight.
    if (attempt == retries) {
      m.take_args(std::move(argv));
    } else {
      m.set_args(argv);
    }
    m.state_keys = options.state_keys;
    ctx_.net->send(conn, /*up=*/true, slot);
    result.attempts = attempt + 1;
    const int32_t r = co_await ReplyAwaiter(*this, conn, request,
                                            local_us() + ms_to_us(timeout_ms), &result.reply);
    if (r == kWaitSignalled) {
      result.status = runtime::CallStatus::kOk;
      co_return result;
    }
    if (attempt < retries) {
      cover(runtime::coverage::kCommandResent);
      co_await sleep_until(*this, local_us() + ms_to_us(interval_ms));
    }
  }
  cover(runtime::coverage::kCommandTimedOut);
  result.status = runtime::CallStatus::kTimeout;
  result.reply = redis::Reply();
  co_return result;
}

// --- deliveries --------------------------------------------------------------------------

void ClientProcess::handle_message(uint64_t payload) {
  if (payload & kResubscribeBit) {
    resubscribe(static_cast<size_t>(payload & 0xffffffffu));
    return;
  }
  const uint32_t slot = static_cast<uint32_t>(payload);
  switch (ctx_.net->msg(slot).kind) {
    case MsgKind::kReply:
      on_reply(slot);
      return;
    case MsgKind::kPush:
      on_push(slot);
      return;
    default:
      ctx_.net->release(slot);  // clients receive nothing else
      return;
  }
}

void ClientProcess::drop_message(uint64_t payload) {
  if ((payload & kResubscribeBit) == 0) ctx_.net->release(static_cast<uint32_t>(payload));
}

void ClientProcess::on_reply(uint32_t slot) {
  Message& m = ctx_.net->msg(slot);
  for (const PendingCall& p : pending_) {
    if (p.request != m.id || p.conn != m.conn) continue;
    const WaitRef ref = p.ref;
    *p.out = std::move(m.reply);
    ctx_.net->release(slot);
    complete_wait_inline(ref, kWaitSignalled);
    return;
  }
  ctx_.net->release(slot);  // a late reply: its attempt already timed out
}

void ClientProcess::on_push(uint32_t slot) {
  Message& m = ctx_.net->msg(slot);
  const redis::Reply& r = m.reply;
  const bool message = r.type == redis::Reply::Type::kArray && r.elements.size() == 3 &&
                       r.elements[0].str == "message";
  SimPubSub* target = nullptr;
  for (const NodeConns& c : conns_) {
    if (c.pubsub != m.conn) continue;
    const size_t shard = ctx_.cluster->shard_of(
        static_cast<const NodeProcess*>(&ctx_.net->process(c.node)));
    target = &endpoints_[shard].pubsub;
  }
  if (!message || target == nullptr) {
    ctx_.net->release(slot);
    return;
  }
  const std::string channel = r.elements[1].str;
  const std::string payload = r.elements[2].str;
  ctx_.net->release(slot);
  ctx_.rec->deliver(now(), name(), channel, payload);
  if (runtime::MessageListener* l = target->listener(channel)) l->on_message(channel, payload);
}

void ClientProcess::endpoint_changed(size_t shard) {
  if (!up()) return;
  post(kResubscribeBit | shard);
}

void ClientProcess::resubscribe(size_t shard) {
  LS_ASSERT(shard < endpoints_.size());
  const ProcessId master = ctx_.cluster->master(shard)->id();
  // Connections to a node that is no longer this shard's master are closed (Redisson drops
  // them when the topology changes).
  for (NodeProcess* n : ctx_.cluster->nodes(shard)) {
    if (n->id() != master) close_connections_to(n->id());
  }
  const SimPubSub& ps = endpoints_[shard].pubsub;
  if (ps.subs.empty()) return;
  const ConnId conn = connection_to(master, true);
  for (const auto& [channel, listener] : ps.subs) {
    const uint32_t slot = ctx_.net->alloc();
    Message& m = ctx_.net->msg(slot);
    m.kind = MsgKind::kRequest;
    m.id = next_request_++;  // nobody waits for this reply: it is dropped as late
    m.push_arg("SUBSCRIBE");
    m.push_arg(channel);
    ctx_.net->send(conn, /*up=*/true, slot);
  }
}

// --- history -------------------------------------------------------------------------------

int64_t ClientProcess::begin_op(const runtime::OpRecord& record) {
  return holds_.begin_op(now(), owner_name(*record.thread), record);
}

void ClientProcess::end_op(int64_t op, const runtime::OpResult& result) { holds_.end_op(now(), op, result); }

void ClientProcess::hold_lost(const runtime::Thread& thread, std::string_view lock,
                              history::LockMode mode) {
  holds_.lost(now(), thread, lock, mode);
}

// --- crash ---------------------------------------------------------------------------------

void ClientProcess::crash_client() { crash(); }

void ClientProcess::after_crash() {
  LS_ASSERT(pending_.empty());  // every ReplyAwaiter removed itself with its frame
  while (!conns_.empty()) close_connections_to(conns_.back().node);
  while (!rare_.get().own_conns.empty()) close_own_connection(rare_.get().own_conns.back());
  for (Endpoint& ep : endpoints_) ep.pubsub.subs.clear();
  holds_.end_all(now(), history::HoldEnd::kCrash);
  interrupts_.clear();  // the threads are gone, and their interrupt status with them
}

}  // namespace lockstep::kernel
