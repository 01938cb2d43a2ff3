#include "sim/kernel/network.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "sim/core/assert.h"

namespace lockstep::kernel {

bool LinkFilter::matches(ProcessId from, ProcessId to) const {
  switch (kind) {
    case Kind::kAll:
      return true;
    case Kind::kProcess:
      return from == a || to == a;
    case Kind::kDirected:
      return from == a && to == b;
  }
  return false;
}

Network::Network(EventLoop& loop, const Rng& rng) : loop_(loop), rng_(rng) {
  LS_ASSERT(default_link_.latency.valid());
  LS_ASSERT(processes_.empty());
  loop_.prefetch_for(this);
}

Network::~Network() { loop_.prefetch_for(nullptr); }

void Network::add_process(Process* process) {
  LS_ASSERT(process != nullptr);
  LS_ASSERT(process->id() == processes_.size());
  processes_.push_back(process);
  epochs_.push_back(0);
  process->mirror_epoch_to(&epochs_.back());
}

void Network::set_default_link(const LinkSpec& spec) {
  LS_ASSERT(spec.latency.valid());
  LS_ASSERT(channels_.empty());
  default_link_ = spec;
}

void Network::set_link(ProcessId from, ProcessId to, const LinkSpec& spec) {
  LS_ASSERT(spec.latency.valid());
  LS_ASSERT(spec.loss_ppm <= 1'000'000);
  links_[{from, to}] = spec;
}

const LinkSpec* Network::link_spec(ProcessId from, ProcessId to) {
  auto it = links_.find({from, to});
  return it == links_.end() ? &default_link_ : &it->second;
}

ChannelId Network::open_channel(ProcessId from, ProcessId to, std::string_view label,
                                const LatencyDist* replication_lag) {
  LS_ASSERT(from < processes_.size() && to < processes_.size());
  LS_ASSERT(channels_.size() < 2 * size_t{kMaxConnections});
  const LinkSpec* spec = link_spec(from, to);
  const LatencyDist* latency = replication_lag != nullptr ? replication_lag : &spec->latency;
  LS_ASSERT(latency->valid());
  LS_ASSERT(replication_lag != &spec->latency);
  channels_.push_back(Channel{from, to, 0, spec, latency,
                              rng_.stream(std::string("net/") + std::string(label))});
  return static_cast<ChannelId>(channels_.size() - 1);
}

ConnId Network::connect(ProcessId client, ProcessId server, std::string_view label,
                        ConnName naming, uint32_t client_tag, const LatencyDist* replication_lag) {
  LS_ASSERT(connections_.size() < kMaxConnections);
  LS_ASSERT(client != server);
  Connection c;
  c.client = client;
  c.server = server;
  c.client_tag = client_tag;
  c.naming = naming;
  c.up = open_channel(client, server, std::string(label) + "/up", replication_lag);
  c.down = open_channel(server, client, std::string(label) + "/down", nullptr);
  connections_.push_back(c);
  return static_cast<ConnId>(connections_.size() - 1);
}

std::string Network::name(ConnId id) const {
  std::string out;
  name_into(id, out);
  return out;
}

void Network::name_into(ConnId id, std::string& out) const {
  const Connection& c = connections_[id];
  out.assign(processes_[c.client]->name());
  switch (c.naming) {
    case ConnName::kClient:
      return;
    case ConnName::kPubSub:
      out += "/pubsub";
      return;
    case ConnName::kToServer:
      out += "->";
      out += processes_[c.server]->name();
      return;
  }
  LS_ASSERT(false);
}

uint32_t Network::alloc() {
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    LS_ASSERT(pool_.size() < kMaxInFlight);
    slot = static_cast<uint32_t>(pool_.size());
    pool_.emplace_back();
  }
  LS_ASSERT(pool_[slot].argc == 0);
  return slot;
}

void Network::release(uint32_t slot) {
  LS_ASSERT(slot < pool_.size());
  pool_[slot].clear();
  free_.push_back(slot);
  LS_ASSERT(free_.size() <= pool_.size());
}

bool Network::lost_at_send(Channel& ch) {
  if (ch.replication()) return false;
  bool lost = false;
  if (ch.spec->loss_ppm > 0) lost = ch.rng.chance_ppm(ch.spec->loss_ppm);
  for (const Window& w : windows_) {
    if (w.kind == Window::Kind::kDrop && w.filter.matches(ch.from, ch.to)) {
      // Always draw, so whether an earlier rule hit does not shift the stream.
      lost = ch.rng.chance_ppm(w.loss_ppm) || lost;
    }
  }
  return lost;
}

int64_t Network::extra_delay(const Channel& ch) const {
  int64_t extra = 0;
  for (const Window& w : windows_) {
    const bool delay = w.kind == Window::Kind::kDelay && w.filter.matches(ch.from, ch.to);
    const bool lag = w.kind == Window::Kind::kReplicationLag && ch.replication() && ch.to == w.filter.a;
    if (delay || lag) extra += w.extra_us;
  }
  LS_ASSERT(extra >= 0);
  return extra;
}

