// Shared by `lockstep explore` and `lockstep sweep`: loading the scenario file as both its JSON
// (for materialising, shrinking and substituting) and its parsed form, and a progress line on
// the terminal.
#ifndef LOCKSTEP_CLI_EXPLORE_COMMON_H_
#define LOCKSTEP_CLI_EXPLORE_COMMON_H_

#include <chrono>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::cli {

struct LoadedScenario {
  nlohmann::json doc;
  scenario::Scenario parsed;
};

// Reads and validates the scenario file. Errors name the file and the problem.
// Replaces the scenario's algorithm and its options (`run --algorithm NAME`, `run --lua FILE`):
// at most one of the two is set.
struct AlgorithmOverride {
  std::string name;  // a registered algorithm
  std::string lua;   // a Lua algorithm file (docs/lua-algorithms.md)
};
Result<LoadedScenario> load_scenario_file(const std::string& path, const AlgorithmOverride& replace = {});

// A progress line on stderr: on a terminal, redrawn in place at most ten times a second; in a
// log (stderr not a terminal, as in CI), a plain line every 30 s, so a long run shows it is
// alive without flooding the log.
class Progress {
 public:
  explicit Progress(std::string what);
  // Draws "<what> done/total, <extra>, N/s, about T left" if enough time has passed.
  void update(uint64_t done, uint64_t total, const std::string& extra);
  // Erases the line.
  void finish();
  double elapsed_s() const;

 private:
  std::string what_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

// Creates `dir` (and its parents). Errors name it.
Status make_dir(const std::string& dir);
// Checks, before any work, that `dir` (an --out option) is not empty, not a file, and holds no
// other command's outputs (a run's result.json or history, explore.json, sweep.json,
// scorecard.json): `command` ("run", "explore", "sweep", "scorecard") replaces its own. It is not
// created here. `option` names the flag in the message.
Status check_output_dir(const std::string& dir, const char* option, std::string_view command);
// Refuses an --out `dir` where an output `command` ("run", "explore", "sweep") writes or replaces
// there is `input`, the file the command reads: `lockstep run DIR/result.json --out DIR` replaced
// its own scenario (and its replay line then named a result.json).
Status refuse_replacing_input(const std::string& dir, std::string_view command, const std::string& input);
// Checks, before any work, that `path` (e.g. --junit) can be written: not empty, not a
// directory, in a directory that exists.
Status check_output_file(const std::string& path, const char* option);

// For an option that names a file or directory to write (check --json, report -o, explore
// --junit, serve --trace): an empty value is a usage error (exit 2), not "no output" — an
// empty `--json ""` (a variable that was never set) otherwise wrote nothing and said nothing.
// `what` is "a file name" or "a directory name".
CLI::Validator non_empty_path(const char* what);

}  // namespace lockstep::cli

#endif  // LOCKSTEP_CLI_EXPLORE_COMMON_H_
