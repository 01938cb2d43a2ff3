#include "sim/kernel/node_process.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/kernel/cluster.h"

namespace lockstep::kernel {
namespace {

// Timer tags.
constexpr uint64_t kTagActiveExpire = 1;
constexpr uint64_t kTagPersist = 2;
constexpr uint64_t kTagBlockTimeout = 3;
constexpr uint64_t kTagWaitBase = 16;  // + wait id

bool equals_upper(std::string_view a, std::string_view upper) {
  if (a.size() != upper.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != upper[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view to_string(Persistence p) {
  switch (p) {
    case Persistence::kNone: return "none";
    case Persistence::kAofAlways: return "aof-always";
    case Persistence::kAofEverysec: return "aof-everysec";
    case Persistence::kRdb: return "rdb";
  }
  return "none";
}

NodeProcess::NodeProcess(SimContext& ctx, ProcessId id, std::string name, LocalClock clock,
                         const NodeOptions& options, const NodeModelFactory& factory)
    : Process(*ctx.loop, id, std::move(name), clock), ctx_(ctx), options_(options) {
  LS_ASSERT(factory != nullptr);
  LS_ASSERT(options_.active_expire_interval_ms > 0);
  model_ = factory(make_config());
  LS_ASSERT(model_ != nullptr);
  start_timers();
}

NodeProcess::~NodeProcess() = default;

redis::NodeConfig NodeProcess::make_config() {
  redis::NodeConfig config;
  config.clock_us = [this] { return local_us(); };
  config.lua_instruction_budget = options_.lua_instruction_budget;
  if (ctx_.coverage != nullptr) config.line_counts = &line_counts_;
  config.hooks.on_message = [this](redis::ConnectionId c, const redis::Reply& m) {
    on_message_hook(c, m);
  };
  config.hooks.on_propagate = [this](std::span<const std::string> effect, uint64_t) {
    on_propagate_hook(effect);
  };
  config.hooks.on_expire = [this](std::string_view key, int64_t local_ms) {
    ctx_.rec->expire(now(), name(), key, local_ms);
  };
  config.hooks.on_wait = [this](redis::ConnectionId, int64_t numreplicas, int64_t timeout_ms) {
    on_wait_hook(numreplicas, timeout_ms);
  };
  config.hooks.on_block = [this](redis::ConnectionId, int64_t deadline_ms) { on_block_hook(deadline_ms); };
  config.hooks.on_unblock = [this](redis::ConnectionId c, const redis::Reply& r) { unblocked_.emplace_back(c, r); };
  return config;
}

void NodeProcess::start_timers() {
  LS_ASSERT(up());
  add_timer(local_us() + ms_to_us(options_.active_expire_interval_ms), kTagActiveExpire);
  if (options_.persistence == Persistence::kAofEverysec) {
    add_timer(local_us() + ms_to_us(1000), kTagPersist);
  } else if (options_.persistence == Persistence::kRdb) {
    add_timer(local_us() + ms_to_us(options_.rdb_interval_ms), kTagPersist);
  }
}

std::vector<NodeProcess*> NodeProcess::replicas() const {
  std::vector<NodeProcess*> out;
  for (const ReplicaLink& l : links_) out.push_back(l.replica);
  return out;
}

void NodeProcess::ConnIndex::add(uint64_t sconn, ConnId conn) {
  LS_ASSERT(conn != kNone);
  if (conns_.empty()) first_ = sconn;
  LS_ASSERT(sconn >= first_ + conns_.size());
  // A network connection opens one model connection per node incarnation (clear() starts a new
  // one), and a late message after a close at most one more: the slots stay bounded.
  LS_ASSERT(sconn - first_ < size_t{Network::kMaxConnections} * 4);
  conns_.resize(static_cast<size_t>(sconn - first_), kNone);
  conns_.push_back(conn);
}

void NodeProcess::ConnIndex::erase(uint64_t sconn) {
  if (sconn < first_ || sconn - first_ >= conns_.size()) return;
  conns_[static_cast<size_t>(sconn - first_)] = kNone;
}

const ConnId* NodeProcess::ConnIndex::find(uint64_t sconn) const {
  if (sconn < first_ || sconn - first_ >= conns_.size()) return nullptr;
  const ConnId& conn = conns_[static_cast<size_t>(sconn - first_)];
  return conn == kNone ? nullptr : &conn;
}

void NodeProcess::ConnIndex::clear() {
  conns_.clear();
  first_ = 0;
}

uint64_t& NodeProcess::server_conn(ConnId conn) {
  Connection& c = ctx_.net->connection(conn);
  if (!c.server_open || c.server_epoch != epoch()) {
    c.server_conn = model_->connect();
    c.server_epoch = epoch();
    c.server_open = true;
    conn_of_server_.add(c.server_conn, conn);
  }
  return c.server_conn;
}

void NodeProcess::handle_work(uint64_t slot64) {
  const uint32_t slot = static_cast<uint32_t>(slot64);
  Message& m = ctx_.net->msg(slot);
  switch (m.kind) {
    case MsgKind::kRequest:
      on_request(slot);
      return;
    case MsgKind::kReplicate:
      on_replicate(slot);
      return;
    case MsgKind::kAck:
      on_ack(slot);
      return;
    case MsgKind::kClose: {
      Connection& c = ctx_.net->connection(m.conn);
      if (c.server_open && c.server_epoch == epoch()) {
        model_->disconnect(c.server_conn);
        conn_of_server_.erase(c.server_conn);
        c.server_open = false;
      }
      if (auto pop = pops_.find(m.conn); pop != pops_.end()) {
        // A blocked pop's connection closed: the model forgot it; so do we, with what it queued.
        ctx_.net->release(pop->second);
        pops_.erase(pop);
        auto queued = blocked_.find(m.conn);
        LS_ASSERT(queued != blocked_.end());
        for (uint32_t s : queued->second) ctx_.net->release(s);
        blocked_.erase(queued);
      }
      ctx_.net->release(slot);
      return;
    }
    case MsgKind::kReply:
    case MsgKind::kPush:
      break;
  }
  LS_ASSERT(false);  // nodes receive no replies or pushes
}

void NodeProcess::drop_work(uint64_t slot) { ctx_.net->release(static_cast<uint32_t>(slot)); }

void NodeProcess::on_request(uint32_t slot) {
  const ConnId conn = ctx_.net->msg(slot).conn;
  auto blocked = blocked_.find(conn);
  if (blocked != blocked_.end()) {
    // Redis does not read a connection's next command while it is blocked in WAIT.
    LS_ASSERT(blocked->second.size() < kMaxQueuedPerConnection);
    blocked->second.push_back(slot);
    return;
  }
  execute(slot);
}

void NodeProcess::execute(uint32_t slot) {
  Message& m = ctx_.net->msg(slot);
  LS_ASSERT(m.kind == MsgKind::kRequest);
  LS_ASSERT(m.argc > 0);
  const uint64_t sconn = server_conn(m.conn);
  std::string_view argv[64];
  std::vector<std::string_view> big;
  std::span<const std::string_view> args;
  if (m.argc <= 64) {
    for (uint32_t i = 0; i < m.argc; ++i) argv[i] = m.args[i];
    args = std::span<const std::string_view>(argv, m.argc);
  } else {
    big.assign(m.args.begin(), m.args.begin() + m.argc);
    args = big;
  }
  replies_.clear();
  publishes_.clear();
  current_slot_ = slot;
  wait_taken_ = false;
  pop_blocked_ = false;
  if (ctx_.coverage != nullptr && m.script != nullptr) {
    line_counts_.current = ctx_.coverage->lines_for(m.script);
  }
  model_->execute(sconn, args, replies_);
  line_counts_.current = nullptr;
  current_slot_ = UINT32_MAX;
  flush_effects();
  if (wait_taken_) {  // the slot now belongs to a pending WAIT, which may be satisfied already
    check_waits();
    if (!unblocked_.empty()) answer_unblocked();
    return;
  }
  if (pop_blocked_) return;  // the slot now belongs to a blocked pop
  redis::Reply r = replies_.size() == 1 ? std::move(replies_[0]) : redis::Reply::array(std::move(replies_));
  record_exec(slot, &r);
  record_publishes();
  // A script that ran (not an EVALSHA the node answered NOSCRIPT without running anything).
  if (ctx_.exec_observer != nullptr && m.script != nullptr && m.op >= 0 &&
      !(r.is_error() && r.str.starts_with("NOSCRIPT"))) {
    ctx_.exec_observer->script_executed(id(), ctx_.net->connection(m.conn).client, m.op);
  }
  if (!lose_reply(slot)) reply(m.conn, m.id, std::move(r));
  ctx_.net->release(slot);
  if (!unblocked_.empty()) answer_unblocked();  // pops this command's pushes served
}

void NodeProcess::on_block_hook(int64_t deadline_ms) {
  LS_ASSERT(current_slot_ != UINT32_MAX);
  LS_ASSERT(!pop_blocked_);
  pop_blocked_ = true;
  const ConnId conn = ctx_.net->msg(current_slot_).conn;
  const bool fresh = pops_.emplace(conn, current_slot_).second;
  LS_ASSERT(fresh);
  blocked_[conn];  // its next requests wait
  record_exec(current_slot_, nullptr, /*blocked=*/true);  // its answer is recorded when it comes
  // Redis times a blocked client out once its clock is past the deadline.
  if (deadline_ms > 0) add_timer(ms_to_us(deadline_ms + 1), kTagBlockTimeout);
}

void NodeProcess::answer_unblocked() {
  if (answering_) return;  // the outer call answers what nested executions add
  answering_ = true;
  while (!unblocked_.empty()) {
    auto [sconn, r] = std::move(unblocked_.front());
    unblocked_.pop_front();
    const ConnId* found = conn_of_server_.find(sconn);
    LS_ASSERT(found != nullptr);
    const ConnId conn = *found;
    auto pop = pops_.find(conn);
    LS_ASSERT(pop != pops_.end());
    const uint32_t slot = pop->second;
    pops_.erase(pop);
    record_exec(slot, &r);
    if (!lose_reply(slot)) reply(conn, ctx_.net->msg(slot).id, std::move(r));
    ctx_.net->release(slot);
    unblock(conn);
  }
  answering_ = false;
}

bool NodeProcess::lose_reply(uint32_t slot) {
  const Message& m = ctx_.net->msg(slot);
  const ProcessId client = ctx_.net->connection(m.conn).client;
  return ctx_.net->take_lose_reply(client, m.args[0], m.script);
}

void NodeProcess::record_exec(uint32_t slot, const redis::Reply* r, bool blocked) {
  Message& m = ctx_.net->msg(slot);
  ++seq_;
  if (!ctx_.rec->enabled()) return;
  history::Exec e;
  e.node = name();
  e.seq = seq_;
  e.local_ms = local_ms();
  ctx_.net->name_into(m.conn, conn_name_);
  e.conn = conn_name_;
  e.argv = std::span<const std::string>(m.args.data(), m.argc);
  e.script = m.script;
  e.op = m.op;
  e.reply = r;
  e.blocked = blocked;
  ctx_.rec->exec(now(), e);
  if (blocked) return;  // nothing changed yet
  for (const std::string& key : m.state_keys) {
    ctx_.rec->state(now(), name(), seq_, key, model_->inspect(key));
  }
}

void NodeProcess::record_publishes() {
  for (const Publish& p : publishes_) {
    ctx_.rec->publish(now(), name(), p.channel, p.message, p.receivers);
  }
  publishes_.clear();
}

void NodeProcess::reply(ConnId conn, uint64_t request_id, redis::Reply r) {
  const uint32_t out = ctx_.net->alloc();
  Message& m = ctx_.net->msg(out);
  m.kind = MsgKind::kReply;
  m.id = request_id;
  m.reply = std::move(r);
  ctx_.net->send(conn, /*up=*/false, out);
}

void NodeProcess::on_message_hook(uint64_t sconn, const redis::Reply& message) {
  LS_ASSERT(message.type == redis::Reply::Type::kArray);
  LS_ASSERT(message.elements.size() >= 3);
  const std::string& channel = message.elements[message.elements.size() - 2].str;
  const std::string& payload = message.elements.back().str;
  bool found = false;
  for (Publish& p : publishes_) {
    if (p.channel == channel && p.message == payload) {
      ++p.receivers;
      found = true;
      break;
    }
  }
  if (!found) publishes_.push_back(Publish{channel, payload, 1});
  const ConnId* to = conn_of_server_.find(sconn);
  if (to == nullptr) return;  // a connection from an older incarnation
  const uint32_t out = ctx_.net->alloc();
  Message& m = ctx_.net->msg(out);
  m.kind = MsgKind::kPush;
  m.reply = message;
  ctx_.net->send(*to, /*up=*/false, out);
}

void NodeProcess::on_propagate_hook(std::span<const std::string> effect) {
  LS_ASSERT(!effect.empty());
  LS_ASSERT(pending_effects_.size() < kMaxBacklog);
  if (equals_upper(effect[0], "PUBLISH") && effect.size() == 3) {
    bool seen = false;
    for (const Publish& p : publishes_) seen = seen || (p.channel == effect[1] && p.message == effect[2]);
    if (!seen) publishes_.push_back(Publish{effect[1], effect[2], 0});
  }
  pending_effects_.push_back(std::to_string(effect.size()));
  pending_effects_.insert(pending_effects_.end(), effect.begin(), effect.end());
}

void NodeProcess::handle_timer(uint64_t tag) {
  LS_ASSERT(up());
  if (tag == kTagActiveExpire) {
    publishes_.clear();
    model_->active_expire_cycle();
    flush_effects();
    add_timer(local_us() + ms_to_us(options_.active_expire_interval_ms), kTagActiveExpire);
    return;
  }
  if (tag == kTagPersist) {
    persist_tick();
    return;
  }
  if (tag == kTagBlockTimeout) {
    model_->time_out_blocked();
    answer_unblocked();
    return;
  }
  LS_ASSERT(tag >= kTagWaitBase);
  const uint64_t wait_id = tag - kTagWaitBase;
  for (size_t i = 0; i < waits_.size(); ++i) {
    if (waits_[i].id == wait_id) {
      answer_wait(i);
      return;
    }
  }
}

void NodeProcess::persist_tick() {
  LS_ASSERT(options_.persistence == Persistence::kAofEverysec ||
            options_.persistence == Persistence::kRdb);
  if (dirty_) {
    durable_ = model_->snapshot();
    dirty_ = false;
  }
  const int64_t period_ms =
      options_.persistence == Persistence::kRdb ? options_.rdb_interval_ms : 1000;
  add_timer(local_us() + ms_to_us(period_ms), kTagPersist);
}

void NodeProcess::on_crash() {
  if (options_.persistence == Persistence::kAofAlways) {
    durable_ = model_->snapshot();  // fsync always: everything executed was on disk
    dirty_ = false;
  }
  for (PendingWait& w : waits_) ctx_.net->release(w.request_slot);
  waits_.clear();
  for (auto& [conn, slot] : pops_) ctx_.net->release(slot);
  pops_.clear();
  unblocked_.clear();
  for (auto& [conn, queued] : blocked_) {
    for (uint32_t slot : queued) ctx_.net->release(slot);
  }
  blocked_.clear();
  for (ReplicaLink& link : links_) {
    for (uint32_t slot : link.backlog) ctx_.net->release(slot);
    link.backlog.clear();
  }
  pending_effects_.clear();
  conn_of_server_.clear();
}

void NodeProcess::crash_node() {
  crash();
  ctx_.rec->node_event(now(), name(), "crashed");
}

std::map<std::string, std::optional<redis::KeyDump>> NodeProcess::dump_all() {
  std::map<std::string, std::optional<redis::KeyDump>> out;
  for (const std::string& key : model_->keys_sorted()) out[key] = model_->inspect(key);
  return out;
}

std::vector<std::string> NodeProcess::diff_keys(
    const std::map<std::string, std::optional<redis::KeyDump>>& before) {
  std::vector<std::string> lost;
  for (const auto& [key, value] : before) {
    std::optional<redis::KeyDump> now_value = model_->inspect(key);
    const bool same = now_value.has_value() == value.has_value() &&
                      (!value.has_value() || (now_value->type == value->type &&
                                              now_value->strings == value->strings &&
                                              now_value->expire_at_ms == value->expire_at_ms));
    if (!same) lost.push_back(key);
  }
  for (const std::string& key : model_->keys_sorted()) {
    if (before.count(key) == 0) lost.push_back(key);  // resurrected from an older snapshot
  }
  std::sort(lost.begin(), lost.end());
  return lost;
}

void NodeProcess::restart_node(bool record_loss) {
  const auto before = dump_all();
  model_->reset();
  if (durable_ != nullptr && options_.persistence != Persistence::kNone) model_->restore(*durable_);
  restart();
  const std::vector<std::string> lost = diff_keys(before);
  if (record_loss && !lost.empty()) ctx_.rec->data_loss(now(), name(), "restart", lost);
  ctx_.rec->node_event(now(), name(), "restarted");
  start_timers();
}

}  // namespace lockstep::kernel
