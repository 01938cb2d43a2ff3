// `lockstep scorecard [--scenarios DIR] [--algorithm NAME]... [--lua FILE]... [--out DIR]`: the
// edge-case library against every algorithm it applies to, as one page (docs/cli.md).
//
// Writes DIR/scorecard.html (the matrix, each cell linking to its run's report), DIR/scorecard.json
// and DIR/scorecard.csv, and each cell's run under DIR/runs/<algorithm>/<scenario>/. Exit codes:
// 0 the scorecard was written (its verdicts are the result, whatever they are), 2 bad usage or
// input (an unknown algorithm, a Lua file that does not load, no scenarios).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "checker/report/files.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "harness/explore/scorecard.h"
#include "harness/scenario/library.h"
#include "sim/core/interrupt.h"

namespace lockstep::cli {
namespace {

struct ScorecardArgs {
  std::string scenarios;  // empty: the library's edge/ (scenario::default_library_dir)
  std::vector<std::string> algorithms;
  std::vector<std::string> lua;
  std::string out = "lockstep-scorecard";
};

int fail(const std::string& message) {
  print_error("scorecard", message);
  return kExitBadInput;
}

int scorecard_command(ScorecardArgs args) {
  interrupt::exit_on_signal("lockstep scorecard");
  if (args.scenarios.empty()) args.scenarios = scenario::default_library_dir(scenario::program_path(), "edge");
  if (Status st = check_output_dir(args.out, "--out", "scorecard"); !st.ok()) return fail(st.message());
  if (!std::filesystem::is_directory(args.scenarios)) {
    const bool file = std::filesystem::exists(args.scenarios);
    return fail(args.scenarios + (file ? ": is a file, not a directory" : ": no such directory") +
                " (give the edge-case library with --scenarios DIR)");
  }
  const std::vector<std::string> files = scenario::scenario_files(args.scenarios);
  if (files.empty()) return fail(args.scenarios + ": no scenario files (*.json) in it");
  std::vector<explore::ScoredAlgorithm> algos;
  if (args.algorithms.empty()) {  // every registered one; --lua files come on top
    for (const algorithms::AlgorithmInfo& a : algorithms::algorithms()) algos.push_back({a.name, ""});
  }
  for (const std::string& name : args.algorithms) {
    if (algorithms::find_algorithm(name) == nullptr) return fail("--algorithm: no algorithm named \"" + name + "\" (lockstep list)");
    algos.push_back({name, ""});
  }
  for (const std::string& file : args.lua) {
    Result<const algorithms::AlgorithmInfo*> a = algorithms::lua_client::load_lua_algorithm(file);
    if (!a.ok()) return fail(a.status().message());
    algos.push_back({a.value()->name, algorithms::lua_client::algorithm_file(a.value()->name)});
  }
  if (Status st = make_dir(args.out); !st.ok()) return fail(st.message());
  // The folder never mixes two scorecards: the previous runs and pages go first, so that a
  // scorecard that stops early (an error, Ctrl-C) leaves no page of the one before beside its runs.
  std::error_code ec;
  std::filesystem::remove_all(args.out + "/runs", ec);
  for (const char* page : {"scorecard.json", "scorecard.csv", "scorecard.html"}) {
    std::filesystem::remove(args.out + "/" + page, ec);
  }
  std::printf("lockstep scorecard: %zu edge case(s) from %s x %zu algorithm(s)\n", files.size(),
              printable(args.scenarios).c_str(), algos.size());
  std::fflush(stdout);
  Progress progress("runs");
  Result<explore::Scorecard> card = explore::run_scorecard(files, algos, args.out, [&progress](size_t done, size_t total) {
    progress.update(done, total, "");
  });
  progress.finish();
  if (!card.ok()) return fail(card.status().message());
  for (const auto& [name, text] : {std::pair<const char*, std::string>{"scorecard.json", card.value().to_json().dump(2) + "\n"},
                                   {"scorecard.csv", card.value().to_csv()},
                                   {"scorecard.html", card.value().to_html()}}) {
    if (Status st = report::write_file_atomically(args.out + "/" + name, text); !st.ok()) return fail(st.message());
  }
  size_t applies = 0, violated = 0;
  for (const explore::ScorecardCell& c : card.value().cells) {
    applies += c.applies ? 1 : 0;
    violated += c.verdict == "violation" ? 1 : 0;
  }
  std::printf("%zu cell(s): %zu ran, %zu with a violation, %zu do not apply\n", card.value().cells.size(), applies,
              violated, card.value().cells.size() - applies);
  std::printf("wrote: %s/scorecard.html, %s/scorecard.json, %s/scorecard.csv\n", printable(args.out).c_str(),
              printable(args.out).c_str(), printable(args.out).c_str());
  return kExitOk;
}

}  // namespace

void register_scorecard(CLI::App& app, Action& action) {
  auto args = std::make_shared<ScorecardArgs>();
  CLI::App* sub = app.add_subcommand("scorecard", "Run the edge-case library against every algorithm; one page of verdicts");
  sub->add_option("--scenarios", args->scenarios,
                  "The edge-case library's directory (default: ./scenarios/edge, else the one installed with lockstep)")->check(non_empty_path("a directory name"));
  sub->add_option("--algorithm", args->algorithms, "Score this registered algorithm (repeatable; default: all)");
  sub->add_option("--lua", args->lua, "Score the algorithm in this Lua file too (repeatable)")->check(non_empty_path("a file name"));
  sub->add_option("--out", args->out, "Directory for scorecard.html/.json/.csv and each cell's run")->capture_default_str();
  sub->callback([&action, args] { action = [args] { return scorecard_command(*args); }; });
}

}  // namespace lockstep::cli
