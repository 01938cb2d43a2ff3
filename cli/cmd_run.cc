// `lockstep run SCENARIO [--seed N] [--out DIR] [--mutant NAME] [--live]`: one deterministic run
// (docs/run.md). --mutant swaps one lock script for a deliberately broken one (algorithms/mutants)
// to see the checker catch it; every output then names the mutant. --live runs the scenario
// against real redis-servers in real time instead (docs/live.md), checked the same way.
//
// Prints the seed, the verdict per property with explanations, the outcome against the
// scenario's `expect`, and a one-line replay command; writes DIR/history.jsonl and
// DIR/result.json (DIR/history.jsonl.zst with --compress). Exit codes: 0 as expected, 1 an unexpected violation (or an expected one that
// did not happen), 2 bad usage or input, 3 a checker could not decide.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "algorithms/mutants/mutants.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "harness/explore/counterfactual.h"
#include "harness/explore/worker_pool.h"
#include "harness/live/live_run.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "sim/core/interrupt.h"

namespace lockstep::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::optional<uint64_t> seed;
  std::string out = "lockstep-out";
  bool no_check = false;
  std::string mutant;
  int replays = 16;
  std::string lua;
  std::string algorithm;
  bool live = false;
  bool compare = false;
  bool compress = false;
};

// --live --compare: the simulated run's verdict per property beside the live run's. Returns the
// number of properties on which they disagree.
int print_comparison(const scenario::RunReport& sim, const scenario::RunReport& live) {
  std::printf("\nsimulated vs live, per property:\n");
  int disagree = 0;
  for (const checker::PropertyResult& p : sim.check.properties) {
    const std::string a = checker::verdict_name(p.verdict);
    const std::string b = live.check.has(p.name) ? checker::verdict_name(live.check.property(p.name).verdict) : "-";
    const bool same = a == b;
    if (!same) ++disagree;
    std::printf("  %-18s %-15s %-15s %s\n", p.name.c_str(), a.c_str(), b.c_str(), same ? "agree" : "DISAGREE");
  }
  if (disagree == 0) {
    std::printf("simulation and live run agree on every property\n");
  } else {
    std::printf("simulation and live run DISAGREE on %d propert%s: a bug in the model, the simulator or the live "
                "backend until explained (docs/live.md)\n", disagree, disagree == 1 ? "y" : "ies");
  }
  return disagree;
}

// Proves the cause of each violation by replaying the seed with faults removed
// (harness/explore/counterfactual.h) and adds it to the report (result.json "causes", the printed
// explanation, the HTML report).
void prove_causes(const nlohmann::json& doc, const scenario::Scenario& s, scenario::RunReport& r, int replays) {
  if (replays <= 0 || r.verdict != "violation") return;
  explore::CounterfactualOptions options;
  options.max_replays = replays;
  options.mutant = r.mutant;
  nlohmann::json causes = nlohmann::json::object();
  for (const checker::PropertyResult& p : r.check.properties) {
    if (p.verdict != checker::Verdict::kViolation) continue;
    options.lock = explore::violated_lock(p);
    Result<explore::Cause> c = explore::prove_cause(doc, s, r.seed, p.name, options);
    if (c.ok()) {
      explore::compare_with_story(p, &c.value());
      explore::prove_story_on_overlap(doc, s, r.seed, p, options, &c.value());
    }
    causes[p.name] = c.ok() ? c.value().to_json() : nlohmann::json{{"text", "not proven: " + c.status().message()}};
  }
  r.causes = causes;
}

