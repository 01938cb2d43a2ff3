// NodeProcess: replication, acknowledgements, WAIT and full resyncs.
#include <algorithm>
#include <charconv>

#include "sim/core/assert.h"
#include "sim/kernel/cluster.h"
#include "sim/kernel/node_process.h"

namespace lockstep::kernel {
namespace {
constexpr uint64_t kTagWaitBase = 16;
constexpr size_t kMaxWaitRounds = 1'000'000;
}  // namespace

void NodeProcess::flush_effects() {
  if (pending_effects_.empty()) return;
  dirty_ = true;
  if (!is_master()) {
    // A replica's own effects (if the model reports applied ones) only dirty its persistence.
    pending_effects_.clear();
    return;
  }
  ++offset_;
  for (ReplicaLink& link : links_) {
    const uint32_t slot = ctx_.net->alloc();
    Message& m = ctx_.net->msg(slot);
    m.kind = MsgKind::kReplicate;
    m.id = offset_;
    m.set_args(pending_effects_);
    send_to_replica(link, slot);
  }
  pending_effects_.clear();
}

void NodeProcess::send_to_replica(ReplicaLink& link, uint32_t slot) {
  LS_ASSERT(link.backlog.size() < kMaxBacklog);
  if (!link.backlog.empty() || ctx_.net->blocked(id(), link.replica->id())) {
    link.backlog.push_back(slot);  // partitioned: keep it for the partial resync
    return;
  }
  ctx_.net->send(link.conn, /*up=*/true, slot);
}

void NodeProcess::flush_backlogs() {
  if (!up()) return;
  for (ReplicaLink& link : links_) {
    while (!link.backlog.empty() && !ctx_.net->blocked(id(), link.replica->id())) {
      const uint32_t slot = link.backlog.front();
      link.backlog.pop_front();
      ctx_.net->send(link.conn, /*up=*/true, slot);
    }
  }
}

void NodeProcess::on_replicate(uint32_t slot) {
  Message& m = ctx_.net->msg(slot);
  if (master_ == nullptr || m.conn != master_conn_) {
    ctx_.net->release(slot);  // from a master this node no longer follows
    return;
  }
  uint32_t i = 0;
  while (i < m.argc) {
    size_t n = 0;
    const std::string& count = m.args[i];
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    LS_ASSERT(ec == std::errc() && end == count.data() + count.size());
    LS_ASSERT(n > 0 && i + 1 + n <= m.argc);
    model_->apply_replicated(std::span<const std::string>(m.args.data() + i + 1, n));
    i += 1 + static_cast<uint32_t>(n);
  }
  pending_effects_.clear();
  offset_ = m.id;
  dirty_ = true;
  const ConnId conn = m.conn;
  ctx_.net->release(slot);
  const uint32_t ack = ctx_.net->alloc();
  ctx_.net->msg(ack).kind = MsgKind::kAck;
  ctx_.net->msg(ack).id = offset_;
  ctx_.net->send(conn, /*up=*/false, ack);
}

void NodeProcess::on_ack(uint32_t slot) {
  const Message& m = ctx_.net->msg(slot);
  for (ReplicaLink& link : links_) {
    if (link.conn == m.conn) link.acked = std::max(link.acked, m.id);
  }
  ctx_.net->release(slot);
  check_waits();
}

int64_t NodeProcess::acked_count(uint64_t target) const {
  int64_t n = 0;
  for (const ReplicaLink& link : links_) n += link.acked >= target ? 1 : 0;
  return n;
}

void NodeProcess::on_wait_hook(int64_t numreplicas, int64_t timeout_ms) {
  LS_ASSERT(current_slot_ != UINT32_MAX);
  LS_ASSERT(!wait_taken_);
  wait_taken_ = true;
  const ConnId conn = ctx_.net->msg(current_slot_).conn;
  PendingWait w{next_wait_++, conn, current_slot_, offset_, numreplicas};
  waits_.push_back(w);
  blocked_[conn];  // block the connection (possibly with an empty queue)
  if (timeout_ms > 0) add_timer(local_us() + ms_to_us(timeout_ms), kTagWaitBase + w.id);
}

void NodeProcess::check_waits() {
  for (size_t round = 0; round < kMaxWaitRounds; ++round) {
    size_t i = 0;
    while (i < waits_.size() && acked_count(waits_[i].target) < waits_[i].numreplicas) ++i;
    if (i == waits_.size()) return;
    answer_wait(i);
  }
  LS_ASSERT(false);
}

void NodeProcess::answer_wait(size_t index) {
  LS_ASSERT(index < waits_.size());
  const PendingWait w = waits_[index];
  waits_.erase(waits_.begin() + static_cast<long>(index));
  redis::Reply r = redis::Reply::integer_of(acked_count(w.target));
  record_exec(w.request_slot, &r);
  if (!lose_reply(w.request_slot)) reply(w.conn, ctx_.net->msg(w.request_slot).id, std::move(r));
  ctx_.net->release(w.request_slot);
  unblock(w.conn);
}

void NodeProcess::unblock(ConnId conn) {
  auto it = blocked_.find(conn);
  LS_ASSERT(it != blocked_.end());
  std::deque<uint32_t> queued = std::move(it->second);
  blocked_.erase(it);
  while (!queued.empty()) {
    const uint32_t slot = queued.front();
    queued.pop_front();
    execute(slot);
    auto again = blocked_.find(conn);
    if (again != blocked_.end()) {
      // Another WAIT blocked it: the rest waits behind that one, in order.
      for (uint32_t s : queued) again->second.push_back(s);
      return;
    }
  }
}

ConnId NodeProcess::open_replication(NodeProcess* replica) {
  ++link_serial_;
  const std::string label =
      name() + "->" + replica->name() + "/repl#" + std::to_string(link_serial_);
  return ctx_.net->connect(id(), replica->id(), label, ConnName::kToServer, 0,
                           ctx_.cluster->replication_lag());
}

void NodeProcess::attach_replica(NodeProcess* replica) {
  LS_ASSERT(is_master());
  LS_ASSERT(replica != this && replica->master_ == nullptr);
  const ConnId conn = open_replication(replica);
  links_.push_back(ReplicaLink{replica, conn, 0, {}});
  replica->master_ = this;
  replica->master_conn_ = conn;
  replica->model_->set_replica(true);
  replica->answer_unblocked();  // its blocked pops were refused (UNBLOCKED)
  if (replica->up()) replica->resync();
}

void NodeProcess::detach_replica(NodeProcess* replica) {
  auto it = std::find_if(links_.begin(), links_.end(),
                         [replica](const ReplicaLink& l) { return l.replica == replica; });
  LS_ASSERT(it != links_.end());
  for (uint32_t slot : it->backlog) ctx_.net->release(slot);
  links_.erase(it);
  LS_ASSERT(replica->master_ == this);
  replica->master_ = nullptr;
  replica->master_conn_ = UINT32_MAX;
}

void NodeProcess::become_master() {
  if (master_ != nullptr) master_->detach_replica(this);
  LS_ASSERT(master_ == nullptr);
  model_->set_replica(false);
}

void NodeProcess::resync() {
  LS_ASSERT(master_ != nullptr);
  LS_ASSERT(up());
  model_->restore(*master_->model_->snapshot());
  offset_ = master_->offset_;
  dirty_ = true;
  // A fresh replication connection: whatever was in flight on the old one is superseded by the
  // snapshot and must not be applied twice.
  for (ReplicaLink& link : master_->links_) {
    if (link.replica != this) continue;
    for (uint32_t slot : link.backlog) ctx_.net->release(slot);
    link.backlog.clear();
    link.conn = master_->open_replication(this);
    link.acked = offset_;
    master_conn_ = link.conn;
  }
}

}  // namespace lockstep::kernel
