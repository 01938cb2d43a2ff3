// `lockstep sweep SCENARIO --param PATH=FROM..TO[:STEP] --seeds N [--first-seed S] [--jobs J]
// [--out DIR]`: the violation rate per value of one number in the scenario (docs/cli.md).
//
// Writes DIR/sweep.csv, DIR/sweep.json and DIR/sweep.svg, and each value's scenario as
// DIR/scenarios/value_<v>.json so any seed replays with `lockstep run`. Exit codes: 0 the sweep
// ran (its rates are the result, whatever they are), 2 bad usage or input: a pointer that leads
// nowhere or at something other than an integer, or a value the scenario rejects; 130/143
// interrupted by SIGINT/SIGTERM (the files hold the runs that finished, marked interrupted).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "checker/report/files.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "harness/explore/seed_result.h"
#include "harness/explore/sweep.h"
#include "harness/explore/worker_pool.h"
#include "sim/core/interrupt.h"

namespace lockstep::cli {
namespace {

struct SweepArgs {
  std::string scenario;
  std::string param;
  uint64_t seeds = 0;
  uint64_t first_seed = 1;
  int jobs = 0;
  std::string out = "lockstep-sweep";
};

int fail(const std::string& message) {
  print_error("sweep", message);
  return kExitBadInput;
}

// A directory never mixes two sweeps (issue 14): an earlier sweep's files and value scenarios go
// first (its values may differ from this one's).
Status remove_previous_sweep(const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> old;
  for (const char* name : {"sweep.csv", "sweep.json", "sweep.svg"}) old.push_back(fs::path(out) / name);
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(out) / "scenarios", ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("value_") && name.ends_with(".json")) old.push_back(e.path());
  }
  if (ec) return Status::error(out + "/scenarios: cannot list the previous sweep's scenarios: " + ec.message());
  for (const fs::path& p : old) {
    fs::remove(p, ec);
    if (ec) return Status::error(p.string() + ": cannot remove the previous sweep's output: " + ec.message());
  }
  return Status::ok_status();
}

