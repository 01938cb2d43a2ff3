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
// /proc/self/status (VmHWM, VmRSS). Uses the set-nx-px baseline with its renewal loop; the
// Redisson client's figure belongs with that client (see docs/performance.md).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/bench.h"
#include "sim/history/recorder.h"
#include "sim/history/writer.h"
#include "sim/kernel/node_model.h"
#include "sim/scenario/parse.h"
#include "sim/scenario/world.h"

namespace lockstep::bench {
namespace {

// A field of /proc/self/status in bytes (0 if unavailable).
int64_t proc_status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return 0;
}

nlohmann::json scenario_json(int64_t clients) {
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
  s["algorithm"] = {{"name", "set-nx-px"}, {"options", {{"retry_delay_ms", 10000}}}};
  s["clients"] = {{"count", clients}, {"threads", 1}};
  s["workload"]["generator"] = generator;
  s["limits"]["max_events"] = int64_t{100'000'000'000};
  return s;
}

}  // namespace

nlohmann::json run_b5_memory(const BenchOptions& options) {
  const int64_t clients = options.quick ? 10'000 : 100'000;
  nlohmann::json out = {{"id", "B5"},
                        {"what", "peak RSS per virtual client holding or waiting on a lock with renewal"},
                        {"target", "<= 4096 bytes per client"}};
  Result<scenario::Scenario> s = scenario::parse_scenario_text(scenario_json(clients).dump(), "b5");
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
  out["met"] = per_client <= 4096;
  out["note"] = "set-nx-px baseline with its renewal loop (lease -1); repeats do not apply (one "
                "peak per process)";
  return out;
}

}  // namespace lockstep::bench
