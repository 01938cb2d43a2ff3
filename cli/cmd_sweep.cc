// `lockstep sweep SCENARIO --param PATH=FROM..TO[:STEP] --seeds N [--first-seed S] [--jobs J]
// [--out DIR]`: the violation rate per value of one number in the scenario (docs/cli.md).
//
// Writes DIR/sweep.csv, DIR/sweep.json and DIR/sweep.svg, and each value's scenario as
// DIR/scenarios/value_<v>.json so any seed replays with `lockstep run`. Exit codes: 0 the sweep
// ran (its rates are the result, whatever they are), 2 bad usage or input: a pointer that leads
// nowhere or at something other than an integer, or a value the scenario rejects; 130/143/129
// interrupted by SIGINT/SIGTERM/SIGHUP (the files hold the runs that finished, marked
// interrupted, with the seeds that ran). `lockstep sweep --resume DIR` runs the rest: its files
// are then those the uninterrupted sweep writes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "checker/report/files.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "sim/core/json_keys.h"
#include "sim/core/printable.h"
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
  std::string resume;  // DIR of an interrupted sweep
  bool first_seed_given = false, out_given = false;
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

// What a sweep runs: its scenario per value (files under DIR/scenarios), values and seeds, and
// for --resume the rows of the runs that already finished.
struct Plan {
  std::string file;  // the scenario file as given
  std::string name;  // the scenario's name
  explore::ParamRange param;
  std::vector<scenario::Scenario> scenarios;
  explore::SeedRange seeds;
  std::optional<explore::SweepResult> before;
};

Result<Plan> plan_new(const SweepArgs& args) {
  if (args.scenario.empty() || args.param.empty() || args.seeds == 0) {
    return Status::error("give a scenario, --param and --seeds (or --resume DIR to go on with an interrupted sweep)");
  }
  if (Status st = check_output_dir(args.out, "--out", "sweep"); !st.ok()) return st;
  if (Status st = refuse_replacing_input(args.out, "sweep", args.scenario); !st.ok()) return st;
  Result<LoadedScenario> l = load_scenario_file(args.scenario);
  if (!l.ok()) return l.status();
  Plan plan;
  plan.file = args.scenario;
  plan.name = l.value().parsed.name;
  Result<explore::ParamRange> param = explore::parse_param(args.param);
  if (!param.ok()) return param.status();
  plan.param = param.value();
  plan.seeds = explore::SeedRange{args.first_seed, args.seeds};
  if (Status st = explore::check_range(plan.seeds); !st.ok()) return st;
  const std::vector<int64_t> values = plan.param.values();
  if (args.seeds * values.size() > explore::kMaxSeeds) {
    return Status::error("--seeds " + std::to_string(args.seeds) + " x " + std::to_string(values.size()) +
                         " values is more than " + std::to_string(explore::kMaxSeeds) + " runs");
  }
  Result<std::vector<scenario::Scenario>> scenarios = explore::sweep_scenarios(l.value().doc, args.scenario, plan.param);
  if (!scenarios.ok()) return scenarios.status();
  plan.scenarios = std::move(scenarios.value());
  if (Status st = make_dir(args.out + "/scenarios"); !st.ok()) return st;
  if (Status st = remove_previous_sweep(args.out); !st.ok()) return st;
  // Each value's scenario as a file, so a failing seed replays exactly.
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string file = args.out + "/scenarios/value_" + std::to_string(values[i]) + ".json";
    Result<nlohmann::json> doc = explore::substitute(l.value().doc, args.scenario, plan.param.pointer, values[i]);
    if (!doc.ok()) return doc.status();
    if (Status st = report::write_file_atomically(file, doc.value().dump(2) + "\n"); !st.ok()) return st;
    plan.scenarios[i].file = file;
  }
  return plan;
}

