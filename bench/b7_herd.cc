// Benchmark B7 (docs/performance.md): Redisson's wake-all herd at scale.
//
// 10,000 redisson-lock clients (300 with --quick, a smoke run), one thread each, all on one lock L for
// 10 s of virtual time: each takes L with the watchdog, holds it 10-100 ms, unlocks, thinks
// 0-10 ms and asks again. Every unlock publishes on L's channel, and every waiter, subscribed,
// wakes and retries: Redisson's herd, which is real and stays. What is measured is what the
// simulator pays for it: wall time and peak RSS of the run (in a child process of its own), and
// wall time per delivered pub/sub message. The history is recorded but discarded.
#include <chrono>
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

constexpr int64_t kVirtualMs = 10'000;

nlohmann::json scenario_json(int64_t clients) {
  nlohmann::json s;
  s["name"] = "b7-herd";
  s["duration_ms"] = kVirtualMs;
  s["algorithm"] = {{"name", "redisson-lock"}};
  s["clients"] = {{"count", clients}, {"threads", 1}};
  s["workload"]["generator"] = {{"ops_per_thread", 1000},
                                {"locks", {"L"}},
                                {"acquire", "lock"},
                                {"lease_ms", {-1}},
                                {"hold_ms", {10, 100}},
                                {"think_ms", {0, 10}},
                                {"start_ms", {0, 1000}}};
  s["limits"]["max_events"] = int64_t{100'000'000'000};
  return s;
}

nlohmann::json measure(int64_t clients) {
  Result<scenario::Scenario> s = scenario::parse_scenario_text(scenario_json(clients).dump(), "b7");
  kernel::NodeModelFactory factory = kernel::redis_node_model_factory();
  if (!s.ok() || !factory) {
    return {{"status", "error"}, {"error", s.ok() ? "no Redis node model in this build" : s.status().message()}};
  }
  const int64_t rss_before = proc_status_bytes("VmRSS");
  const auto wall_start = std::chrono::steady_clock::now();
  history::Writer writer(history::Writer::Mode::kDiscard);
  history::Recorder rec(&writer);
  scenario::RunStats stats;
  uint64_t events = 0;
  {
    scenario::World world(s.value(), 1, rec, factory, /*count_coverage=*/false);
    Status st = world.run();
    if (!st.ok()) return {{"status", "error"}, {"error", st.message()}};
    events = world.loop().events_run();
    stats = world.stats();
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const int64_t hwm = proc_status_bytes("VmHWM");
  return {{"clients", clients},
          {"virtual_ms", kVirtualMs},
          {"lock_operations", stats.ops},
          {"messages_sent", stats.messages_sent},
          {"events", events},
          {"history_bytes_discarded", writer.bytes()},
          {"wall_s", wall_s},
          {"us_per_message", stats.messages_sent == 0 ? 0.0 : wall_s * 1e6 / static_cast<double>(stats.messages_sent)},
          {"rss_before_bytes", rss_before},
          {"peak_rss_bytes", hwm}};
}

}  // namespace

nlohmann::json run_b7_herd(const BenchOptions& options) {
  const int64_t clients = options.quick ? 300 : 10'000;
  nlohmann::json r = run_in_child([&] { return measure(clients); });
  const bool ok = !r.contains("status");
  const bool met = ok && r["wall_s"].get<double>() <= 10.0 && r["peak_rss_bytes"].get<int64_t>() <= int64_t{500} << 20;
  return {{"id", "B7"},
          {"what", "10,000 redisson-lock clients on one lock for 10 s of virtual time (the wake-all herd)"},
          {"results", r},
          {"target", "<= 10 s wall and <= 500 MiB peak RSS for 10,000 clients"},
          {"met", !options.quick && met},
          {"quick", options.quick},
          {"machine", machine()},
          {"note", "one run in its own child process (a peak RSS per process); --repeat does not apply"}};
}

}  // namespace lockstep::bench