int sweep_command(const SweepArgs& args) {
  if (Status st = check_output_dir(args.out, "--out", "sweep"); !st.ok()) return fail(st.message());
  if (Status st = refuse_replacing_input(args.out, "sweep", args.scenario); !st.ok()) return fail(st.message());
  Result<LoadedScenario> l = load_scenario_file(args.scenario);
  if (!l.ok()) return fail(l.status().message());
  Result<explore::ParamRange> param = explore::parse_param(args.param);
  if (!param.ok()) return fail(param.status().message());
  explore::SweepOptions o;
  o.seeds = explore::SeedRange{args.first_seed, args.seeds};
  Status st = explore::check_range(o.seeds);
  if (!st.ok()) return fail(st.message());
  const std::vector<int64_t> values = param.value().values();
  if (args.seeds * values.size() > explore::kMaxSeeds) {
    return fail("--seeds " + std::to_string(args.seeds) + " x " + std::to_string(values.size()) + " values is more than " +
                std::to_string(explore::kMaxSeeds) + " runs");
  }
  Result<std::vector<scenario::Scenario>> scenarios = explore::sweep_scenarios(l.value().doc, args.scenario, param.value());
  if (!scenarios.ok()) return fail(scenarios.status().message());
  st = make_dir(args.out + "/scenarios");
  if (!st.ok()) return fail(st.message());
  st = remove_previous_sweep(args.out);
  if (!st.ok()) return fail(st.message());
  // Each value's scenario as a file, so a failing seed replays exactly.
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string file = args.out + "/scenarios/value_" + std::to_string(values[i]) + ".json";
    Result<nlohmann::json> doc = explore::substitute(l.value().doc, args.scenario, param.value().pointer, values[i]);
    if (!doc.ok()) return fail(doc.status().message());
    st = report::write_file_atomically(file, doc.value().dump(2) + "\n");
    if (!st.ok()) return fail(st.message());
    scenarios.value()[i].file = file;
  }
  o.jobs = args.jobs > 0 ? args.jobs : explore::available_cpus();
  std::printf("lockstep sweep: scenario \"%s\" (%s), %s over %zu values, seeds %llu..%llu\n",
              printable(l.value().parsed.name).c_str(), printable(args.scenario).c_str(),
              printable(param.value().pointer).c_str(), values.size(),
              static_cast<unsigned long long>(o.seeds.first), static_cast<unsigned long long>(o.seeds.end() - 1));
  std::fflush(stdout);
  Progress progress("runs");
  o.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total, "sweeping"); };
  // Ctrl-C or SIGTERM: stop the workers and write the rates of the runs that finished, marked
  // interrupted (a sweep is not resumed: run it again with fewer values or seeds).
  interrupt::stop_on_signal("lockstep sweep", "writing the rates of the runs that finished");
  o.stop = [] { return interrupt::stop_requested() != 0; };
  Result<explore::SweepResult> r = explore::run_sweep(scenarios.value(), param.value(), o);
  progress.finish();
  if (!r.ok()) return fail(r.status().message());
  r.value().file = args.scenario;
  std::fprintf(stderr, "lockstep sweep: %llu runs in %.2f s with %d jobs\n",
               static_cast<unsigned long long>(r.value().runs()), progress.elapsed_s(), o.jobs);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"sweep.csv", r.value().to_csv()},
                                   {"sweep.json", r.value().to_json().dump(2) + "\n"},
                                   {"sweep.svg", r.value().to_svg()}}) {
    st = report::write_file_atomically(args.out + "/" + name, text);
    if (!st.ok()) return fail(st.message());
  }
  std::fputs(printable_lines(r.value().to_text()).c_str(), stdout);
  // The replay command of the first value's first seed in `seeds` (first_violating, first_errors).
  auto print_first = [&](const char* what, std::vector<uint64_t> explore::SweepRow::*seeds) {
    for (size_t i = 0; i < r.value().rows.size(); ++i) {
      const explore::SweepRow& row = r.value().rows[i];
      if ((row.*seeds).empty()) continue;
      std::printf("first %s at %lld: %s\n", what, static_cast<long long>(row.value),
                  printable(explore::replay_command(scenarios.value()[i].file, (row.*seeds).front())).c_str());
      return;
    }
  };
  print_first("violation", &explore::SweepRow::first_violating);
  print_first("error", &explore::SweepRow::first_errors);
  const std::string out = printable(args.out);
  std::printf("wrote: %s/sweep.csv, %s/sweep.json, %s/sweep.svg, %s/scenarios/\n", out.c_str(), out.c_str(), out.c_str(),
              out.c_str());
  if (r.value().interrupted) return 128 + interrupt::stop_requested();
  // A run without a verdict leaves its value's rate short of what was asked: not a clean sweep.
  return r.value().errors() > 0 ? kExitBadInput : kExitOk;
}

}  // namespace

void register_sweep(CLI::App& app, Action& action) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand("sweep", "Violation rate per value of one scenario number, as CSV, JSON and SVG");
  sub->add_option("scenario", args->scenario, "The scenario file (JSON; docs/scenarios.md)")->required();
  sub->add_option("--param", args->param, "PATH=FROM..TO[:STEP]: a JSON pointer into the scenario and its values")->required();
  sub->add_option("--seeds", args->seeds, "Seeds per value")->required()->check(CLI::Range(uint64_t{1}, explore::kMaxSeeds));
  sub->add_option("--first-seed", args->first_seed, "The first seed")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, static_cast<uint64_t>(INT64_MAX)));  // as a scenario's `seed`
  sub->add_option("--jobs,-j", args->jobs, "Worker processes (default: one per CPU)")->check(CLI::Range(1, explore::kMaxJobs));
  sub->add_option("--out", args->out, "Directory for sweep.csv, sweep.json, sweep.svg")->capture_default_str();
  sub->callback([&action, args] { action = [args] { return sweep_command(*args); }; });
}

}  // namespace lockstep::cli
