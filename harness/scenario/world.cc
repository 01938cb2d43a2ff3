#include "harness/scenario/world.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/mutants/mutants.h"
#include "harness/scenario/faults.h"
#include "harness/scenario/workload.h"
#include "sim/core/assert.h"
#include "sim/history/json_text.h"

namespace lockstep::scenario {

World::World(const Scenario& scenario, uint64_t seed, history::Recorder& recorder,
             const kernel::NodeModelFactory& factory, bool count_coverage)
    : scenario_(scenario), seed_(seed), rec_(recorder), rng_(seed) {
  LS_ASSERT(factory != nullptr);
  LS_ASSERT(!scenario_.node_names.empty() && !scenario_.clients.empty());
  net_ = std::make_unique<kernel::Network>(loop_, rng_);
  ctx_.loop = &loop_;
  ctx_.net = net_.get();
  ctx_.rec = &rec_;
  ctx_.rng = &rng_;
  if (count_coverage) ctx_.coverage = &coverage_;  // before the nodes are built: they count script lines into it
  cluster_ = std::make_unique<kernel::Cluster>(ctx_);
  ctx_.cluster = cluster_.get();
  build_network();  // before any connection is opened (replication links open in build_nodes)
  build_nodes(factory);
  build_clients();
  faults_ = run_faults(scenario_, seed_);
  for (const std::string& name : interrupted_clients(faults_)) client(name)->allow_interrupts();
  injector_ = std::make_unique<FaultInjector>(*this, faults_);
  if (injector_->triggers().needed()) {
    ctx_.exec_observer = injector_.get();
    rec_.set_listener(&injector_->triggers());
  }
  WorkloadWorld ww{&scenario_, seed_, &rec_, {}};
  for (auto& c : clients_) ww.clients.push_back(c.get());
  workload_ = std::make_unique<Workload>(std::move(ww));
}

World::~World() {
  // Client coroutines reference the network, the cluster and the lock clients.
  clients_.clear();
  nodes_.clear();
}

void World::build_nodes(const kernel::NodeModelFactory& factory) {
  const TopologySpec& t = scenario_.topology;
  cluster_->set_replication_lag(t.replication_lag);
  cluster_->set_failover_detection_ms(t.failover_detection_ms);
  for (size_t i = 0; i < scenario_.node_names.size(); ++i) {
    const NodeSpec& spec = scenario_.nodes[i];
    kernel::LocalClock clock(ms_to_us(spec.clock.offset_ms), spec.clock.drift_ppm);
    nodes_.push_back(std::make_unique<kernel::NodeProcess>(
        ctx_, static_cast<kernel::ProcessId>(i), scenario_.node_names[i], clock, spec.options, factory));
    net_->add_process(nodes_.back().get());
  }
  if (t.kind == TopologyKind::kIndependent) {
    for (auto& n : nodes_) cluster_->add_shard({n.get()});
  } else {
    std::vector<kernel::NodeProcess*> shard;
    for (auto& n : nodes_) shard.push_back(n.get());
    cluster_->add_shard(shard);
  }
  net_->add_heal_listener([this] {
    for (auto& n : nodes_) n->flush_backlogs();
  });
}

void World::build_clients() {
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(scenario_.algorithm);
  LS_ASSERT(info != nullptr);
  kernel::ProcessId next = static_cast<kernel::ProcessId>(nodes_.size());
  // A mutant run hands each client its mutant as an override of the one script it replaces.
  const algorithms::mutants::Mutant* mutant =
      scenario_.mutant.empty() ? nullptr : algorithms::mutants::find_mutant(scenario_.mutant);
  LS_ASSERT(scenario_.mutant.empty() || mutant != nullptr);
  for (const ClientSpec& spec : scenario_.clients) {
    kernel::LocalClock clock(ms_to_us(spec.clock.offset_ms), spec.clock.drift_ppm);
    auto c = std::make_unique<kernel::ClientProcess>(ctx_, next++, spec.name, clock, spec.options);
    net_->add_process(c.get());
    cluster_->add_listener(c.get());
    for (int64_t t = 0; t < spec.threads; ++t) c->add_thread();
    if (mutant != nullptr) c->override_script(mutant->replaces, &mutant->script);
    c->set_lock_client(info->make(*c, scenario_.algorithm_options));
    clients_.push_back(std::move(c));
  }
}

void World::build_network() {
  net_->set_default_link(scenario_.network.defaults);
  // Process ids: nodes first, then clients, in scenario order.
  auto id_of = [this](const std::string& name) -> kernel::ProcessId {
    for (size_t i = 0; i < scenario_.node_names.size(); ++i) {
      if (scenario_.node_names[i] == name) return static_cast<kernel::ProcessId>(i);
    }
    for (size_t i = 0; i < scenario_.clients.size(); ++i) {
      if (scenario_.clients[i].name == name) {
        return static_cast<kernel::ProcessId>(scenario_.node_names.size() + i);
      }
    }
    LS_ASSERT(false);
    return 0;
  };
  for (const LinkSpec& l : scenario_.network.links) {
    const kernel::ProcessId a = id_of(l.from);
    const kernel::ProcessId b = id_of(l.to);
    net_->set_link(a, b, l.spec);
    if (l.both_ways) net_->set_link(b, a, l.spec);
  }
}

void World::set_beliefs(std::vector<kernel::Belief>* beliefs) {
  for (auto& c : clients_) c->holds().set_beliefs(beliefs);
}

kernel::NodeProcess* World::node(const std::string& name) {
  for (auto& n : nodes_) {
    if (n->name() == name) return n.get();
  }
  return nullptr;
}

kernel::ClientProcess* World::client(const std::string& name) {
  for (auto& c : clients_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

kernel::Process* World::process(const std::string& name) {
  if (kernel::NodeProcess* n = node(name)) return n;
  return client(name);
}

void World::write_header() {
  if (history::Writer* w = rec_.header_writer()) {
    write_history_header(*w, scenario_, seed_);
    rec_.header_done();
  }
}

void write_history_header(history::Writer& writer, const Scenario& s, uint64_t seed,
                          const nlohmann::json& more) {
  history::Writer* w = &writer;
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.algorithm);
  w->begin_header();
  w->str("scenario", s.name).num("seed", static_cast<int64_t>(seed));
  w->str("algorithm", s.algorithm).str("lock_kind", info->lock_kind);
  if (!s.mutant.empty()) w->str("mutant", s.mutant);
  w->strings("nodes", s.node_names);
  if (info->multi_master) w->num("quorum", static_cast<int64_t>(s.node_names.size() / 2 + 1));
  w->num("drift_tolerance_us", s.checks.drift_tolerance_us);
  if (s.checks.liveness_bound_ms > 0) w->num("liveness_bound_ms", s.checks.liveness_bound_ms);
  nlohmann::json extra = info->history_header ? info->history_header(s.algorithm_options)
                                              : nlohmann::json::object();
  if (info->fair) {
    w->boolean("fair", true);
    const auto it = s.algorithm_options.find("thread_wait_ms");
    if (!extra.contains("thread_wait_ms") && it != s.algorithm_options.end() &&
        it->is_number_integer()) {
      w->num("thread_wait_ms", it->get<int64_t>());
    }
  }
  w->num("duration_ms", s.duration_ms);
  // The clocks the scenario sets from the start (offset, drift), so that explanations and readers
  // can cite them (clock jumps and timed clock faults are fault events of their own).
  nlohmann::json clocks = nlohmann::json::object();
  auto note_clock = [&clocks](const std::string& process, const ClockSpec& c) {
    if (c.offset_ms == 0 && c.drift_ppm == 0) return;
    clocks[process] = {{"offset_ms", c.offset_ms}, {"drift_ppm", c.drift_ppm}};
  };
  for (size_t i = 0; i < s.nodes.size() && i < s.node_names.size(); ++i) {
    note_clock(s.node_names[i], s.nodes[i].clock);
  }
  for (const ClientSpec& c : s.clients) note_clock(c.name, c.clock);
  if (!clocks.empty()) w->value("clocks") += clocks.dump();
  // Algorithm-specific fields, in key order (nlohmann keeps objects sorted): deterministic.
  for (auto it = extra.begin(); it != extra.end(); ++it) w->value_of_any_key(it.key()) += it.value().dump();
  for (auto it = more.begin(); it != more.end(); ++it) w->value_of_any_key(it.key()) += it.value().dump();
  w->end();
}

Status World::run(const ProgressFn& progress) {
  write_header();
  injector_->schedule();
  workload_->start();
  const TimeUs end = ms_to_us(scenario_.duration_ms);
  // Slices change nothing: run_until runs every event due by its bound, in (time, sequence)
  // order, and the budget counts events across calls.
  constexpr TimeUs kSlices = 200;
  // A history written to a file is looked at between slices too: a write that failed (a full
  // disk) ends the run at once rather than after the rest of it.
  const history::Writer* file = rec_.writer() != nullptr && rec_.writer()->mode() == history::Writer::Mode::kFile ? rec_.writer() : nullptr;
  const TimeUs slice = progress || file != nullptr ? std::max<TimeUs>(end / kSlices, kUsPerMs) : end;
  LS_ASSERT(slice > 0 || end == 0);
  for (TimeUs bound = std::min(slice, end);; bound = std::min(bound + slice, end)) {
    LS_ASSERT(bound <= end);
    Status s = loop_.run_until(bound, scenario_.max_events);
    if (!s.ok()) return Status::error(scenario_.file + ": " + s.message());
    if (progress) progress(loop_.now(), loop_.events_run());
    if (file != nullptr && file->io_failed()) return Status::error(scenario_.file + ": " + file->io_error().message());
    if (bound >= end) break;
  }

  if (rec_.writer() != nullptr && rec_.writer()->over_limit()) {
    return Status::error(scenario_.file + ": the history exceeded limits.max_history_bytes (" +
                         std::to_string(scenario_.max_history_bytes) + " bytes)");
  }
  for (auto& c : clients_) {
    holds_open_at_end_ += c->holds().open();
    if (c->up()) c->holds().end_all(c->history_now(), history::HoldEnd::kEnd);
  }
  rec_.end(end, true);
  return Status::ok_status();
}

RunStats World::stats() const {
  RunStats s;
  s.virtual_ms = us_to_ms_floor(loop_.now());
  s.events = loop_.events_run();
  s.ops = static_cast<uint64_t>(rec_.ops_invoked());
  s.messages_sent = net_->messages_sent();
  s.messages_lost = net_->messages_lost();
  s.faults = faults_.size();
  s.holds_open_at_end = holds_open_at_end_;
  return s;
}

}  // namespace lockstep::scenario
