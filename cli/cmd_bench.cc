// `lockstep bench`: runs the benchmarks of docs/performance.md and prints one JSON object per
// benchmark on stdout (progress goes to stderr), so figures can be compared between commits.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "cli/commands.h"
#include "sim/core/interrupt.h"

namespace lockstep::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> only;
  bench::BenchOptions options;
};

int run_benchmarks(const BenchArgs& args) {
  struct Entry {
    const char* id;
    nlohmann::json (*run)(const bench::BenchOptions&);
  };
  const Entry entries[] = {{"B1", bench::run_b1_script},
                           {"B2", bench::run_b2_sim},
                           {"B3", bench::run_b3_check},
                           {"B4", bench::run_b4_explore},
                           {"B5", bench::run_b5_memory},
                           {"B6", bench::run_b6_bugs},
                           {"B7", bench::run_b7_herd}};
  for (const std::string& id : args.only) {
    bool known = false;
    for (const Entry& e : entries) known = known || id == e.id;
    if (!known) {
      std::fprintf(stderr, "lockstep bench: unknown benchmark '%s' (expected B1..B7)\n", id.c_str());
      return kExitBadInput;
    }
  }
  const auto join = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
  };
  const auto chosen = [&](const std::string& id) {
    return args.only.empty() || std::find(args.only.begin(), args.only.end(), id) != args.only.end();
  };
  if (!args.options.algorithm.empty()) {
    if (!chosen("B6")) {
      std::fprintf(stderr, "lockstep bench: --algorithm chooses B6's targets, and --only leaves B6 out\n");
      return kExitBadInput;
    }
    const std::vector<std::string> names = bench::b6_algorithms(args.options.quick);
    if (std::find(names.begin(), names.end(), args.options.algorithm) == names.end()) {
      std::fprintf(stderr, "lockstep bench: B6%s has no target of algorithm '%s' (it has: %s)\n",
                   args.options.quick ? " --quick" : "", args.options.algorithm.c_str(), join(names).c_str());
      return kExitBadInput;
    }
  }
  // Ctrl-C: the scratch histories (B2, B3: up to GBs in the temporary directory) are removed.
  interrupt::exit_on_signal("lockstep bench");
  std::vector<std::string> failed;
  for (const Entry& e : entries) {
    if (!chosen(e.id)) continue;
    std::fprintf(stderr, "lockstep bench: running %s...\n", e.id);
    const nlohmann::json result = e.run(args.options);
    std::cout << result.dump() << std::endl;
    if (result.value("status", "") == "error") failed.push_back(e.id);
  }
  if (failed.empty()) return kExitOk;
  // A benchmark that could not measure (no redis-server, a child that failed) is no figure.
  std::fprintf(stderr, "lockstep bench: %s failed (its \"error\" says why)\n", join(failed).c_str());
  return kExitBadInput;
}

}  // namespace

void register_bench(CLI::App& app, Action& action) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", "Run the performance benchmarks (JSON, one line each)");
  sub->add_option("--only", args->only, "Run only these benchmarks (B1..B7)");
  sub->add_option("--repeat", args->options.repeats, "Runs per figure; the median is reported")
      ->check(CLI::Range(1, 101));
  sub->add_flag("--quick", args->options.quick, "Small sizes: a smoke test, not a measurement");
  sub->add_option("-j,--jobs", args->options.jobs, "B6: worker processes (B6 counts seeds; the others time one core)")
      ->check(CLI::Range(1, 256));
  sub->add_option("--algorithm", args->options.algorithm, "B6: only this algorithm's targets");
  sub->callback([&action, args] { action = [args] { return run_benchmarks(*args); }; });
}

}  // namespace lockstep::cli
