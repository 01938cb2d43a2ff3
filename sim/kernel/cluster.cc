#include "sim/kernel/cluster.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace lockstep::kernel {

Cluster::Cluster(SimContext& ctx) : ctx_(ctx) {
  LS_ASSERT(ctx_.loop != nullptr);
  LS_ASSERT(ctx_.net != nullptr);
}

void Cluster::set_replication_lag(const LatencyDist& lag) {
  LS_ASSERT(lag.valid());
  LS_ASSERT(shards_.empty());
  replication_lag_ = lag;
}

size_t Cluster::add_shard(const std::vector<NodeProcess*>& nodes) {
  LS_ASSERT(!nodes.empty());
  LS_ASSERT(shards_.size() < 1024);
  Shard s;
  s.nodes = nodes;
  s.master = nodes[0];
  shards_.push_back(s);
  for (size_t i = 1; i < nodes.size(); ++i) nodes[0]->attach_replica(nodes[i]);
  return shards_.size() - 1;
}

size_t Cluster::shard_of(const NodeProcess* node) const {
  for (size_t s = 0; s < shards_.size(); ++s) {
    const auto& n = shards_[s].nodes;
    if (std::find(n.begin(), n.end(), node) != n.end()) return s;
  }
  LS_ASSERT(false);
  return 0;
}

void Cluster::master_went_down(size_t shard) {
  Shard& s = shards_[shard];
  LS_ASSERT(shard < 0xffffffffu);
  s.master_down = true;
  ++s.down_episode;
  if (detection_ms_ < 0 || s.nodes.size() < 2) return;
  const uint64_t arg = (static_cast<uint64_t>(shard) << 32) | s.down_episode;
  ctx_.loop->after(ms_to_us(detection_ms_), this, arg);
}

void Cluster::master_came_back(size_t shard) {
  Shard& s = shards_[shard];
  if (!s.master_down) return;
  s.master_down = false;
  ++s.down_episode;  // any pending detection is void
}

void Cluster::on_event(uint64_t arg) {
  const size_t shard = static_cast<size_t>(arg >> 32);
  const uint32_t episode = static_cast<uint32_t>(arg);
  LS_ASSERT(shard < shards_.size());
  const Shard& s = shards_[shard];
  if (!s.master_down || s.down_episode != episode) return;
  failover(shard);
}

void Cluster::crash(NodeProcess* node) {
  LS_ASSERT(node->up());
  node->crash_node();
  const size_t shard = shard_of(node);
  if (shards_[shard].master == node) master_went_down(shard);
}

void Cluster::restart(NodeProcess* node) {
  LS_ASSERT(!node->up());
  const size_t shard = shard_of(node);
  Shard& s = shards_[shard];
  const bool still_master = s.master == node;
  // A node that comes back as a replica resyncs, so only a master's losses are real.
  node->restart_node(/*record_loss=*/still_master);
  if (still_master) {
    for (NodeProcess* r : node->replicas()) {
      if (r->up()) r->resync();
    }
    if (!node->paused()) master_came_back(shard);
    notify(shard);
    return;
  }
  if (node->master() == nullptr) {
    // The old master, replaced while it was down: it comes back demoted.
    s.master->attach_replica(node);
    ctx_.rec->node_event(ctx_.loop->now(), node->name(), "demoted");
  } else if (node->master()->up()) {
    node->resync();
  }
}

void Cluster::pause(NodeProcess* node) {
  node->pause();
  const size_t shard = shard_of(node);
  if (shards_[shard].master == node && node->up() && !shards_[shard].master_down) {
    master_went_down(shard);
  }
}

void Cluster::resume(NodeProcess* node) {
  node->resume();
  const size_t shard = shard_of(node);
  if (shards_[shard].master == node && node->up() && !node->paused()) master_came_back(shard);
}

std::vector<std::string> Cluster::differing_keys(NodeModel& a, NodeModel& b) {
  std::vector<std::string> keys = a.keys_sorted();
  const std::vector<std::string> bk = b.keys_sorted();
  keys.insert(keys.end(), bk.begin(), bk.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::string> out;
  for (const std::string& k : keys) {
    auto va = a.inspect(k);
    auto vb = b.inspect(k);
    const bool same = va.has_value() == vb.has_value() &&
                      (!va.has_value() || (va->type == vb->type && va->strings == vb->strings &&
                                           va->expire_at_ms == vb->expire_at_ms));
    if (!same) out.push_back(k);
  }
  return out;
}

NodeProcess* Cluster::failover(size_t shard, NodeProcess* preferred) {
  LS_ASSERT(shard < shards_.size());
  Shard& s = shards_[shard];
  NodeProcess* old = s.master;
  NodeProcess* cand = nullptr;
  if (preferred != nullptr && preferred != old && preferred->up() && preferred->master() == old) {
    cand = preferred;
  }
  for (NodeProcess* n : s.nodes) {
    if (cand != nullptr && cand == preferred) break;
    if (n == old || !n->up() || n->master() != old) continue;
    if (cand == nullptr || n->offset() > cand->offset()) cand = n;
  }
  if (cand == nullptr) return nullptr;
  const TimeUs now = ctx_.loop->now();
  const std::vector<std::string> lost = differing_keys(old->model(), cand->model());
  std::vector<NodeProcess*> others;
  for (NodeProcess* r : old->replicas()) {
    if (r != cand) others.push_back(r);
  }
  for (NodeProcess* r : others) old->detach_replica(r);
  cand->become_master();
  s.master = cand;
  ctx_.rec->node_event(now, cand->name(), "promoted");
  if (!lost.empty()) ctx_.rec->data_loss(now, cand->name(), "failover", lost);
  for (NodeProcess* r : others) cand->attach_replica(r);
  if (old->up()) {
    cand->attach_replica(old);
    ctx_.rec->node_event(now, old->name(), "demoted");
  }
  s.master_down = cand->paused();
  ++s.down_episode;
  notify(shard);
  return cand;
}

void Cluster::notify(size_t shard) {
  for (TopologyListener* l : listeners_) l->endpoint_changed(shard);
}

}  // namespace lockstep::kernel