// --resume DIR: the interrupted sweep in DIR/sweep.json, and each value's scenario from the file
// the sweep wrote for it (DIR/scenarios/value_<v>.json), which must still be that value's.
Result<Plan> plan_resumed(const SweepArgs& args) {
  namespace fs = std::filesystem;
  const std::string path = args.resume + "/sweep.json";
  std::error_code ec;
  if (fs::is_directory(args.resume, ec) && !fs::exists(path, ec)) {
    return Status::error(args.resume + ": no sweep.json to resume from");
  }
  Result<std::string> text = report::read_text_file(path, uint64_t{1} << 32);
  if (!text.ok()) return text.status();
  const nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, false);
  if (j.is_discarded()) return Status::error(path + ": not valid JSON (expected a sweep.json)");
  if (const std::optional<std::string> dup = duplicate_key(text.value())) {
    return Status::error(path + ": " + *dup + ": duplicate key (each key may appear once in an object)");
  }
  Result<explore::SweepResult> before = explore::SweepResult::from_json(j, path);
  if (!before.ok()) return before.status();
  if (!before.value().interrupted) return Status::error(path + ": that sweep ran to the end; there is nothing to resume");
  Plan plan;
  plan.file = before.value().file;
  plan.name = before.value().scenario;
  plan.param = before.value().param;
  plan.seeds = before.value().seeds;
  for (int64_t v : plan.param.values()) {
    const std::string file = args.resume + "/scenarios/value_" + std::to_string(v) + ".json";
    Result<LoadedScenario> l = load_scenario_file(file);
    if (!l.ok()) return l.status();
    if (l.value().parsed.name != plan.name) {
      return Status::error(file + ": its scenario is \"" + printable(l.value().parsed.name) + "\", the sweep's was \"" +
                           printable(plan.name) + "\" (the file changed since)");
    }
    const nlohmann::json* at = nullptr;
    try {
      at = &l.value().doc.at(nlohmann::json::json_pointer(plan.param.pointer));
    } catch (const nlohmann::json::exception&) {
    }
    if (at == nullptr || !at->is_number_integer() || at->get<int64_t>() != v) {
      return Status::error(file + ": " + printable(plan.param.pointer) + " no longer holds " + std::to_string(v) +
                           " (the file changed since the sweep wrote it)");
    }
    l.value().parsed.file = file;
    plan.scenarios.push_back(std::move(l.value().parsed));
  }
  plan.before = std::move(before.value());
  return plan;
}

