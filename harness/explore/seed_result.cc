#include "harness/explore/seed_result.h"

#include "checker/result.h"
#include "harness/scenario/coverage_report.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

const char* kind_name(SeedResult::Kind k) {
  switch (k) {
    case SeedResult::Kind::kRan: return "ran";
    case SeedResult::Kind::kError: return "error";
    case SeedResult::Kind::kCrashed: return "crashed";
  }
  return "?";
}

std::string cap(std::string text) {
  if (text.size() > kMaxExplanationBytes) {
    text.resize(kMaxExplanationBytes);
    text += " [...]";
  }
  return text;
}

}  // namespace


std::string replay_command(const std::string& file, uint64_t seed) {
  return "lockstep run " + shell_quote(file) + " --seed " + std::to_string(seed);
}

nlohmann::json SeedResult::to_json() const {
  nlohmann::json j = {{"seed", seed}, {"kind", kind_name(kind)}, {"verdict", verdict},
                      {"expected", expected}, {"exit_code", exit_code}};
  if (!violated.empty()) j["violated"] = violated;
  if (!unknown.empty()) j["unknown"] = unknown;
  if (!outcome.empty()) j["outcome"] = outcome;
  if (!explanation.empty()) j["explanation"] = explanation;
  if (!more_explanations.empty()) j["more_explanations"] = more_explanations;
  j["replay"] = replay;
  if (!coverage.empty()) j["coverage"] = scenario::coverage_counts_json(coverage);
  return j;
}

Result<SeedResult> SeedResult::from_json(const nlohmann::json& j, const std::string& where) {
  SeedResult r;
  try {
    r.seed = j.at("seed").get<uint64_t>();
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "ran") {
      r.kind = Kind::kRan;
    } else if (kind == "error") {
      r.kind = Kind::kError;
    } else if (kind == "crashed") {
      r.kind = Kind::kCrashed;
    } else {
      return Status::error(where + "/kind: expected \"ran\", \"error\" or \"crashed\", found \"" + kind + "\"");
    }
    r.verdict = j.at("verdict").get<std::string>();
    r.expected = j.at("expected").get<bool>();
    r.exit_code = j.at("exit_code").get<int>();
    if (j.contains("violated")) r.violated = j.at("violated").get<std::vector<std::string>>();
    if (j.contains("unknown")) r.unknown = j.at("unknown").get<std::vector<std::string>>();
    r.outcome = j.value("outcome", "");
    r.explanation = j.value("explanation", "");
    if (j.contains("more_explanations")) r.more_explanations = j.at("more_explanations").get<std::vector<std::string>>();
    r.replay = j.at("replay").get<std::string>();
    if (j.contains("coverage")) {
      Result<kernel::Coverage> c = scenario::coverage_from_counts_json(j["coverage"], where + "/coverage");
      if (!c.ok()) return c.status();
      r.coverage = std::move(c.value());
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::error(where + ": not a seed result: " + e.what());
  }
  return r;
}

SeedResult run_seed(const scenario::Scenario& s, uint64_t seed, scenario::HistorySource* source) {
  SeedResult r;
  r.seed = seed;
  r.replay = replay_command(s.file, seed);
  if (source != nullptr) r.replay += " " + source->replay_flags();
  scenario::RunOptions options;
  options.seed = seed;
  options.source = source;
  options.history_text = false;  // the verdicts are all a seed keeps
  options.result_json = false;
  Result<scenario::RunReport> run = scenario::run_scenario(s, options);
  if (!run.ok()) {
    r.kind = SeedResult::Kind::kError;
    r.verdict = "error";
    r.expected = false;
    r.exit_code = 2;
    r.outcome = "the run stopped: " + run.status().message();
    return r;
  }
  const scenario::RunReport& rep = run.value();
  r.coverage = rep.coverage;
  r.verdict = rep.verdict;
  r.expected = rep.expected;
  r.exit_code = rep.exit_code;
  for (const checker::PropertyResult& p : rep.check.properties) {
    if (p.verdict == checker::Verdict::kViolation) r.violated.push_back(p.name);
    if (p.verdict == checker::Verdict::kUnknown) r.unknown.push_back(p.name);
  }
  if (!r.expected) {
    r.outcome = rep.outcome;
    // Every violation's story, then every undecided property's reason: the first is `explanation`.
    std::vector<std::string> stories;
    for (const checker::PropertyResult& p : rep.check.properties) {
      if (p.verdict == checker::Verdict::kViolation) {
        stories.push_back(cap(p.name + ": " + (p.explanation.text.empty() ? p.reason : p.explanation.text)));
      }
    }
    for (const checker::PropertyResult& p : rep.check.properties) {
      if (p.verdict == checker::Verdict::kUnknown) stories.push_back(cap(p.name + " unknown: " + p.reason));
    }
    if (!stories.empty()) {
      r.explanation = std::move(stories.front());
      r.more_explanations.assign(std::make_move_iterator(stories.begin() + 1), std::make_move_iterator(stories.end()));
    }
  }
  LS_ASSERT(r.exit_code == 0 || !r.expected);
  LS_ASSERT(r.kind == SeedResult::Kind::kRan);
  return r;
}

SeedResult crashed_seed(const scenario::Scenario& s, uint64_t seed, const std::string& how, bool out_of_memory) {
  SeedResult r;
  r.seed = seed;
  r.expected = false;
  r.replay = replay_command(s.file, seed);
  if (out_of_memory) {
    // The machine's limit, not the simulator's fault: an error, as `lockstep run` exits 2 for it.
    r.kind = SeedResult::Kind::kError;
    r.verdict = "error";
    r.exit_code = 2;
    r.outcome = "error: the run ran out of memory on this seed (no verdict; give the workers more memory or shorten the run)";
    return r;
  }
  r.kind = SeedResult::Kind::kCrashed;
  r.verdict = "crashed";
  r.exit_code = 1;
  r.outcome = "the simulator crashed on this seed: " + how;
  return r;
}

}  // namespace lockstep::explore
