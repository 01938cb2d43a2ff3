// Benchmark B3 (docs/performance.md): the checker, end to end, on large histories.
//
//  (a) 1,000,000 operations shaped like B2's run: 1,000 client threads on 100 reentrant locks
//      with the watchdog, holds 10-100 ms, think 0-100 ms. Until B2 records a real one, the
//      history comes from the checker's legal-history generator (checker/testing), which
//      simulates a correct lock with the same shape; it logs exec events, as the simulator does.
//  (b) the hard case: 10,000 operations on one lock from 64 threads, 30% tryLock, ~5% of the
//      calls with a lost request or reply (unknown outcome).
//  (c) the hard illegal case: (b) with one injected illegal acquisition (a ghost owner takes the
//      lock inside another owner's believed hold), seeds 1-6; how many are refuted, and the
//      slowest, in three modes: the default, the search alone with a 3 s window on unknown
//      outcomes, the search alone with unbounded windows.
// Each history is written to a temporary file and checked by `lockstep check` in a child process
// (this binary, /proc/self/exe), so the figures are what a user sees: wall time including
// parsing, and the child's peak RSS (wait4). Both are measured with the logged execution order
// (the default: linear-time verification) and with --no-exec-order (the Wing–Gong/Lowe search
// alone, as Porcupine would run). Figures are medians of `repeats` runs.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.h"
#include "sim/core/interrupt.h"
#include "bench/bench_util.h"
#include "checker/testing/history_gen.h"
#include "sim/core/assert.h"

extern char** environ;

namespace lockstep::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double wall_s = 0;
  double cpu_s = 0;  // user + system: what the check cost, whatever else shares the machine
  int64_t rss_kb = 0;
  int exit_code = -1;
  std::string verdict;
  std::string linearizability;
};

// Runs `lockstep check FILE --json OUT ARGS...` in a child process.
Run run_check(const std::string& file, const std::vector<std::string>& extra) {
  const std::string out = file + ".result.json";
  interrupt::PartialOutputs scratch;  // gone at the end, and on Ctrl-C (cmd_bench.cc)
  scratch.add(out);
  std::vector<std::string> args = {"lockstep", "check", file, "--json", out};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  Run run;
  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return run;
  }
  interrupt::remember_process(pid);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  interrupt::forget_process(pid);
  run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  posix_spawn_file_actions_destroy(&actions);
  run.rss_kb = usage.ru_maxrss;
  run.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  nlohmann::json result = nlohmann::json::parse(std::ifstream(out), nullptr, false);
  if (!result.is_discarded() && result.is_object()) {
    run.verdict = result.value("verdict", "");
    for (const auto& p : result["properties"]) {
      if (p.value("name", "") == "linearizability") run.linearizability = p.value("verdict", "") + ": " + p.value("reason", "");
    }
  }
  return run;
}

// Checks `file` `repeats` times; the median wall time, the largest peak RSS, the verdicts.
nlohmann::json measure(const std::string& file, const std::vector<std::string>& extra, int repeats) {
  std::vector<double> walls, cpus;
  int64_t rss_kb = 0;
  Run last;
  for (int i = 0; i < repeats; ++i) {
    last = run_check(file, extra);
    walls.push_back(last.wall_s);
    cpus.push_back(last.cpu_s);
    rss_kb = std::max(rss_kb, last.rss_kb);
  }
  return {{"wall_s_median", median(walls)}, {"cpu_s_median", median(cpus)},
          {"peak_rss_mib", static_cast<double>(rss_kb) / 1024.0},
          {"exit_code", last.exit_code}, {"verdict", last.verdict}, {"linearizability", last.linearizability}};
}

struct Shape {
  std::string name;
  checker::testing::GenOptions options;
  uint64_t seed = 20260101;
};

// Writes the history of `shape` to `file` from a forked child, so this process never holds it:
// the checker child's peak RSS (which starts from this process's pages) stays its own.
bool generate_file(const Shape& shape, const std::string& file) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const std::string text = checker::testing::generate_history(shape.options, shape.seed);
    std::ofstream out(file, std::ios::binary);
    out << text;
    out.flush();
    _exit(out ? 0 : 1);
  }
  interrupt::remember_process(pid);  // Ctrl-C: killed before its file is removed, so none is left
  int status = 0;
  waitpid(pid, &status, 0);
  interrupt::forget_process(pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Counts the operations and unknown outcomes in the history file, line by line.
void count_ops(const std::string& file, int64_t* ops, int64_t* unknown, int64_t* bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    *bytes += static_cast<int64_t>(line.size()) + 1;
    *ops += line.find("\"type\": \"invoke\"") != std::string::npos;
    *unknown += line.find("\"outcome\": \"unknown\"") != std::string::npos;
  }
}

nlohmann::json bench_shape(const Shape& shape, int repeats, const std::string& dir) {
  const std::string file = dir + "/lockstep-b3-" + std::to_string(getpid()) + "-" + shape.name + ".jsonl";
  interrupt::PartialOutputs scratch;  // a history of up to 0.5 GB: gone at the end, and on Ctrl-C
  scratch.add(file);
  if (!generate_file(shape, file)) return {{"error", "could not generate " + file}};
  int64_t ops = 0, unknown = 0, bytes = 0;
  count_ops(file, &ops, &unknown, &bytes);
  nlohmann::json j = {{"operations", ops}, {"unknown_outcomes", unknown}, {"history_mib", static_cast<double>(bytes) / (1 << 20)},
                      {"threads", shape.options.threads}, {"locks", shape.options.locks}};
  j["exec_order"] = measure(file, {}, repeats);
  j["search_only"] = measure(file, {"--no-exec-order"}, repeats);
  return j;
}