int sweep_command(SweepArgs args) {
  if (!args.resume.empty() &&
      (!args.scenario.empty() || !args.param.empty() || args.seeds != 0 || args.first_seed_given || args.out_given)) {
    return fail("--resume takes the scenario, the values, the seeds and the directory from DIR/sweep.json: give none of them");
  }
  if (!args.resume.empty()) args.out = args.resume;
  Result<Plan> p = args.resume.empty() ? plan_new(args) : plan_resumed(args);
  if (!p.ok()) return fail(p.status().message());
  Plan& plan = p.value();
  explore::SweepOptions o;
  o.seeds = plan.seeds;
  o.jobs = args.jobs > 0 ? args.jobs : explore::available_cpus();
  const std::vector<int64_t> values = plan.param.values();
  std::printf("lockstep sweep: scenario \"%s\" (%s), %s over %zu values, seeds %llu..%llu",
              printable(plan.name).c_str(), printable(plan.file).c_str(), printable(plan.param.pointer).c_str(),
              values.size(), static_cast<unsigned long long>(o.seeds.first), static_cast<unsigned long long>(o.seeds.end() - 1));
  if (plan.before) {
    const uint64_t total = o.seeds.count * values.size();
    std::printf(", resuming: %llu of %llu runs left", static_cast<unsigned long long>(total - plan.before->runs()),
                static_cast<unsigned long long>(total));
  }
  std::printf("\n");
  std::fflush(stdout);
  Progress progress("runs");
  o.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total, "sweeping"); };
  // Ctrl-C or SIGTERM: stop the workers and write the rates of the runs that finished, marked
  // interrupted, with the seeds that ran (--resume goes on from there).
  interrupt::stop_on_signal("lockstep sweep", "writing the rates of the runs that finished");
  o.stop = [] { return interrupt::stop_requested() != 0; };
  Result<explore::SweepResult> r =
      explore::run_sweep(plan.scenarios, plan.param, o, plan.before ? &*plan.before : nullptr);
  progress.finish();
  if (!r.ok()) return fail(r.status().message());
  r.value().file = plan.file;
  std::fprintf(stderr, "lockstep sweep: %llu runs in %.2f s with %d jobs\n",
               static_cast<unsigned long long>(r.value().runs()), progress.elapsed_s(), o.jobs);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"sweep.csv", r.value().to_csv()},
                                   {"sweep.json", r.value().to_json().dump(2) + "\n"},
                                   {"sweep.svg", r.value().to_svg()}}) {
    if (Status st = report::write_file_atomically(args.out + "/" + name, text); !st.ok()) return fail(st.message());
  }
  std::fputs(printable_lines(r.value().to_text()).c_str(), stdout);
  // The replay command of the first value's first seed in `seeds` (first_violating, first_errors).
  auto print_first = [&](const char* what, std::vector<uint64_t> explore::SweepRow::*seeds) {
    for (size_t i = 0; i < r.value().rows.size(); ++i) {
      const explore::SweepRow& row = r.value().rows[i];
      if ((row.*seeds).empty()) continue;
      std::printf("first %s at %lld: %s\n", what, static_cast<long long>(row.value),
                  printable(explore::replay_command(plan.scenarios[i].file, (row.*seeds).front())).c_str());
      return;
    }
  };
  print_first("violation", &explore::SweepRow::first_violating);
  print_first("error", &explore::SweepRow::first_errors);
  const std::string out = printable(args.out);
  std::printf("wrote: %s/sweep.csv, %s/sweep.json, %s/sweep.svg, %s/scenarios/\n", out.c_str(), out.c_str(), out.c_str(),
              out.c_str());
  if (r.value().interrupted) {
    std::printf("resume: lockstep sweep --resume %s\n", shell_quote(out).c_str());
    return 128 + interrupt::stop_requested();
  }
  // A run without a verdict leaves its value's rate short of what was asked: not a clean sweep.
  return r.value().errors() > 0 ? kExitBadInput : kExitOk;
}

}  // namespace

void register_sweep(CLI::App& app, Action& action) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand("sweep", "Violation rate per value of one scenario number, as CSV, JSON and SVG");
  sub->add_option("scenario", args->scenario, "The scenario file (JSON; docs/scenarios.md)");
  sub->add_option("--param", args->param, "PATH=FROM..TO[:STEP]: a JSON pointer into the scenario and its values (required, but for --resume)");
  sub->add_option("--seeds", args->seeds, "Seeds per value (required, but for --resume)")->check(CLI::Range(uint64_t{1}, explore::kMaxSeeds));
  CLI::Option* first = sub->add_option("--first-seed", args->first_seed, "The first seed")
                           ->capture_default_str()
                           ->check(CLI::Range(uint64_t{0}, static_cast<uint64_t>(INT64_MAX)));  // as a scenario's `seed`
  sub->add_option("--jobs,-j", args->jobs, "Worker processes (default: one per CPU)")->check(CLI::Range(1, explore::kMaxJobs));
  CLI::Option* out = sub->add_option("--out", args->out, "Directory for sweep.csv, sweep.json, sweep.svg")->capture_default_str();
  sub->add_option("--resume", args->resume,
                  "Go on with the interrupted sweep in DIR (its sweep.json): only the runs left are run")
      ->check(non_empty_path("a directory name"));
  sub->callback([&action, args, first, out] {
    args->first_seed_given = first->count() > 0;
    args->out_given = out->count() > 0;
    action = [args] { return sweep_command(*args); };
  });
}

}  // namespace lockstep::cli
