// The benchmarks of docs/performance.md (B1..B7), run by `lockstep bench`.
//
// Each benchmark measures its subject and, in the same run, the reference it is compared with,
// and returns one JSON object: {"id": "B1", "what": ..., "results": {...}, "target": ...,
// "met": true/false}. Figures are medians of `repeats` runs.
#ifndef LOCKSTEP_BENCH_BENCH_H_
#define LOCKSTEP_BENCH_BENCH_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep::bench {

struct BenchOptions {
  int repeats = 5;     // runs per figure; the median is reported
  bool quick = false;  // smaller sizes, for a smoke test in CI (figures are not meaningful)
  int jobs = 1;        // B6: worker processes (it counts seeds, not time, so they change nothing)
  std::string algorithm;  // B6: only this algorithm's targets (empty: all)
};

nlohmann::json run_b1_script(const BenchOptions& options);
nlohmann::json run_b2_sim(const BenchOptions& options);
nlohmann::json run_b3_check(const BenchOptions& options);
nlohmann::json run_b4_explore(const BenchOptions& options);
nlohmann::json run_b5_memory(const BenchOptions& options);
nlohmann::json run_b6_bugs(const BenchOptions& options);
// The algorithms B6 has targets for (with `quick`: those its smoke run keeps), in its order.
std::vector<std::string> b6_algorithms(bool quick);
nlohmann::json run_b7_herd(const BenchOptions& options);

}  // namespace lockstep::bench

#endif  // LOCKSTEP_BENCH_BENCH_H_