// (c): for each mode, how many seeds' linearizability verdicts were violation / ok / unknown,
// and the slowest check (wall, CPU) and the largest peak RSS among them.
nlohmann::json bench_illegal(Shape shape, int repeats, const std::string& dir) {
  struct Mode {
    std::string name;
    std::vector<std::string> args;
    int violation = 0, ok = 0, unknown = 0;
    double wall_s_max = 0, cpu_s_max = 0, rss_mib_max = 0;
  };
  std::vector<Mode> modes = {{"exec_order", {}},
                             {"search_only_window_3s", {"--no-exec-order", "--unknown-window-ms", "3000"}},
                             {"search_only", {"--no-exec-order"}}};
  shape.options.inject = checker::testing::Inject::kOverlap;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    shape.seed = seed;
    const std::string file = dir + "/lockstep-b3-" + std::to_string(getpid()) + "-c" + std::to_string(seed) + ".jsonl";
    interrupt::PartialOutputs scratch;
    scratch.add(file);
    if (!generate_file(shape, file)) return {{"error", "could not generate " + file}};
    for (Mode& mode : modes) {
      std::vector<std::string> args = mode.args;
      args.insert(args.end(), {"--property", "linearizability"});
      const nlohmann::json m = measure(file, args, repeats);
      const std::string verdict = m["linearizability"];
      mode.violation += verdict.starts_with("violation");
      mode.ok += verdict.starts_with("ok");
      mode.unknown += verdict.starts_with("unknown");
      mode.wall_s_max = std::max(mode.wall_s_max, m["wall_s_median"].get<double>());
      mode.cpu_s_max = std::max(mode.cpu_s_max, m["cpu_s_median"].get<double>());
      mode.rss_mib_max = std::max(mode.rss_mib_max, m["peak_rss_mib"].get<double>());
    }
  }
  nlohmann::json j = nlohmann::json::object();
  for (const Mode& mode : modes) {
    j[mode.name] = {{"seeds", 6}, {"violation", mode.violation}, {"ok", mode.ok}, {"unknown", mode.unknown},
                    {"wall_s_max", mode.wall_s_max}, {"cpu_s_max", mode.cpu_s_max}, {"peak_rss_mib_max", mode.rss_mib_max}};
  }
  return j;
}

}  // namespace

nlohmann::json run_b3_check(const BenchOptions& options) {
  const int repeats = std::max(1, options.repeats);
  const std::string dir = std::filesystem::temp_directory_path().string();
  Shape big{"a", {}};
  big.options.threads = 1000;
  big.options.locks = 100;
  big.options.ops = options.quick ? 20'000 : 1'000'000;
  big.options.hold_min_ms = 10;
  big.options.hold_max_ms = 100;
  big.options.think_min_ms = 0;
  big.options.think_max_ms = 100;
  Shape hard{"b", {}};
  hard.options.threads = 64;
  hard.options.locks = 1;
  hard.options.ops = options.quick ? 1'000 : 10'000;
  hard.options.unknown_ppm = 50'000;
  hard.options.try_lock_ppm = 300'000;
  const nlohmann::json a = bench_shape(big, repeats, dir);
  const nlohmann::json b = bench_shape(hard, repeats, dir);
  const nlohmann::json c = bench_illegal(hard, repeats, dir);
  const double a_s = a["exec_order"]["wall_s_median"], a_mib = a["exec_order"]["peak_rss_mib"];
  const double b_s = b["exec_order"]["wall_s_median"];
  // The target is wall time on a quiet machine; a shared 2-core machine inflates wall time, so
  // the CPU time is reported beside it.
  const bool b_decided = b["exec_order"]["exit_code"] == 0;
  const bool c_decided = c.contains("exec_order") && c["exec_order"]["violation"] == 6 &&
                         c["exec_order"]["wall_s_max"].get<double>() <= 1.0 &&
                         c["exec_order"]["peak_rss_mib_max"].get<double>() <= 256.0;
  return {{"id", "B3"},
          {"what", "lockstep check end to end (parse + all properties) on generated legal histories"},
          {"results", {{"a_1m_ops_1000x100", a}, {"b_hard_64x1_unknown", b}, {"c_hard_illegal_6_seeds", c}}},
          {"target", "(a) <= 10 s and <= 2 GiB; (b) <= 5 s, never a silent blow-up; "
                     "(c) every seed refuted in <= 1 s and <= 256 MiB"},
          {"reference", "Porcupine v1.3.0, same shapes: 1M ops / 10 locks x 100 threads 27 s and 14 GiB; "
                        "1 lock x 64 threads x 10k ops with 5% unknown: no answer in 120 s (7.3 GiB)"},
          {"met", !options.quick && a_s <= 10.0 && a_mib <= 2048.0 && b_s <= 5.0 && b_decided && c_decided},
          {"quick", options.quick},
          {"machine", machine()}};
}

}  // namespace lockstep::bench
