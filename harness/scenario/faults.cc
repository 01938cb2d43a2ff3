#include "harness/scenario/faults.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "harness/scenario/fault_table.h"
#include "harness/scenario/world.h"
#include "sim/core/assert.h"

namespace lockstep::scenario {
namespace {

std::vector<std::string> default_targets(const Scenario& s, FaultKind kind) {
  std::vector<std::string> clients;
  for (const ClientSpec& c : s.clients) clients.push_back(c.name);
  if (kind == FaultKind::kFailover) return {s.node_names.front()};
  if (kind == FaultKind::kReplicationLag) return std::vector<std::string>(s.node_names.begin() + 1, s.node_names.end());
  if (fault_info(kind).targets == FaultTargets::kClient) return clients;
  std::vector<std::string> all = s.node_names;
  all.insert(all.end(), clients.begin(), clients.end());
  return all;
}

FaultSpec draw_one(const Scenario& s, const RandomProfile& p, const RandomKind& rk, Rng& r) {
  FaultSpec f;
  f.kind = rk.kind;
  f.origin = "random";
  f.at_ms = r.between(p.window_ms.lo, p.window_ms.hi);
  const std::vector<std::string> targets = rk.targets.empty() ? default_targets(s, rk.kind) : rk.targets;
  LS_ASSERT(!targets.empty());
  const std::string target = targets[r.below(targets.size())];
  const FaultKindInfo& info = fault_info(rk.kind);
  if (info.targets == FaultTargets::kLink) {
    f.link.kind = LinkTarget::Kind::kProcess;
    f.link.a = target;
  } else if (info.targets == FaultTargets::kGroups) {
    std::vector<std::string> rest;
    for (const std::string& n : default_targets(s, rk.kind)) {
      if (n != target) rest.push_back(n);
    }
    f.groups = {{target}, rest};
    f.one_way = static_cast<int64_t>(r.below(100)) < rk.one_way_percent;
  } else {
    f.target = target;
  }
  // In the table's order: the draws of one kind never change order.
  for (const FaultParam& param : info.params) {
    if (!param.drawn || (param.node_only && !s.is_node(target))) continue;
    auto it = rk.params.find(std::string(param.name));
    const Range range = it != rk.params.end() ? it->second : param.draw;
    f.*param.field = r.between(range.lo, range.hi);
  }
  if (rk.kind == FaultKind::kLoseReply) f.match = rk.match;
  return f;
}

// An event of the fault's target client (or of a client drawn for a node or a link) to wait for.
FaultTrigger draw_trigger(const Scenario& s, const RandomKind& rk, const FaultSpec& f, Rng& r) {
  LS_ASSERT(!rk.on_events.empty() && !s.clients.empty());
  FaultTrigger t;
  t.event = rk.on_events[r.below(rk.on_events.size())];
  t.client = s.is_client(f.target) ? f.target : s.clients[r.below(s.clients.size())].name;
  return t;
}

}  // namespace

std::vector<FaultSpec> draw_random_faults(const Scenario& s, uint64_t seed, int64_t first_id) {
  std::vector<FaultSpec> out;
  if (!s.random.has_value()) return out;
  const RandomProfile& p = *s.random;
  const Rng root(seed);
  Rng swarm = root.stream("faults/swarm");
  std::vector<bool> on(p.kinds.size(), true);
  if (p.swarm) {
    bool any = false;
    for (size_t i = 0; i < on.size(); ++i) any |= (on[i] = swarm.chance_ppm(500'000));
    if (!any) on[swarm.below(on.size())] = true;
  }
  for (size_t i = 0; i < p.kinds.size(); ++i) {
    if (!on[i]) continue;
    const RandomKind& rk = p.kinds[i];
    const std::string stream = "faults/random/" + std::string(fault_kind_name(rk.kind)) + "/" + std::to_string(i);
    Rng r = root.stream(stream);
    const int64_t count = r.between(rk.count.lo, rk.count.hi);
    // Triggers draw from a stream of their own, so placing faults on events changes no other draw.
    Rng on = root.stream(stream + "/on");
    for (int64_t c = 0; c < count; ++c) {
      out.push_back(draw_one(s, p, rk, r));
      if (rk.on_percent > 0 && static_cast<int64_t>(on.below(100)) < rk.on_percent) {
        out.back().on = draw_trigger(s, rk, out.back(), on);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FaultSpec& a, const FaultSpec& b) { return a.at_ms < b.at_ms; });
  for (size_t i = 0; i < out.size(); ++i) out[i].id = first_id + static_cast<int64_t>(i);
  LS_ASSERT(static_cast<int64_t>(out.size()) <= Limits::kMaxFaults * 10);
  return out;
}

std::vector<FaultSpec> run_faults(const Scenario& s, uint64_t seed) {
  std::vector<FaultSpec> faults = s.schedule;
  std::vector<FaultSpec> drawn = draw_random_faults(s, seed, static_cast<int64_t>(faults.size()) + 1);
  faults.insert(faults.end(), drawn.begin(), drawn.end());
  std::stable_sort(faults.begin(), faults.end(), [](const FaultSpec& a, const FaultSpec& b) {
    return a.at_ms != b.at_ms ? a.at_ms < b.at_ms : a.id < b.id;
  });
  return faults;
}

std::set<std::string> interrupted_clients(const std::vector<FaultSpec>& faults) {
  std::set<std::string> out;
  for (const FaultSpec& f : faults) {
    if (fault_info(f.kind).targets == FaultTargets::kThread) out.insert(split_thread(f.target).first);
  }
  return out;
}

std::string fault_target(const FaultSpec& f) {
  switch (fault_info(f.kind).targets) {
    case FaultTargets::kGroups: {
      std::string out;
      for (size_t g = 0; g < f.groups.size(); ++g) {
        if (g > 0) out += f.one_way ? " -> " : " | ";
        for (size_t i = 0; i < f.groups[g].size(); ++i) out += (i ? "," : "") + f.groups[g][i];
      }
      return out;
    }
    case FaultTargets::kLink:
      switch (f.link.kind) {
        case LinkTarget::Kind::kAll: return "all";
        case LinkTarget::Kind::kProcess: return f.link.a;
        case LinkTarget::Kind::kDirected: return f.link.a + "->" + f.link.b;
        case LinkTarget::Kind::kBetween: return f.link.a + "<->" + f.link.b;
      }
      return "";
    default:
      return f.target;
  }
}

void add_fault_params(const FaultSpec& f, nlohmann::json& j) {
  LS_ASSERT(j.is_object());
  for (const FaultParam& p : fault_info(f.kind).params) {
    if (fault_has(f, p)) j[std::string(p.name)] = f.*p.field;
  }
  if (f.kind == FaultKind::kFailover && !f.promote.empty()) j["promote"] = f.promote;
  if (f.kind == FaultKind::kLoseReply && !f.match.empty()) j["match"] = f.match;
  if (!f.on.empty()) {
    if (f.on.short_form) {
      j["on"] = f.on.event;
    } else {
      nlohmann::json on = {{"event", f.on.event}};
      if (!f.on.thread.empty()) on["thread"] = f.on.thread;
      if (!f.on.client.empty()) on["client"] = f.on.client;
      if (!f.on.node.empty()) on["node"] = f.on.node;
      j["on"] = std::move(on);
    }
  }
}

std::string fault_params_json(const FaultSpec& f) {
  nlohmann::json p = nlohmann::json::object();
  add_fault_params(f, p);
  if (f.kind == FaultKind::kPartition) p["one_way"] = f.one_way;
  if (f.origin != "random") p["origin"] = f.origin;
  return p.dump();
}

std::pair<std::string, uint32_t> split_thread(const std::string& target) {
  const size_t slash = target.rfind("/t");
  LS_ASSERT(slash != std::string::npos && slash + 2 < target.size());
  return {target.substr(0, slash), static_cast<uint32_t>(std::stoul(target.substr(slash + 2)))};
}

FaultInjector::FaultInjector(World& world, const std::vector<FaultSpec>& faults)
    : world_(world), faults_(faults), active_(faults.size()), triggers_(faults, [this](size_t i, std::string_view) {
        active_[i].fired = true;
        // Right after the event, at the same instant: for a script, after it ran and its reply
        // was sent (a partition, judged when the reply would arrive, still cuts it; a drop,
        // judged when a message is sent, does not); for a grant, after the thread's call
        // returned.
        world_.loop().after(0, this, i * 2);
      }) {
  LS_ASSERT(active_.size() == faults_.size());
  LS_ASSERT(faults_.size() < (uint64_t{1} << 40));
}

void FaultInjector::schedule() {
  for (size_t i = 0; i < faults_.size(); ++i) {
    world_.loop().at(ms_to_us(faults_[i].at_ms), this, i * 2);
  }
}

void FaultInjector::on_event(uint64_t arg) {
  const size_t i = static_cast<size_t>(arg / 2);
  LS_ASSERT(i < faults_.size());
  if (arg % 2 == 0) {
    start(i);
  } else {
    end(i);
  }
}

kernel::ProcessId FaultInjector::pid(const std::string& name) {
  kernel::Process* p = world_.process(name);
  LS_ASSERT(p != nullptr);
  return p->id();
}

std::vector<kernel::LinkFilter> FaultInjector::filters(const LinkTarget& t) {
  using K = kernel::LinkFilter::Kind;
  switch (t.kind) {
    case LinkTarget::Kind::kAll: return {kernel::LinkFilter{}};
    case LinkTarget::Kind::kProcess: return {kernel::LinkFilter{K::kProcess, pid(t.a), 0}};
    case LinkTarget::Kind::kDirected: return {kernel::LinkFilter{K::kDirected, pid(t.a), pid(t.b)}};
    case LinkTarget::Kind::kBetween:
      return {kernel::LinkFilter{K::kDirected, pid(t.a), pid(t.b)},
              kernel::LinkFilter{K::kDirected, pid(t.b), pid(t.a)}};
  }
  return {};
}

void FaultInjector::record(size_t i, const char* phase, const std::string& params) {
  const FaultSpec& f = faults_[i];
  world_.recorder().fault(world_.loop().now(), f.id, fault_kind_name(f.kind), fault_target(f), phase, params);
}

const char* FaultInjector::phase_of(const FaultSpec& f) const {
  return fault_is_instant(f, world_.node(f.target) != nullptr) ? "instant" : "start";
}

FaultTriggers::FaultTriggers(const std::vector<FaultSpec>& faults, Land land)
    : faults_(faults), land_(std::move(land)) {}

bool FaultTriggers::needed() const {
  return std::any_of(faults_.begin(), faults_.end(), [](const FaultSpec& f) { return !f.on.empty(); });
}

void FaultTriggers::op_invoked(int64_t id, const history::Invoke& e) {
  using history::OpKind;
  const char* event = e.op == OpKind::kLock || e.op == OpKind::kTryLock ? "acquire"
                      : e.op == OpKind::kUnlock                         ? "unlock"
                      : e.op == OpKind::kRenew                          ? "renew"
                                                                        : nullptr;
  if (event != nullptr) ops_.emplace(id, OpSubject{std::string(e.thread), event});
}

void FaultTriggers::op_completed(int64_t id, const history::Completion& c) {
  const auto it = ops_.find(id);
  if (it == ops_.end()) return;
  if (it->second.kind == std::string_view("acquire") && c.outcome == history::Outcome::kOk && c.acquired == 1) {
    fire("granted", it->second.thread, "");
  }
  // Not erased: a retried script of the operation may still run on a node after it completed.
}

void FaultTriggers::script_executed(std::string_view node, int64_t op) {
  const auto it = ops_.find(op);
  if (it == ops_.end()) return;
  fire(std::string(it->second.kind) + "_executed", it->second.thread, node);
}

bool FaultTriggers::matches(const FaultTrigger& t, std::string_view event, const std::string& thread,
                            std::string_view node) const {
  if (t.event != event || (!t.node.empty() && t.node != node)) return false;
  if (!t.thread.empty()) return t.thread == thread;
  return thread.size() > t.client.size() && thread.compare(0, t.client.size(), t.client) == 0 &&
         thread[t.client.size()] == '/';
}

void FaultTriggers::fire(std::string_view event, const std::string& thread, std::string_view node) {
  for (size_t n = 0; n < armed_.size(); ++n) {
    const size_t i = armed_[n];
    if (!matches(faults_[i].on, event, thread, node)) continue;
    armed_.erase(armed_.begin() + static_cast<std::ptrdiff_t>(n));
    land_(i, event);
    return;  // one fault per event; the next waits for the next
  }
}

void FaultInjector::script_executed(kernel::ProcessId node, kernel::ProcessId, int64_t op) {
  triggers_.script_executed(world_.network().process(node).name(), op);
}

void FaultInjector::start(size_t i) {
  const FaultSpec& f = faults_[i];
  if (!f.on.empty() && !active_[i].fired) {
    triggers_.arm(i);
    return;
  }
  const char* phase = phase_of(f);
  // The fault is recorded before its effects (a crash's hold_end, a jump's expiries), except a
  // failover, whose record names the replica it promoted.
  if (f.kind == FaultKind::kClockOffset) {
    // How far the step moves the clock, which the scenario's offset alone does not say (the
    // clock may already be off: a configured offset, a drift, an earlier jump): the checker's
    // explanations weigh a clock fault by it.
    nlohmann::json p = nlohmann::json::parse(fault_params_json(f));
    p["step_us"] = ms_to_us(f.offset_ms) - world_.process(f.target)->clock().offset_at(world_.loop().now());
    record(i, phase, p.dump());
  } else if (f.kind != FaultKind::kFailover) {
    record(i, phase, fault_params_json(f));
  }
  apply_start(i);
  if (std::string_view(phase) == "instant") return;
  const int64_t after_ms = fault_end_after_ms(f);
  if (after_ms < 0) return;  // a node that stays down; lose_reply without a window
  world_.loop().after(ms_to_us(after_ms), this, i * 2 + 1);
}

void FaultInjector::apply_start(size_t i) {
  const FaultSpec& f = faults_[i];
  kernel::Network& net = world_.network();
  Active& a = active_[i];
  switch (f.kind) {
    case FaultKind::kDelay:
      for (const auto& filter : filters(f.link)) a.windows.push_back(net.add_delay(filter, ms_to_us(f.extra_ms)));
      return;
    case FaultKind::kDrop:
      for (const auto& filter : filters(f.link)) a.windows.push_back(net.add_drop(filter, static_cast<uint32_t>(f.rate_ppm)));
      return;
    case FaultKind::kPartition: {
      std::vector<std::vector<kernel::ProcessId>> groups;
      for (const auto& g : f.groups) {
        groups.emplace_back();
        for (const std::string& n : g) groups.back().push_back(pid(n));
      }
      a.windows.push_back(net.add_partition(groups, f.one_way));
      return;
    }
    case FaultKind::kPause:
      if (kernel::NodeProcess* n = world_.node(f.target)) {
        world_.cluster().pause(n);
      } else {
        world_.client(f.target)->pause();
      }
      return;
    case FaultKind::kCrash:
      if (kernel::NodeProcess* n = world_.node(f.target)) {
        if (n->up()) world_.cluster().crash(n);
      } else if (world_.client(f.target)->up()) {
        world_.client(f.target)->crash_client();
      }
      return;
    case FaultKind::kRestart: {
      kernel::NodeProcess* n = world_.node(f.target);
      if (!n->up()) world_.cluster().restart(n);
      return;
    }
    case FaultKind::kClockOffset: {
      kernel::Process* p = world_.process(f.target);
      const int64_t before = p->clock().offset_at(world_.loop().now());
      p->clock_set_offset(ms_to_us(f.offset_ms));
      a.undo = before - ms_to_us(f.offset_ms);
      return;
    }
    case FaultKind::kClockDrift: {
      kernel::Process* p = world_.process(f.target);
      a.undo = p->clock().drift_ppm();
      p->clock_set_drift(f.drift_ppm);
      return;
    }
    case FaultKind::kClockJump:
      world_.process(f.target)->clock_jump(ms_to_us(f.delta_ms));
      return;
    case FaultKind::kFailover: {
      kernel::NodeProcess* n = world_.node(f.target);
      kernel::NodeProcess* preferred = f.promote.empty() ? nullptr : world_.node(f.promote);
      kernel::NodeProcess* promoted = world_.cluster().failover(world_.cluster().shard_of(n), preferred);
      nlohmann::json p = nlohmann::json::parse(fault_params_json(f));
      p["promoted"] = promoted != nullptr ? nlohmann::json(promoted->name()) : nlohmann::json(nullptr);
      record(i, "instant", p.dump());
      return;
    }
    case FaultKind::kReplicationLag:
      a.windows.push_back(net.add_replication_lag(pid(f.target), ms_to_us(f.extra_ms)));
      return;
    case FaultKind::kLoseReply:
      a.windows.push_back(net.add_lose_reply(pid(f.target), f.match, f.replies, [this, i] {
        if (!active_[i].ended) {
          active_[i].ended = true;
          record(i, "end", "");
        }
      }));
      return;
    case FaultKind::kInterrupt:
    case FaultKind::kCancel: {
      const auto [client, index] = split_thread(f.target);
      world_.client(client)->interrupt_thread(
          index, f.kind == FaultKind::kCancel ? runtime::Interrupt::kCancel : runtime::Interrupt::kInterrupt);
      return;
    }
  }
  LS_ASSERT(false);
}

void FaultInjector::end(size_t i) {
  const FaultSpec& f = faults_[i];
  Active& a = active_[i];
  if (a.ended) return;
  a.ended = true;
  for (kernel::WindowId w : a.windows) world_.network().remove(w);
  a.windows.clear();
  switch (f.kind) {
    case FaultKind::kPause:
      if (kernel::NodeProcess* n = world_.node(f.target)) {
        world_.cluster().resume(n);
      } else {
        world_.client(f.target)->resume();
      }
      break;
    case FaultKind::kCrash: {
      kernel::NodeProcess* n = world_.node(f.target);
      if (!n->up()) world_.cluster().restart(n);
      break;
    }
    case FaultKind::kClockOffset:
      world_.process(f.target)->clock_jump(a.undo);
      break;
    case FaultKind::kClockDrift:
      world_.process(f.target)->clock_set_drift(a.undo);
      break;
    default:
      break;  // a network window (removed above), or a kind that does not end by itself
  }
  record(i, "end", "");
}

}  // namespace lockstep::scenario
