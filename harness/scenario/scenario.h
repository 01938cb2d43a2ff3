// Scenario: one simulated run, as its JSON file (docs/scenarios.md) describes it.
//
// The parser (parse.h) turns the file into these structs, checking everything it can on the
// way: types, ranges, unknown fields, names that must exist, times that must fall inside the
// run. What it returns is complete and consistent; the world builder (world.h) trusts it.
// Times are in milliseconds of virtual time unless the field name says otherwise.
#ifndef LOCKSTEP_HARNESS_SCENARIO_SCENARIO_H_
#define LOCKSTEP_HARNESS_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/runtime.h"
#include "sim/core/fault_kind.h"
#include "sim/history/events.h"
#include "sim/kernel/latency.h"
#include "sim/kernel/node_process.h"

namespace lockstep::scenario {

// Hard limits (docs/scenarios.md lists them).
struct Limits {
  static constexpr int64_t kMaxDurationMs = int64_t{30} * 24 * 3600 * 1000;  // 30 days
  static constexpr int64_t kMaxClients = 100'000;
  static constexpr int64_t kMaxThreadsPerClient = 4096;
  static constexpr int64_t kMaxThreads = 1'000'000;
  static constexpr int64_t kMaxReplicas = 8;
  static constexpr int64_t kMaxMasters = 15;
  static constexpr int64_t kMaxFaults = 100'000;
  static constexpr int64_t kMaxSteps = 100'000;     // per script entry, nested steps included
  static constexpr int64_t kMaxNesting = 8;
  static constexpr int64_t kMaxRepeat = 10'000'000;
  static constexpr uint64_t kDefaultMaxEvents = 1'000'000'000;
  static constexpr uint64_t kMaxEvents = 100'000'000'000;
  static constexpr uint64_t kDefaultMaxHistoryBytes = uint64_t{4} << 30;
  static constexpr uint64_t kMaxHistoryBytes = uint64_t{256} << 30;
};

struct ClockJump {
  int64_t at_ms = 0;
  int64_t delta_ms = 0;
};

struct ClockSpec {
  int64_t offset_ms = 0;
  int64_t drift_ppm = 0;
  std::vector<ClockJump> jumps;  // become clock_jump faults
};

struct NodeSpec {
  kernel::NodeOptions options;
  ClockSpec clock;
};

enum class TopologyKind : uint8_t { kSingle, kReplicated, kIndependent };

struct TopologySpec {
  TopologyKind kind = TopologyKind::kSingle;
  int64_t replicas = 0;  // replicated
  int64_t masters = 1;   // independent
  kernel::LatencyDist replication_lag = kernel::LatencyDist::fixed(1000);
  int64_t failover_detection_ms = -1;  // -1: no automatic failover
};

struct LinkSpec {
  std::string from;
  std::string to;
  bool both_ways = true;
  kernel::LinkSpec spec;
};

struct NetworkSpec {
  kernel::LinkSpec defaults = kernel::LinkSpec{kernel::LatencyDist::fixed(200), 0};
  std::vector<LinkSpec> links;
};

struct ClientSpec {
  std::string name;
  int64_t threads = 1;
  ClockSpec clock;
  runtime::ClientOptions options;
};

// kCommand and kEval are raw steps: any command or script, sent on the thread's client's
// command connection to one node, as an operator or another program would (docs/scenarios.md,
// "Raw steps"). The node records them (exec events without an op); they are no lock operation.
enum class StepOp : uint8_t { kLock, kTryLock, kUnlock, kForceUnlock, kHold, kSleep, kWrite, kRepeat, kCommand, kEval };

struct Step {
  StepOp op = StepOp::kHold;
  int64_t at_ms = -1;  // wait until the thread's local clock reads this (-1: no wait)
  std::string lock;
  std::string object;  // the lock object called through (lock/try_lock/unlock); "": a fresh one
  bool interruptibly = false;  // lock: lockInterruptibly()
  history::LockMode mode = history::LockMode::kExclusive;
  int64_t wait_ms = -1;
  int64_t lease_ms = -1;
  int64_t ms = 0;  // hold / sleep
  std::string resource;
  bool fenced = false;
  int64_t times = 0;  // repeat
  // command: the command and its arguments; eval: EVAL's script body, keys and args.
  std::vector<std::string> argv;
  std::string script;
  std::vector<std::string> keys, args;
  int64_t endpoint = 0;  // command/eval: the client's endpoint (independent masters: the node's index)
  std::vector<std::string> state_keys;  // command/eval: keys the node records right after it (`state` events)
  std::vector<Step> steps;      // repeat: the body; acquire: run if acquired ("then")
  std::vector<Step> otherwise;  // acquire: run if not acquired ("else")
};

struct ScriptEntry {
  std::vector<std::string> threads;  // resolved thread names ("c1/t0"), in client/thread order
  std::vector<Step> steps;
};

struct GeneratorSpec {
  int64_t ops_per_thread = 10;
  std::vector<std::string> locks = {"L"};
  enum class Acquire : uint8_t { kLock, kTryLock, kMixed } acquire = Acquire::kLock;
  std::vector<int64_t> wait_ms = {1000};
  std::vector<int64_t> lease_ms = {-1};
  // Swarm: in this share of the seeds (0..100), leases come from lease_swarm_ms instead.
  int64_t lease_swarm_percent = 0;
  std::vector<int64_t> lease_swarm_ms;
  int64_t hold_min_ms = 10, hold_max_ms = 100;
  int64_t think_min_ms = 0, think_max_ms = 100;
  int64_t start_min_ms = 0, start_max_ms = 0;
  int64_t read_percent = 0;  // read-write locks only
  bool modes = false;        // the algorithm has read/write modes (else every op is exclusive)
  std::string resource;      // empty: no writes
  bool fenced = false;
  bool write_at_end = false;  // write after the hold, just before the release (a late, possibly stale write)
};

struct WorkloadSpec {
  std::vector<ScriptEntry> script;
  std::optional<GeneratorSpec> generator;
};

// Which directed links a delay or drop fault touches.
struct LinkTarget {
  enum class Kind : uint8_t { kAll, kProcess, kDirected, kBetween } kind = LinkTarget::Kind::kAll;
  std::string a;
  std::string b;
};

// What an event-triggered fault waits for (docs/scenarios.md "Faults on events"): the first
// `event` at or after the fault's at_ms of `thread` (or of any thread of `client`), on `node`
// for the events a node sees.
struct FaultTrigger {
  std::string event;   // "": no trigger (the fault lands at at_ms); else one of kTriggerEvents
  std::string thread;  // "c1/t0", or "" (then `client`)
  std::string client;  // "c1": any of its threads, or ""
  std::string node;    // *_executed events: only a run on this node; "": any
  bool short_form = false;  // written as "on": "<event>" (its subject is the fault's target)
  bool empty() const { return event.empty(); }
};

// The events a trigger can wait for: a script of the subject's acquisition, unlock or renewal
// ran on a node (before its reply leaves the node); the subject's acquisition returned holding
// the lock (client side).
inline const std::vector<std::string> kTriggerEvents = {"acquire_executed", "unlock_executed",
                                                        "renew_executed", "granted"};

struct FaultSpec {
  int64_t id = 0;  // the history's fault number
  FaultKind kind = FaultKind::kDelay;  // what the rest means: fault_table.h
  int64_t at_ms = 0;
  int64_t duration_ms = -1;  // -1: instant, or until the end of the run
  std::string target;        // a process name (pause, crash, restart, clock_*, failover, ...)
  LinkTarget link;           // delay, drop
  std::vector<std::vector<std::string>> groups;  // partition
  bool one_way = false;
  int64_t extra_ms = 0;      // delay, replication_lag
  int64_t rate_ppm = 1'000'000;  // drop
  int64_t offset_ms = 0;     // clock_offset
  int64_t drift_ppm = 0;     // clock_drift
  int64_t delta_ms = 0;      // clock_jump
  int64_t restart_after_ms = -1;  // crash of a node
  std::string promote;       // failover
  std::string match;         // lose_reply
  int64_t replies = 1;       // lose_reply
  // interrupt, cancel: the thread ("c1/t0") is `target`.
  // With a trigger the fault waits, from at_ms, for its event and lands right after it.
  FaultTrigger on;
  std::string origin;        // "/faults/schedule/3", "random", "/nodes/node0/clock/jumps/0"
};

// An inclusive integer range to draw from.
struct Range {
  int64_t lo = 0;
  int64_t hi = 0;
};

struct RandomKind {
  FaultKind kind = FaultKind::kDelay;
  Range count{1, 1};
  std::vector<std::string> targets;  // empty: every process the kind applies to
  std::map<std::string, Range> params;  // duration_ms, extra_ms, rate_ppm, delta_ms, ...
  int64_t one_way_percent = 0;       // partition
  std::string match;                 // lose_reply
  // A share of the drawn faults placed on events (FaultTrigger) of a client instead of landing
  // at their drawn time, which then only arms them; the events to choose from.
  int64_t on_percent = 0;
  std::vector<std::string> on_events = kTriggerEvents;
};

struct RandomProfile {
  Range window_ms{0, 0};
  bool swarm = true;
  std::vector<RandomKind> kinds;
};

struct ChecksSpec {
  std::vector<std::string> properties;  // empty: all that apply
  int64_t liveness_bound_ms = -1;
  int64_t drift_tolerance_us = 0;
};

struct ExpectSpec {
  std::string verdict = "ok";  // ok | violation | unknown
  std::string property;        // violation: which property
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  int64_t duration_ms = 0;
  ExpectSpec expect;
  std::string algorithm;
  std::string algorithm_file;  // a Lua algorithm's file (canonical path), or "" for a built-in one
  nlohmann::json algorithm_options = nlohmann::json::object();
  TopologySpec topology;
  std::vector<std::string> node_names;  // node0, node1, ...
  std::vector<NodeSpec> nodes;          // parallel to node_names
  NetworkSpec network;
  std::vector<ClientSpec> clients;
  WorkloadSpec workload;
  std::vector<FaultSpec> schedule;      // fixed faults, with clock jumps of the clock specs
  std::optional<RandomProfile> random;
  ChecksSpec checks;
  uint64_t max_events = Limits::kDefaultMaxEvents;
  uint64_t max_history_bytes = Limits::kDefaultMaxHistoryBytes;
  // A mutant run (algorithms/mutants): set by RunOptions::mutant, never read from a file.
  std::string mutant;

  bool is_node(const std::string& name) const;
  bool is_client(const std::string& name) const;
  int64_t total_threads() const;
};

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_SCENARIO_H_
