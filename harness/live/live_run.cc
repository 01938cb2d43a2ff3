#include "harness/live/live_run.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "algorithms/algorithm.h"
#include "harness/live/exec_monitor.h"
#include "harness/live/links.h"
#include "harness/live/live_client.h"
#include "harness/live/redis_server.h"
#include "harness/live/repl_proxy.h"
#include "harness/scenario/fault_table.h"
#include "harness/scenario/faults.h"
#include "harness/scenario/workload.h"
#include "harness/scenario/world.h"
#include "sim/core/assert.h"
#include "sim/core/interrupt.h"

namespace lockstep::live {

using scenario::FaultSpec;
using scenario::Scenario;

namespace {

namespace asio = boost::asio;

// A node's keys and their DUMP payloads (what a restart may lose), or nothing when the node
// does not answer in time (paused).
using Snapshot = std::map<std::string, std::string>;

std::optional<Snapshot> snapshot(const RedisServer& server) {
  if (!server.running() || server.paused()) return std::nullopt;
  Result<redis::Reply> keys = server.command({"KEYS", "*"}, 500);
  if (!keys.ok() || !keys.value().is_aggregate()) return std::nullopt;
  Snapshot out;
  for (const redis::Reply& k : keys.value().elements) {
    Result<redis::Reply> d = server.command({"DUMP", k.str}, 500);
    if (!d.ok()) return std::nullopt;
    if (d.value().type == redis::Reply::Type::kBulk) out[k.str] = d.value().str;
  }
  return out;
}

// The keys whose value differs between two snapshots (gone, changed or come back), sorted.
std::vector<std::string> changed_keys(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> out;
  for (const auto& [key, value] : before) {
    auto it = after.find(key);
    if (it == after.end() || it->second != value) out.push_back(key);
  }
  for (const auto& [key, value] : after) {
    if (before.count(key) == 0) out.push_back(key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Whether node `name`'s clock is ever other than real: the scenario sets it, or a clock fault.
bool clock_set(const Scenario& s, const std::vector<FaultSpec>& faults, const std::string& name) {
  for (size_t i = 0; i < s.node_names.size() && i < s.nodes.size(); ++i) {
    if (s.node_names[i] == name && (s.nodes[i].clock.offset_ms != 0 || s.nodes[i].clock.drift_ppm != 0)) return true;
  }
  return std::any_of(faults.begin(), faults.end(), [&](const FaultSpec& f) { return is_clock_fault(f.kind) && f.target == name; });
}

// A temporary directory holding the servers' directories, removed with everything in it.
class TempDir {
 public:
  static Result<std::unique_ptr<TempDir>> make() {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/lockstep-live-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return Status::error("live: cannot create a temporary directory from " + pattern);
    return std::unique_ptr<TempDir>(new TempDir(pattern));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// One live run: servers, clients, workload, faults, in this order of construction (and the
// reverse of destruction: clients go before the servers they talk to).
class Session {
 public:
  Session(const Scenario& s, uint64_t seed, history::Recorder& rec, const std::vector<FaultSpec>& faults)
      : s_(s), seed_(seed), rec_(rec), faults_(faults), windows_(faults.size()), ended_(faults.size(), false),
        undo_(faults.size(), 0),
        replicated_(s.topology.kind == scenario::TopologyKind::kReplicated),
        replica_of_(s.node_names.size(), -1),
        proxies_(s.node_names.size()),
        repl_extra_us_(s.node_names.size(), 0),
        repl_rng_(Rng(seed).stream("live/replication")) {}
  ~Session() {
    rec_.set_listener(nullptr);
    clients_.clear();  // coroutine frames reference the lock clients and connections
    proxies_.clear();
    servers_.clear();
  }

  Status start(std::string* version) {
    Result<std::unique_ptr<TempDir>> dir = TempDir::make();
    if (!dir.ok()) return dir.status();
    dir_ = std::move(dir.value());
    for (size_t i = 0; i < s_.node_names.size(); ++i) {
      const scenario::ClockSpec& c = s_.nodes[i].clock;
      node_clocks_.emplace_back(ms_to_us(c.offset_ms), c.drift_ppm);
      std::string shim;
      if (clock_set(s_, faults_, s_.node_names[i])) {
        shim = find_clock_shim();
        if (shim.empty()) {
          return Status::error("live: " + s_.node_names[i] + "'s clock is set by the scenario, and lockstep's clock shim "
                               "(liblockstep_clock_shim.so) is not next to the lockstep binary nor in ../lib/lockstep/; "
                               "set LOCKSTEP_CLOCK_SHIM to its path");
        }
      }
      Result<std::unique_ptr<RedisServer>> server =
          RedisServer::start(s_.node_names[i], dir_->path(), s_.nodes[i].options, shim);
      if (!server.ok()) return server.status();
      servers_.push_back(std::move(server.value()));
    }
    Result<std::string> v = servers_.front()->version();
    if (!v.ok()) return v.status();
    *version = v.value();
    for (auto& server : servers_) links_.set_node(server->port(), server->name());
    links_.set_network(s_.network);
    // Endpoints: one per master — a single node, each independent master, or the replicated
    // shard's master (node0 at the start; a failover moves it).
    if (replicated_) {
      ports_.push_back(servers_[0]->port());
      if (Status st = start_replication(); !st.ok()) return st;
    } else {
      for (auto& server : servers_) ports_.push_back(server->port());
    }
    const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s_.algorithm);
    LS_ASSERT(info != nullptr);
    const Rng root(seed_);
    for (const scenario::ClientSpec& spec : s_.clients) {
      kernel::LocalClock clock(ms_to_us(spec.clock.offset_ms), spec.clock.drift_ppm);
      auto c = std::make_unique<LiveClient>(loop_, rec_, spec.name, kernel::make_uuid(root.stream("client-uuid/" + spec.name)),
                                            root.stream("client/" + spec.name), clock, spec.options, ports_,
                                            [this](std::string message) {
                                              if (failure_.empty()) failure_ = std::move(message);
                                            });
      c->set_links(&links_);
      c->set_replicas([this](size_t) { return replicas_up(); });
      for (int64_t t = 0; t < spec.threads; ++t) c->add_thread();
      c->set_lock_client(info->make(*c, s_.algorithm_options));
      clients_.push_back(std::move(c));
    }
    for (const std::string& name : scenario::interrupted_clients(faults_)) client(name)->allow_interrupts();
    return Status::ok_status();
  }

  Status run(const std::string& version) {
    loop_.restart_clock();
    for (size_t i = 0; i < servers_.size(); ++i) set_node_clock(i);
    monitor_ = std::make_unique<ExecMonitor>(loop_, rec_, [this](uint16_t port, TimeUs now) {
      for (size_t i = 0; i < servers_.size(); ++i) {
        if (servers_[i]->port() == port) return node_clocks_[i].offset_at(now);
      }
      return int64_t{0};
    });
    for (auto& server : servers_) {
      if (Status st = monitor_->watch(server->name(), server->port()); !st.ok()) return st;
    }
    for (auto& c : clients_) c->set_monitor(monitor_.get());
    if (rec_.writer() != nullptr) {
      scenario::write_history_header(*rec_.writer(), s_, seed_,
                                     {{"live", true}, {"redis_version", version}, {"replayable", false}});
    }
    scenario::WorkloadWorld ww{&s_, seed_, &rec_, {}};
    for (auto& c : clients_) ww.clients.push_back(c.get());
    scenario::Workload workload(std::move(ww));
    // A fault on an event is armed at its at_ms and lands when the event comes.
    if (triggers_.needed()) {
      rec_.set_listener(&triggers_);
      for (auto& c : clients_) c->set_on_script_ran([this](const std::string& node, int64_t op) { triggers_.script_executed(node, op); });
    }
    for (size_t i = 0; i < faults_.size(); ++i) {
      at(ms_to_us(faults_[i].at_ms), [this, i] {
        if (faults_[i].on.empty()) {
          start_fault(i);
        } else {
          triggers_.arm(i);
        }
      });
    }
    workload.start();
    const TimeUs end = ms_to_us(s_.duration_ms);
    while (failure_.empty() && interrupt::stop_requested() == 0) {
      const TimeUs now = loop_.now_us();
      if (now >= end) break;
      // A write of the history that failed (a full disk) ends the run now, not at its end.
      if (rec_.writer() != nullptr && rec_.writer()->io_failed()) return Status::error(s_.file + ": " + rec_.writer()->io_error().message());
      loop_.io().run_for(std::chrono::microseconds(std::min<TimeUs>(end - now, 50'000)));
      if (loop_.io().stopped()) loop_.io().restart();
    }
    if (interrupt::stop_requested() != 0) return Status::error(s_.file + ": the live run was interrupted");
    if (!failure_.empty()) return Status::error(s_.file + ": " + failure_);
    if (rec_.writer() != nullptr && rec_.writer()->over_limit()) {
      return Status::error(s_.file + ": the history exceeded limits.max_history_bytes (" +
                           std::to_string(s_.max_history_bytes) + " bytes)");
    }
    const TimeUs now = loop_.now_us();
    for (auto& c : clients_) {
      holds_open_at_end_ += c->holds().open();
      if (c->up()) c->holds().end_all(now, history::HoldEnd::kEnd);
    }
    rec_.end(now, true);
    elapsed_us_ = now;
    return Status::ok_status();
  }

  kernel::Coverage coverage() const {
    kernel::Coverage all;
    for (const auto& c : clients_) all.add(c->coverage());
    return all;
  }

  scenario::RunStats stats() const {
    scenario::RunStats st;
    st.virtual_ms = us_to_ms_floor(elapsed_us_);
    st.ops = static_cast<uint64_t>(rec_.ops_invoked());
    st.faults = faults_.size();
    st.holds_open_at_end = holds_open_at_end_;
    return st;
  }

 private:
  // Runs `fn` at `true_us` of the run's clock.
  void at(TimeUs true_us, std::function<void()> fn) {
    auto timer = std::make_shared<asio::steady_timer>(loop_.io(), loop_.at(true_us));
    timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code ec) {
      if (!ec) fn();
    });
  }

  RedisServer* server(const std::string& name) {
    for (auto& s : servers_) {
      if (s->name() == name) return s.get();
    }
    return nullptr;
  }
  LiveClient* client(const std::string& name) {
    for (auto& c : clients_) {
      if (c->client_name() == name) return c.get();
    }
    return nullptr;
  }

  // At `t`, or now: a crash's fault and its node event carry the same time, as in simulation.
  void record(size_t i, const char* phase, const std::string& params, TimeUs t = -1) {
    const FaultSpec& f = faults_[i];
    rec_.fault(t >= 0 ? t : loop_.now_us(), f.id, fault_kind_name(f.kind), scenario::fault_target(f), phase, params);
  }

  void start_fault(size_t i) {
    const FaultSpec& f = faults_[i];
    RedisServer* node = server(f.target);
    if (f.kind == FaultKind::kFailover) {
      // Recorded after it happened: its record names the replica it promoted.
      const std::string promoted = failover(f.promote);
      nlohmann::json params = nlohmann::json::parse(scenario::fault_params_json(f));
      params["promoted"] = promoted.empty() ? nlohmann::json(nullptr) : nlohmann::json(promoted);
      record(i, "instant", params.dump());
      return;
    }
    const bool instant = scenario::fault_is_instant(f, node != nullptr);
    const TimeUs now = loop_.now_us();
    record(i, instant ? "instant" : "start", scenario::fault_params_json(f), now);
    switch (f.kind) {
      case FaultKind::kPause:
        if (node != nullptr) {
          if (node->running()) node->pause();
          if (is_master(f.target)) master_went_down();
        } else {
          client(f.target)->pause();
        }
        break;
      case FaultKind::kCrash:
        if (node == nullptr) {
          client(f.target)->crash();
        } else if (node->running()) {
          snapshots_[f.target] = snapshot(*node);
          node->kill();
          rec_.node_event(now, f.target, "crashed");
          if (is_master(f.target)) master_went_down();
        } else {
          return;  // already down: nothing restarts it
        }
        break;
      case FaultKind::kRestart:
        restart(*node);
        break;
      case FaultKind::kClockJump:
        change_clock(f.target, [&](kernel::LocalClock& c, TimeUs t) { c.jump(t, ms_to_us(f.delta_ms)); });
        break;
      case FaultKind::kClockOffset:
        change_clock(f.target, [&](kernel::LocalClock& c, TimeUs t) {
          undo_[i] = c.offset_at(t) - ms_to_us(f.offset_ms);
          c.set_offset(t, ms_to_us(f.offset_ms));
        });
        break;
      case FaultKind::kClockDrift:
        change_clock(f.target, [&](kernel::LocalClock& c, TimeUs t) {
          undo_[i] = c.drift_ppm();
          c.set_drift(t, f.drift_ppm);
        });
        break;
      case FaultKind::kReplicationLag:
        repl_extra_us_[node_index(f.target)] += ms_to_us(f.extra_ms);
        break;
      case FaultKind::kDelay:
        windows_[i].push_back(links_.add_delay(f.link, ms_to_us(f.extra_ms)));
        break;
      case FaultKind::kDrop:
        windows_[i].push_back(links_.add_drop(f.link, f.rate_ppm));
        break;
      case FaultKind::kPartition:
        windows_[i].push_back(links_.add_partition(f.groups, f.one_way));
        break;
      case FaultKind::kLoseReply:
        windows_[i].push_back(links_.add_lose_reply(f.target, f.match, f.replies, [this, i] {
          // Ended by its last swallowed reply: recorded once, as the simulator does.
          if (!ended_[i]) {
            ended_[i] = true;
            record(i, "end", "");
          }
        }));
        break;
      case FaultKind::kInterrupt:
      case FaultKind::kCancel: {
        const auto [name, index] = scenario::split_thread(f.target);
        client(name)->interrupt_thread(index, f.kind == FaultKind::kCancel ? runtime::Interrupt::kCancel
                                                                          : runtime::Interrupt::kInterrupt);
        break;
      }
      case FaultKind::kFailover:
        LS_ASSERT(false);  // handled above
    }
    const int64_t after_ms = scenario::fault_end_after_ms(f);
    if (!instant && after_ms >= 0) at(now + ms_to_us(after_ms), [this, i] { end_fault(i); });
  }

  // Changes the clock of process `name`: a node's through the clock shim, a client's own.
  void change_clock(const std::string& name, const std::function<void(kernel::LocalClock&, TimeUs)>& change) {
    if (server(name) == nullptr) {
      client(name)->change_clock(change);
      return;
    }
    const size_t n = node_index(name);
    change(node_clocks_[n], loop_.now_us());
    set_node_clock(n);
  }

  void end_fault(size_t i) {
    const FaultSpec& f = faults_[i];
    if (ended_[i]) return;
    ended_[i] = true;
    for (Links::WindowId w : windows_[i]) links_.remove(w);
    windows_[i].clear();
    RedisServer* node = server(f.target);
    switch (f.kind) {
      case FaultKind::kPause:
        if (node != nullptr) {
          if (node->running() && node->paused()) node->resume();
          if (is_master(f.target) && node->running()) master_came_back();
        } else {
          client(f.target)->resume();
        }
        break;
      case FaultKind::kCrash:
        restart(*node);
        break;
      case FaultKind::kReplicationLag:
        repl_extra_us_[node_index(f.target)] -= ms_to_us(f.extra_ms);
        break;
      // As the simulator ends them: an offset steps back by what it added, a drift returns.
      case FaultKind::kClockOffset:
        change_clock(f.target, [&](kernel::LocalClock& c, TimeUs t) { c.jump(t, undo_[i]); });
        break;
      case FaultKind::kClockDrift:
        change_clock(f.target, [&](kernel::LocalClock& c, TimeUs t) { c.set_drift(t, undo_[i]); });
        break;
      default:
        break;  // a link window (removed above), or a kind that does not end by itself
    }
    record(i, "end", "");
  }

  // --- the replicated topology ---------------------------------------------------------------

  bool is_master(const std::string& name) const { return replicated_ && servers_[master_]->name() == name; }

  int64_t replicas_up() const {
    int64_t n = 0;
    for (size_t i = 0; i < servers_.size(); ++i) {
      if (replicated_ && i != master_ && servers_[i]->running()) ++n;
    }
    return n;
  }

  // Node n replicates from node m through a proxy of its own (the scenario's replication lag,
  // replication_lag faults, partitions between them).
  Status follow(size_t n, size_t m) {
    const std::string master = servers_[m]->name();
    const std::string replica = servers_[n]->name();
    proxies_[n].reset();
    Result<std::unique_ptr<ReplicationProxy>> proxy = ReplicationProxy::start(
        loop_, servers_[m]->port(),
        [this, n] { return s_.topology.replication_lag.draw(repl_rng_) + repl_extra_us_[n]; },
        [this, master, replica] { return links_.partitioned(master, replica); });
    if (!proxy.ok()) return proxy.status();
    proxies_[n] = std::move(proxy.value());
    replica_of_[n] = static_cast<int>(m);
    // A paused node takes the command when it resumes (the request waits in its socket).
    (void)servers_[n]->command({"REPLICAOF", "127.0.0.1", std::to_string(proxies_[n]->port())}, 200);
    return Status::ok_status();
  }

  // node0 is the master; every other node follows it and has synced before the run starts.
  Status start_replication() {
    master_ = 0;
    for (size_t n = 1; n < servers_.size(); ++n) {
      if (Status st = follow(n, 0); !st.ok()) return st;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (size_t n = 1; n < servers_.size(); ++n) {
      while (true) {
        Result<redis::Reply> info = servers_[n]->command({"INFO", "replication"}, 500);
        if (info.ok() && info.value().str.find("master_link_status:up") != std::string::npos) break;
        if (std::chrono::steady_clock::now() > deadline) {
          return Status::error("live: " + servers_[n]->name() + " did not sync with " + servers_[0]->name() + " within 10 s");
        }
        loop_.io().run_for(std::chrono::milliseconds(20));  // the proxies pump while we wait
        if (loop_.io().stopped()) loop_.io().restart();
      }
    }
    return Status::ok_status();
  }

  void master_went_down() {
    if (master_down_) return;
    master_down_ = true;
    const uint32_t episode = ++down_episode_;
    if (s_.topology.failover_detection_ms < 0 || servers_.size() < 2) return;
    at(loop_.now_us() + ms_to_us(s_.topology.failover_detection_ms), [this, episode] {
      if (master_down_ && down_episode_ == episode) failover("");
    });
  }

  void master_came_back() {
    if (!master_down_) return;
    master_down_ = false;
    ++down_episode_;  // any pending detection is void
  }

  // Promotes the replica `preferred` if it can be, else the running replica furthest along;
  // returns its name ("" if none). As the simulator's Cluster::failover.
  std::string failover(const std::string& preferred) {
    const size_t old = master_;
    int cand = -1;
    int64_t best = -1;
    for (size_t n = 0; n < servers_.size(); ++n) {
      if (n == old || !servers_[n]->running() || replica_of_[n] != static_cast<int>(old)) continue;
      if (servers_[n]->name() == preferred) {
        cand = static_cast<int>(n);
        break;
      }
      const int64_t offset = repl_offset(*servers_[n]);
      if (offset > best) {
        best = offset;
        cand = static_cast<int>(n);
      }
    }
    if (cand < 0) return "";
    const size_t c = static_cast<size_t>(cand);
    // What the promoted replica lacks of the old master's keys: lost in the failover.
    std::optional<Snapshot> old_keys = servers_[old]->running() ? snapshot(*servers_[old]) : snapshots_[servers_[old]->name()];
    std::optional<Snapshot> new_keys = snapshot(*servers_[c]);
    (void)servers_[c]->command({"REPLICAOF", "NO", "ONE"}, 200);
    proxies_[c].reset();
    replica_of_[c] = -1;
    master_ = c;
    const TimeUs now = loop_.now_us();
    rec_.node_event(now, servers_[c]->name(), "promoted");
    if (old_keys.has_value() && new_keys.has_value()) {
      const std::vector<std::string> lost = changed_keys(*old_keys, *new_keys);
      if (!lost.empty()) rec_.data_loss(now, servers_[c]->name(), "failover", lost);
    }
    for (size_t n = 0; n < servers_.size(); ++n) {
      if (n == c || n == old || replica_of_[n] != static_cast<int>(old)) continue;
      if (Status st = follow(n, c); !st.ok() && failure_.empty()) failure_ = st.message();
    }
    replica_of_[old] = -1;  // replaced: demoted now if it runs, else when it restarts
    if (servers_[old]->running()) {
      if (Status st = follow(old, c); !st.ok() && failure_.empty()) failure_ = st.message();
      rec_.node_event(now, servers_[old]->name(), "demoted");
    }
    master_down_ = servers_[c]->paused();
    ++down_episode_;
    ports_[0] = servers_[c]->port();
    for (auto& client : clients_) client->endpoint_changed(0);
    return servers_[c]->name();
  }

  // A replica's replication offset (INFO replication), or -1 when it does not answer.
  static int64_t repl_offset(const RedisServer& server) {
    if (server.paused()) return -1;
    Result<redis::Reply> info = server.command({"INFO", "replication"}, 200);
    if (!info.ok()) return -1;
    const std::string& text = info.value().str;
    const size_t at = text.find("slave_repl_offset:");
    return at == std::string::npos ? -1 : std::atoll(text.c_str() + at + std::strlen("slave_repl_offset:"));
  }

  size_t node_index(const std::string& name) const {
    for (size_t i = 0; i < servers_.size(); ++i) {
      if (servers_[i]->name() == name) return i;
    }
    LS_ASSERT(false);
    return 0;
  }

  // Hands node n's clock, from now on, to its server's clock shim.
  void set_node_clock(size_t n) {
    if (!servers_[n]->has_clock()) return;
    const TimeUs now = loop_.now_us();
    servers_[n]->set_clock(node_clocks_[n].offset_at(now), node_clocks_[n].drift_ppm(), loop_.wall_start_us() + now);
  }

  void restart(RedisServer& node) {
    if (node.running()) return;
    Status st = node.restart();
    if (!st.ok()) {
      if (failure_.empty()) failure_ = st.message();
      return;
    }
    const size_t n = node_index(node.name());
    const bool still_master = !replicated_ || n == master_;
    // A node that comes back as a replica resyncs, so only a master's losses are real.
    auto before = snapshots_.find(node.name());
    std::optional<Snapshot> after = still_master ? snapshot(node) : std::nullopt;
    if (before != snapshots_.end() && before->second.has_value() && after.has_value()) {
      const std::vector<std::string> lost = changed_keys(*before->second, *after);
      if (!lost.empty()) rec_.data_loss(loop_.now_us(), node.name(), "restart", lost);
    }
    rec_.node_event(loop_.now_us(), node.name(), "restarted");
    if (replicated_ && still_master && !node.paused()) master_came_back();
    if (replicated_ && !still_master) {
      // A replica follows the master again; the old master, replaced while it was down, comes
      // back demoted.
      const bool replaced = replica_of_[n] < 0;
      if (Status f = follow(n, master_); !f.ok() && failure_.empty()) failure_ = f.message();
      if (replaced) rec_.node_event(loop_.now_us(), node.name(), "demoted");
    }
    if (monitor_ != nullptr) {
      if (Status st = monitor_->watch(node.name(), node.port()); !st.ok() && failure_.empty()) failure_ = st.message();
    }
  }

  const Scenario& s_;
  const uint64_t seed_;
  history::Recorder& rec_;
  const std::vector<FaultSpec>& faults_;
  std::vector<std::vector<Links::WindowId>> windows_;  // by fault: its link windows
  std::vector<bool> ended_;                             // by fault: its end was recorded
  std::vector<int64_t> undo_;                           // by fault: a clock_offset's step back, a clock_drift's old drift
  std::vector<kernel::LocalClock> node_clocks_;         // by node: its clock in the run's time
  // The replicated topology: the master's index, whom each node follows (-1: none), each
  // replica's proxy, the extra lag of replication_lag faults, and the failure detector's state.
  const bool replicated_;
  size_t master_ = 0;
  std::vector<int> replica_of_;
  std::vector<std::unique_ptr<ReplicationProxy>> proxies_;
  std::vector<int64_t> repl_extra_us_;
  Rng repl_rng_;
  bool master_down_ = false;
  uint32_t down_episode_ = 0;
  Links links_;
  std::unique_ptr<TempDir> dir_;
  std::vector<std::unique_ptr<RedisServer>> servers_;
  std::vector<uint16_t> ports_;
  LiveLoop loop_;
  std::unique_ptr<ExecMonitor> monitor_;  // outlives the clients, whose connections it knows
  std::vector<std::unique_ptr<LiveClient>> clients_;
  std::map<std::string, std::optional<Snapshot>> snapshots_;
  // A script's event lands its fault at once, before the reply is judged on its link (see
  // LiveClient::script_ran); a grant lands it after the current step, as the simulator's
  // after(0) does (a crash must not destroy the coroutine that reported the grant).
  scenario::FaultTriggers triggers_{faults_, [this](size_t i, std::string_view event) {
    if (event != "granted") {
      start_fault(i);
      return;
    }
    asio::post(loop_.io(), [this, i] { start_fault(i); });
  }};
  std::string failure_;
  TimeUs elapsed_us_ = 0;
  uint64_t holds_open_at_end_ = 0;
};


}  // namespace

Status LiveRun::supported(const Scenario& s, uint64_t seed) {
  const std::string where = s.file + ": cannot run live: ";
  if (!s.mutant.empty()) return Status::error(where + "a mutant run (mutants replace scripts in simulation only)");
  return Status::ok_status();
}

Status LiveRun::run(const Scenario& s, uint64_t seed, history::Recorder& rec) {
  if (Status st = supported(s, seed); !st.ok()) return st;
  faults_ = scenario::run_faults(s, seed);
  stats_ = {};
  coverage_ = {};
  // Exec events learn their time (MONITOR's) after later events were recorded: the run records
  // into memory and the history is written in time order at the end.
  history::Writer memory(history::Writer::Mode::kMemory, s.max_history_bytes);
  memory.allow_unordered();
  history::Recorder unordered(&memory);
  Session session(s, seed, unordered, faults_);
  if (Status st = session.start(&redis_version_); !st.ok()) return Status::error(s.file + ": " + st.message());
  Status st = session.run(redis_version_);
  stats_ = session.stats();
  coverage_ = session.coverage();
  if (st.ok() && rec.writer() != nullptr) history::write_sorted_by_time(memory.text(), *rec.writer());
  return st;
}

}  // namespace lockstep::live
