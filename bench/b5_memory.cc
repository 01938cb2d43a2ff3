// Benchmark B5 (docs/performance.md): memory per virtual client.
//
// 100,000 clients (10,000 with --quick), one thread each, on 1,000 locks (100 clients per lock):
// one client per lock holds it with no lease, so the renewal loop keeps it (every third of the
// 30 s watchdog timeout), the others wait in lock(), retrying. The run lasts 35 s of virtual
// time, so every holder renews at least three times. The history is recorded but discarded (its
// writer keeps no text), so what is measured is the simulation: processes, coroutine frames,
// connections, timers, the node model's keys and connections.
//
// Figure: (peak RSS after the run - RSS before building the world) / clients, from
// /proc/self/status (VmHWM, VmRSS). Two algorithms, each in its own forked child process (the
// peak is a property of the process): the set-nx-px baseline with its renewal loop, and
// Redisson's RLock with its watchdog, where every waiter also holds a pub/sub subscription and
// waits on its semaphore.
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/world.h"
#include "sim/history/recorder.h"
#include "sim/history/writer.h"
#include "sim/kernel/node_model.h"

namespace lockstep::bench {
namespace {

nlohmann::json scenario_json(int64_t clients, const std::string& algorithm) {
  nlohmann::json generator = {{"ops_per_thread", 1},
                              {"locks", {{"count", clients / 100}}},
                              {"acquire", "lock"},
                              {"lease_ms", -1},
                              {"hold_ms", 600000},
                              {"think_ms", 0},
                              {"start_ms", {0, 1000}}};
  nlohmann::json s;
  s["name"] = "b5-memory";
  s["duration_ms"] = 35000;
  s["algorithm"] = {{"name", algorithm}};
  if (algorithm == "set-nx-px") s["algorithm"]["options"] = {{"retry_delay_ms", 10000}};
  s["clients"] = {{"count", clients}, {"threads", 1}};
  s["workload"]["generator"] = generator;
  s["limits"]["max_events"] = int64_t{100'000'000'000};
  return s;
}

// One measurement, in the calling process.
nlohmann::json measure(int64_t clients, const std::string& algorithm) {
  nlohmann::json out = {{"algorithm", algorithm}};
  Result<scenario::Scenario> s = scenario::parse_scenario_text(scenario_json(clients, algorithm).dump(), "b5");
  kernel::NodeModelFactory factory = kernel::redis_node_model_factory();
  if (!s.ok() || !factory) {
    out["status"] = "error";
    out["error"] = s.ok() ? "no Redis node model in this build" : s.status().message();
    return out;
  }
  const int64_t rss_before = proc_status_bytes("VmRSS");
  const auto wall_start = std::chrono::steady_clock::now();
  history::Writer writer(history::Writer::Mode::kDiscard);
  history::Recorder rec(&writer);
  uint64_t holders = 0;
  int64_t waiting = 0;
  uint64_t events = 0;
  uint64_t renewals = 0;
  {
    scenario::World world(s.value(), 1, rec, factory);
    Status st = world.run();
    if (!st.ok()) {
      out["status"] = "error";
      out["error"] = st.message();
      return out;
    }
    events = world.loop().events_run();
    holders = world.stats().holds_open_at_end;
    // Every client is blocked at the end: holders in their hold (sleeping), waiters in lock().
    for (const auto& c : world.clients()) waiting += c->waits_open() > 0 ? 1 : 0;
    waiting -= static_cast<int64_t>(holders);
    renewals = static_cast<uint64_t>(world.recorder().ops_invoked()) - static_cast<uint64_t>(clients);
  }
  const int64_t hwm = proc_status_bytes("VmHWM");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const int64_t per_client = (hwm - rss_before) / clients;
  out["results"] = {{"clients", clients},
                    {"algorithm", algorithm},
                    {"holders_at_end", holders},
                    {"waiting_at_end", waiting},
                    {"renewals", renewals},
                    {"virtual_ms", 35000},
                    {"events", events},
                    {"history_bytes_discarded", writer.bytes()},
                    {"rss_before_bytes", rss_before},
                    {"peak_rss_bytes", hwm},
                    {"bytes_per_client", per_client},
                    {"wall_s", wall_s}};
  out["bytes_per_client"] = per_client;
  return out;
}

}  // namespace

nlohmann::json run_b5_memory(const BenchOptions& options) {
  const int64_t clients = options.quick ? 10'000 : 100'000;
  nlohmann::json out = {{"id", "B5"},
                        {"what", "peak RSS per virtual client holding or waiting on a lock with renewal"},
                        {"target", "<= 4096 bytes per client"}};
  bool met = true;
  for (const char* algorithm : {"set-nx-px", "redisson-lock"}) {
    nlohmann::json r = run_in_child([&] { return measure(clients, algorithm); });
    if (!r.contains("algorithm")) r["algorithm"] = algorithm;
    met = met && r.value("bytes_per_client", int64_t{1} << 40) <= 4096;
    out["results"].push_back(r.contains("results") ? r["results"] : r);
  }
  out["met"] = met;
  out["machine"] = machine();
  out["note"] = "each algorithm in its own child process; repeats do not apply (one peak per process)";
  return out;
}

}  // namespace lockstep::bench