bool Network::send(ConnId conn, bool up, uint32_t slot) {
  LS_ASSERT(conn < connections_.size());
  LS_ASSERT(slot < pool_.size());
  Channel& ch = channels_[up ? connections_[conn].up : connections_[conn].down];
  Message& m = pool_[slot];
  m.conn = conn;
  m.channel = up ? connections_[conn].up : connections_[conn].down;
  m.to_epoch = epochs_[ch.to];
  ++sent_;
  const bool force = m.kind == MsgKind::kClose;
  const int64_t latency = ch.latency->draw(ch.rng);  // drawn even if lost: stable streams
  if (!force && (lost_at_send(ch) || (!ch.replication() && blocked(ch.from, ch.to)))) {
    ++lost_;
    release(slot);
    return false;
  }
  const TimeUs t = std::max(loop_.now() + latency + extra_delay(ch), ch.last_delivery);
  ch.last_delivery = t;
  loop_.at(t, this, uint64_t{ch.to} << 32 | slot);
  return true;
}

void Network::prefetch(uint64_t arg) const {
  const uint32_t slot = static_cast<uint32_t>(arg);
  const ProcessId to = static_cast<ProcessId>(arg >> 32);
  if (slot < pool_.size()) __builtin_prefetch(&pool_[slot]);
  if (to < processes_.size()) __builtin_prefetch(processes_[to]);
}

void Network::on_event(uint64_t arg) {
  const uint32_t slot = static_cast<uint32_t>(arg);
  LS_ASSERT(slot < pool_.size());
  Message& m = pool_[slot];
  const Channel& ch = channels_[m.channel];
  const bool force = m.kind == MsgKind::kClose;
  if (!force && !ch.replication() && blocked(ch.from, ch.to)) {
    ++lost_;
    release(slot);
    return;
  }
  LS_ASSERT(epochs_[ch.to] == processes_[ch.to]->epoch());
  processes_[ch.to]->deliver(slot, m.to_epoch);
}

WindowId Network::add_delay(const LinkFilter& filter, int64_t extra_us) {
  LS_ASSERT(extra_us >= 0 && extra_us <= LatencyDist::kMaxUs);
  Window w;
  w.id = next_window_++;
  w.kind = Window::Kind::kDelay;
  w.filter = filter;
  w.extra_us = extra_us;
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

WindowId Network::add_drop(const LinkFilter& filter, uint32_t loss_ppm) {
  LS_ASSERT(loss_ppm <= 1'000'000);
  Window w;
  w.id = next_window_++;
  w.kind = Window::Kind::kDrop;
  w.filter = filter;
  w.loss_ppm = loss_ppm;
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

WindowId Network::add_replication_lag(ProcessId replica, int64_t extra_us) {
  LS_ASSERT(extra_us >= 0 && extra_us <= LatencyDist::kMaxUs);
  LS_ASSERT(replica < processes_.size());
  Window w;
  w.id = next_window_++;
  w.kind = Window::Kind::kReplicationLag;
  w.filter = LinkFilter{LinkFilter::Kind::kProcess, replica, 0};
  w.extra_us = extra_us;
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

WindowId Network::add_partition(const std::vector<std::vector<ProcessId>>& groups, bool one_way) {
  LS_ASSERT(groups.size() >= 2);
  LS_ASSERT(!one_way || groups.size() == 2);
  Window w;
  w.id = next_window_++;
  w.kind = Window::Kind::kPartition;
  w.one_way = one_way;
  w.group_of.assign(processes_.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (ProcessId p : groups[g]) {
      LS_ASSERT(p < processes_.size());
      LS_ASSERT(w.group_of[p] == -1);
      w.group_of[p] = static_cast<int32_t>(g);
    }
  }
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

WindowId Network::add_lose_reply(ProcessId client, std::string match, int64_t count,
                                 std::function<void()> on_exhausted) {
  LS_ASSERT(client < processes_.size());
  LS_ASSERT(count > 0);
  Window w;
  w.id = next_window_++;
  w.kind = Window::Kind::kLoseReply;
  w.filter = LinkFilter{LinkFilter::Kind::kProcess, client, 0};
  w.match = std::move(match);
  w.remaining = count;
  w.on_exhausted = std::move(on_exhausted);
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

bool Network::take_lose_reply(ProcessId client, std::string_view command, const char* script) {
  for (Window& w : windows_) {
    if (w.kind != Window::Kind::kLoseReply || w.filter.a != client || w.remaining <= 0) continue;
    const bool any = w.match.empty();
    const bool by_command =
        w.match.size() == command.size() &&
        std::equal(command.begin(), command.end(), w.match.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) ==
                 std::toupper(static_cast<unsigned char>(b));
        });
    const bool by_script = script != nullptr && w.match == script;
    if (!any && !by_command && !by_script) continue;
    if (--w.remaining == 0 && w.on_exhausted) w.on_exhausted();
    return true;
  }
  return false;
}

void Network::remove(WindowId id) {
  auto it = std::find_if(windows_.begin(), windows_.end(),
                         [id](const Window& w) { return w.id == id; });
  LS_ASSERT(it != windows_.end());
  const bool healed = it->kind == Window::Kind::kPartition;
  windows_.erase(it);
  if (healed) {
    for (auto& listener : heal_listeners_) listener();
  }
}

void Network::add_heal_listener(std::function<void()> listener) {
  LS_ASSERT(listener != nullptr);
  heal_listeners_.push_back(std::move(listener));
}

bool Network::blocked(ProcessId from, ProcessId to) const {
  for (const Window& w : windows_) {
    if (w.kind != Window::Kind::kPartition) continue;
    if (from >= w.group_of.size() || to >= w.group_of.size()) continue;
    const int32_t gf = w.group_of[from];
    const int32_t gt = w.group_of[to];
    if (gf < 0 || gt < 0) continue;
    if (w.one_way ? (gf == 0 && gt == 1) : gf != gt) return true;
  }
  return false;
}

}  // namespace lockstep::kernel