int run_command(const RunArgs& args) {
  // Ctrl-C or SIGTERM: no half-written output stays behind, exit 128 + signal (docs/cli.md).
  interrupt::exit_on_signal("lockstep run");
  if (Status st = check_output_dir(args.out, "--out", "run"); !st.ok()) {
    print_error("run", st.message());
    return kExitBadInput;
  }
  if (Status st = refuse_replacing_input(args.out, "run", args.scenario); !st.ok()) {
    print_error("run", st.message());
    return kExitBadInput;
  }
  if (!args.lua.empty() && !args.algorithm.empty()) {
    print_error("run", "--lua and --algorithm: give one of them");
    return kExitBadInput;
  }
  Result<LoadedScenario> loaded = load_scenario_file(args.scenario, AlgorithmOverride{args.algorithm, args.lua});
  if (!loaded.ok()) {
    print_error("run", loaded.status().message());
    return kExitBadInput;
  }
  const nlohmann::json& doc = loaded.value().doc;
  const Result<scenario::Scenario> s = loaded.value().parsed;
  scenario::RunOptions options;
  options.seed = args.seed;
  options.out_dir = args.out;
  options.compress_history = args.compress;
  options.check = !args.no_check;
  options.mutant = args.mutant;
  options.check_threads = explore::available_cpus();
  const int replays = args.replays;
  options.annotate = [replays, &doc](const scenario::Scenario& sc, scenario::RunReport& rep) {
    prove_causes(doc, sc, rep, replays);
  };
  const uint64_t seed = args.seed.value_or(s.value().seed);
  live::LiveRun live_run;
  if (args.compare && !args.live) {
    print_error("run", "--compare compares a live run with the simulation: give --live too");
    return kExitBadInput;
  }
  if (args.live) {
    if (Status st = live::LiveRun::supported(s.value(), seed); !st.ok()) {
      print_error("run", st.message());
      return kExitBadInput;
    }
    options.source = &live_run;
    options.annotate = nullptr;  // causes are proven by replaying a simulation, not a live run
    // Ctrl-C: the run stops, its servers and temporary files go, then exit 130.
    interrupt::stop_on_signal("lockstep run", "stopping the live run and its redis-servers");
  }
  // A mutant that does not exist or apply is refused before the run begins (and its header line).
  if (!args.mutant.empty()) {
    if (Result<const algorithms::mutants::Mutant*> m = algorithms::mutants::mutant_for(args.mutant, s.value().algorithm); !m.ok()) {
      print_error("run", args.scenario + ": --mutant: " + m.status().message());
      return kExitBadInput;
    }
  }
  const std::string mutant = args.mutant.empty() ? "" : ", MUTANT " + args.mutant;
  std::printf("lockstep run: scenario \"%s\" (%s), seed %llu%s%s\n", printable(s.value().name).c_str(),
              printable(args.scenario).c_str(), static_cast<unsigned long long>(seed), printable(mutant).c_str(),
              args.live ? ", LIVE against redis-server (real time, not replayable bit for bit)" : "");
  std::fflush(stdout);
  // Wall time is printed, never recorded: outputs must be byte-identical between runs.
  const auto wall_start = std::chrono::steady_clock::now();
  // A progress line on a terminal only (stderr), so long runs show they are alive.
  Progress progress("virtual ms");
  const uint64_t duration_ms = static_cast<uint64_t>(s.value().duration_ms);
  options.progress = [&progress, duration_ms](const char* phase, int64_t virtual_ms, uint64_t events) {
    const std::string_view p = phase;
    progress.update(static_cast<uint64_t>(virtual_ms), duration_ms,
                    std::to_string(events) + " events" +
                        (p == "checking" ? ", checking the history" : p == "report" ? ", writing the report" : ""));
  };
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), options);
  progress.finish();
  if (!r.ok()) {
    print_error("run", r.status().message());
    if (const int sig = interrupt::stop_requested(); sig != 0) return 128 + sig;
    return kExitBadInput;
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // Every field escaped on its own, then the whole text once more (a newline of its own is kept).
  std::fputs(printable_lines(scenario::format_report(printable_copy(r.value()), printable(args.out))).c_str(), stdout);
  const scenario::RunStats& st = r.value().stats;
  if (args.live) {
    std::printf("ran %lld ms of real time against redis-server %s, %llu operations\n",
                static_cast<long long>(st.virtual_ms), printable(live_run.redis_version()).c_str(),
                static_cast<unsigned long long>(st.ops));
    if (!args.compare) return r.value().exit_code;
    scenario::RunOptions sim_options;
    sim_options.seed = seed;
    sim_options.check = true;
    Result<scenario::RunReport> sim = scenario::run_scenario(s.value(), sim_options);
    if (!sim.ok()) {
      print_error("run", sim.status().message());
      return kExitBadInput;
    }
    return print_comparison(sim.value(), r.value()) == 0 ? kExitOk : kExitViolation;
  }
  std::printf("ran %lld ms of virtual time, %llu events, %llu operations in %.2f s\n",
              static_cast<long long>(st.virtual_ms), static_cast<unsigned long long>(st.events),
              static_cast<unsigned long long>(st.ops), wall_s);
  return r.value().exit_code;
}

}  // namespace

void register_run(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run one scenario deterministically and check it");
  sub->add_option("scenario", args->scenario, "The scenario file (JSON; docs/scenarios.md)")->required();
  sub->add_option("--seed", args->seed, "The seed (default: the scenario's own)")
      ->check(CLI::Range(uint64_t{0}, static_cast<uint64_t>(INT64_MAX)));  // as a scenario's `seed`
  sub->add_option("--out", args->out, "Directory for history.jsonl and result.json")
      ->capture_default_str();
  sub->add_flag("--no-check", args->no_check, "Record the history only; skip the checkers");
  sub->add_flag("--compress", args->compress,
                "Write the history zstd-compressed, as history.jsonl.zst (about 20x smaller; "
                "check and report read it as it is, zstdcat prints it)");
  sub->add_option("--replays", args->replays,
                  "Replays that may prove each violation's cause by removing faults (0: off)")
      ->default_val(16)
      ->check(CLI::Range(0, 10000));
  sub->add_option("--mutant", args->mutant,
                  "Swap one lock script for this deliberately broken one (lockstep list --mutants)");
  sub->add_option("--algorithm", args->algorithm,
                  "Run this registered algorithm (lockstep list) instead of the scenario's own, "
                  "without the scenario's algorithm options");
  sub->add_option("--lua", args->lua,
                  "Run this Lua algorithm (docs/lua-algorithms.md) instead of the scenario's own, "
                  "without the scenario's algorithm options")->check(non_empty_path("a file name"));
  sub->add_flag("--live", args->live,
                "Run against real redis-servers that lockstep starts, in real time (docs/live.md)");
  sub->add_flag("--compare", args->compare,
                "With --live: also simulate the same seed and compare the verdicts per property "
                "(exit 0 when they agree, 1 when they do not)");
  sub->callback([&action, args] { action = [args] { return run_command(*args); }; });
}

}  // namespace lockstep::cli
