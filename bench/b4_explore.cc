// Benchmark B4 (docs/performance.md): exploration throughput.
//
// The scenario: RedissonRedLock ("redisson-redlock") over 5 independent masters, 5 clients with
// one thread each doing 20 lock operations (tryLock with a wait and a lease, hold, unlock) on one
// lock, 30 s of virtual time, and the generic random fault profile: every fault kind that applies
// to independent masters, swarm-selected per seed. Each seed is a full run: simulate, record the
// history in memory, check every property, judge it.
//
// Figures, each the median of `repeats` runs of `seeds` seeds through the same code path as
// `lockstep explore` (forked workers):
//   seeds_per_s_jobs1 / _jobs2  wall-clock throughput with 1 and 2 workers;
//   scaling                     jobs2 ÷ jobs1 (linear on 2 cores = 2.0);
//   seeds_per_cpu_s             seeds per CPU-second of the workers (user + system, from
//                               RUSAGE_CHILDREN): the per-core figure, which machine load
//                               distorts far less than wall time.
// Target: >= 200 seeds per second per core, scaling linearly with --jobs.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "harness/explore/explore.h"
#include "harness/scenario/parse.h"

namespace lockstep::bench {
namespace {

const char* kScenario = R"({
  "name": "b4-redlock-explore",
  "description": "B4: RedissonRedLock over 5 masters, 5 clients x 20 operations, the generic random fault profile.",
  "duration_ms": 30000,
  "algorithm": {"name": "redisson-redlock"},
  "topology": {"kind": "independent", "masters": 5},
  "network": {"latency": {"kind": "uniform", "min_us": 200, "max_us": 2000}},
  "clients": {"count": 5, "options": {"timeout_ms": 1000, "retry_attempts": 1, "retry_interval_ms": 200}},
  "workload": {"generator": {"ops_per_thread": 20, "locks": ["L"], "acquire": "try_lock",
                             "wait_ms": [200, 1000], "lease_ms": [2000, 5000],
                             "hold_ms": [10, 300], "think_ms": [0, 200]}},
  "faults": {"random": {"window_ms": [0, 25000], "swarm": true, "kinds": [
    {"kind": "pause", "count": [0, 2], "duration_ms": [100, 6000]},
    {"kind": "crash", "count": [0, 1], "restart_after_ms": [100, 5000]},
    {"kind": "clock_jump", "count": [0, 2], "delta_ms": [-3000, 3000]},
    {"kind": "clock_drift", "count": [0, 1], "drift_ppm": [-5000, 5000], "duration_ms": [1000, 10000]},
    {"kind": "partition", "count": [0, 2], "duration_ms": [100, 5000], "one_way_percent": 50},
    {"kind": "drop", "count": [0, 2], "rate_ppm": [100000, 1000000], "duration_ms": [100, 3000]},
    {"kind": "delay", "count": [0, 2], "extra_ms": [10, 2000], "duration_ms": [100, 3000]},
    {"kind": "lose_reply", "count": [0, 2], "replies": [1, 2]}]}}
})";

double children_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Run {
  double wall_s = 0;
  double cpu_s = 0;
  uint64_t violating = 0;
  uint64_t errors = 0;
};

Run explore_once(const scenario::Scenario& s, uint64_t seeds, int jobs) {
  explore::ExploreOptions o;
  o.range = explore::SeedRange{1, seeds};
  o.jobs = jobs;
  const double cpu0 = children_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  Result<explore::ExploreSummary> sum = explore::run_explore(s, o);
  Run r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_s = children_cpu_s() - cpu0;
  if (sum.ok()) {
    for (const auto& [p, n] : sum.value().violations) r.violating = std::max(r.violating, n);
    for (const char* k : {"error", "crashed"}) {
      auto it = sum.value().verdicts.find(k);
      if (it != sum.value().verdicts.end()) r.errors += it->second;
    }
  } else {
    r.errors = seeds;
  }
  return r;
}

}  // namespace

nlohmann::json run_b4_explore(const BenchOptions& options) {
  const nlohmann::json what = "RedissonRedLock, 5 masters, 5 clients x 20 ops, generic random fault profile: seeds/s";
  Result<scenario::Scenario> s = scenario::parse_scenario_text(kScenario, "b4-redlock-explore.json");
  if (!s.ok()) return {{"id", "B4"}, {"what", what}, {"status", "error"}, {"error", s.status().message()}};
  const uint64_t seeds = options.quick ? 20 : 400;
  const int repeats = std::max(1, options.repeats);
  std::vector<double> jobs1, jobs2, per_cpu, scaling;
  Run last;
  for (int i = 0; i < repeats; ++i) {
    // Interleaved, so a change in machine load hits both.
    const Run a = explore_once(s.value(), seeds, 1);
    const Run b = explore_once(s.value(), seeds, 2);
    jobs1.push_back(static_cast<double>(seeds) / a.wall_s);
    jobs2.push_back(static_cast<double>(seeds) / b.wall_s);
    per_cpu.push_back(static_cast<double>(2 * seeds) / (a.cpu_s + b.cpu_s));
    scaling.push_back(a.wall_s / b.wall_s);
    last = b;
  }
  const double per_core = median(per_cpu);
  const nlohmann::json results = {{"seeds_per_run", seeds},
                                  {"seeds_per_s_jobs1", median(jobs1)},
                                  {"seeds_per_s_jobs2", median(jobs2)},
                                  {"scaling_jobs2_over_jobs1", median(scaling)},
                                  {"seeds_per_cpu_s", per_core},
                                  {"seeds_with_a_violation", last.violating},
                                  {"seeds_with_errors", last.errors}};
  return {{"id", "B4"},
          {"what", what},
          {"results", results},
          {"target", ">= 200 seeds/s per core, linear scaling with --jobs"},
          {"met", per_core >= 200 && median(scaling) >= 1.8},
          {"repeats", repeats},
          {"quick", options.quick},
          {"machine", machine()}};
}

}  // namespace lockstep::bench
