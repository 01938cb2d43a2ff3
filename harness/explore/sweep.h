// Sweeps: the violation rate of a scenario as one of its numbers varies.
//
// `--param PATH=FROM..TO[:STEP]` names a number in the scenario file by JSON pointer (RFC 6901,
// e.g. /faults/schedule/0/duration_ms) and the values to give it: FROM, FROM+STEP, ... up to
// TO. For each value the scenario is re-validated (a value the format rejects is an error
// before anything runs) and the same N seeds are run, so rates at different values compare
// like with like. The result: per value, the share of seeds with any violation and with a
// violation of each property, as CSV, JSON and an SVG plot.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SWEEP_H_
#define LOCKSTEP_HARNESS_EXPLORE_SWEEP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/explore/seeds.h"
#include "harness/explore/worker_pool.h"
#include "harness/scenario/scenario.h"
#include "sim/core/status.h"

namespace lockstep::explore {

// The most values one sweep may try.
inline constexpr uint64_t kMaxSweepValues = 1000;

struct ParamRange {
  std::string pointer;  // a JSON pointer into the scenario
  int64_t from = 0;
  int64_t to = 0;
  int64_t step = 1;

  // FROM, FROM+STEP, ... while <= TO.
  std::vector<int64_t> values() const;
};

// Parses "PATH=FROM..TO[:STEP]". Without STEP the range is cut into 10 steps (at least 1).
// Errors say what was expected.
Result<ParamRange> parse_param(std::string_view text);

// The scenario `doc` with the integer at `pointer` replaced by `value`. Errors (naming `file`
// and the pointer) when the pointer is malformed, leads nowhere, or names something that is not
// an integer.
Result<nlohmann::json> substitute(const nlohmann::json& doc, const std::string& file,
                                  const std::string& pointer, int64_t value);

// One scenario per value, each validated. Errors name the value the scenario rejects.
Result<std::vector<scenario::Scenario>> sweep_scenarios(const nlohmann::json& doc,
                                                        const std::string& file,
                                                        const ParamRange& param);

struct SweepRow {
  int64_t value = 0;
  uint64_t seeds = 0;
  uint64_t violating = 0;                     // seeds with any violation
  std::map<std::string, uint64_t> by_property;  // property → seeds that violated it
  uint64_t unknown = 0;                       // seeds with an unknown verdict (and no violation)
  uint64_t errors = 0;                        // seeds whose run stopped (a limit) or crashed
  std::vector<uint64_t> first_violating;      // up to 5 seeds, for replaying
  std::vector<uint64_t> first_errors;         // up to 5 seeds that ended in an error
  // Which seeds ran (index: seed - the first seed): an interrupted sweep records them, as seed
  // ranges, so that --resume runs exactly the others.
  std::vector<bool> ran;

  // The seeds that gave a verdict: the rates are over these (an error has none).
  uint64_t judged() const { return seeds - errors; }
};

struct SweepResult {
  std::string scenario;
  std::string file;
  ParamRange param;
  SeedRange seeds;
  std::vector<std::string> properties;  // the properties violated at some value, report order
  std::vector<SweepRow> rows;
  // Stopped (Ctrl-C) before every run finished: each row's rate covers the seeds that ran
  // (`seeds` says how many; a value none ran has 0 and is left out of the plot).
  bool interrupted = false;

  uint64_t runs() const;
  uint64_t errors() const;  // runs that ended in an error, over all values
  // Interrupted, the JSON also has each row's `ran` seeds, as [first, last] ranges.
  nlohmann::json to_json() const;
  // An interrupted sweep's sweep.json, read back for --resume. Errors name `file` and the JSON
  // path; rows that do not add up (edited by hand) are refused.
  static Result<SweepResult> from_json(const nlohmann::json& j, const std::string& file);
  std::string to_csv() const;
  std::string to_svg() const;
  std::string to_text() const;
};

struct SweepOptions {
  SeedRange seeds;
  int jobs = 1;
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Polled between runs: true stops the sweep, whose result is then marked interrupted.
  StopFn stop;
};

// Runs every value × seed in worker processes. Errors only when the worker pool fails. With
// `before` (an interrupted sweep of the same scenarios, values and seeds), runs only the seeds it
// did not, and adds them to its rows: the result is the one an uninterrupted sweep gives.
Result<SweepResult> run_sweep(const std::vector<scenario::Scenario>& scenarios,
                              const ParamRange& param, const SweepOptions& options,
                              const SweepResult* before = nullptr);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SWEEP_H_
