#include "harness/explore/counterfactual.h"

#include <algorithm>

#include "harness/explore/materialize.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

using nlohmann::json;

// "#2 (pause c1 at 2.000 s)" for schedule entry `entry`, fault number `number`; a fault on an
// event: "#2 (crash node0 on c1's unlock_executed, armed at 2.000 s)" — it lands later, when the
// event comes, and the history has that time.
std::string describe(const json& entry, int64_t number) {
  std::string text = "#" + std::to_string(number) + " (" + entry.value("kind", std::string("fault"));
  if (entry.contains("target") && entry["target"].is_string()) text += " " + entry["target"].get<std::string>();
  std::string on;
  if (entry.contains("on") && entry["on"].is_string()) {
    on = entry["on"].get<std::string>();
  } else if (entry.contains("on") && entry["on"].is_object()) {
    const json& o = entry["on"];
    for (const char* whose : {"thread", "client"}) {
      if (o.contains(whose) && o[whose].is_string()) on = o[whose].get<std::string>() + "'s ";
    }
    on += o.value("event", std::string("event"));
  }
  if (!on.empty()) text += " on " + on;
  if (entry.contains("at_ms") && entry["at_ms"].is_number_integer()) {
    const int64_t at_ms = entry["at_ms"].get<int64_t>();
    text += std::string(on.empty() ? " at " : ", armed at ") + std::to_string(at_ms / 1000) + "." +
            std::to_string(1000 + at_ms % 1000).substr(1) + " s";
  }
  return text + ")";
}

std::string list(const json& schedule, const std::vector<int64_t>& faults) {
  std::string out;
  for (size_t k = 0; k < faults.size(); ++k) {
    if (k > 0) out += k + 1 == faults.size() ? " and " : ", ";
    out += "fault " + describe(schedule[static_cast<size_t>(faults[k] - 1)], faults[k]);
  }
  return out;
}

class Prover {
 public:
  Prover(const json& materialized, uint64_t seed, std::string property, const std::string& file, int budget,
         std::string mutant, std::string lock, std::vector<std::string> holders)
      : doc_(materialized), seed_(seed), property_(std::move(property)), file_(file), budget_(budget),
        mutant_(std::move(mutant)), lock_(std::move(lock)), holders_(std::move(holders)) {
    schedule_ = doc_.contains("faults") && doc_["faults"].contains("schedule") ? doc_["faults"]["schedule"]
                                                                                : json::array();
  }

  int64_t faults() const { return static_cast<int64_t>(schedule_.size()); }
  const json& schedule() const { return schedule_; }
  bool exhausted() const { return exhausted_; }
  const std::vector<Replay>& replays() const { return replays_; }
  const Status& error() const { return error_; }

  // Whether the run keeping only `kept` (fault numbers, ascending) violates the property;
  // nullopt-like false with exhausted() set when the budget is spent.
  bool violated(const std::vector<int64_t>& kept) {
    for (const Replay& r : replays_) {
      if (r.kept == kept) return r.violated;  // the same run again (e.g. one fault: none = all but it)
    }
    if (static_cast<int>(replays_.size()) >= budget_) {
      exhausted_ = true;
      return false;
    }
    json candidate = doc_;
    json schedule = json::array();
    for (int64_t n : kept) schedule.push_back(schedule_[static_cast<size_t>(n - 1)]);
    candidate["faults"] = {{"schedule", schedule}};
    Replay replay{kept, false};
    Result<scenario::Scenario> s = scenario::parse_scenario_text(candidate.dump(), file_);
    if (!s.ok()) {
      error_ = s.status();
      return false;
    }
    scenario::RunOptions options;
    options.seed = seed_;
    options.mutant = mutant_;
    options.check_lock = lock_;
    options.check_holders = holders_;
    options.history_text = false;
    options.result_json = false;
    Result<scenario::RunReport> r = scenario::run_scenario(s.value(), options);
    if (!r.ok()) {
      error_ = r.status();
      return false;
    }
    const checker::CheckResult& c = r.value().check;
    replay.violated = c.has(property_) && c.property(property_).verdict == checker::Verdict::kViolation;
    replays_.push_back(replay);
    return replay.violated;
  }

 private:
  json doc_;
  json schedule_;
  uint64_t seed_;
  std::string property_;
  std::string file_;
  int budget_;
  std::string mutant_;
  std::string lock_;
  std::vector<std::string> holders_;
  bool exhausted_ = false;
  Status error_;
  std::vector<Replay> replays_;
};

// Whether the workload sends raw commands or scripts (StepOp::kCommand/kEval): they are part of
// the workload, not faults, so a violation without faults may be theirs, not the algorithm's.
bool raw_steps(const std::vector<scenario::Step>& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const scenario::Step& st) {
    return st.op == scenario::StepOp::kCommand || st.op == scenario::StepOp::kEval || raw_steps(st.steps) ||
           raw_steps(st.otherwise);
  });
}

bool raw_steps(const scenario::Scenario& s) {
  return std::any_of(s.workload.script.begin(), s.workload.script.end(),
                     [](const scenario::ScriptEntry& e) { return raw_steps(e.steps); });
}

std::vector<int64_t> all_but(int64_t n, int64_t removed) {
  std::vector<int64_t> out;
  for (int64_t k = 1; k <= n; ++k) {
    if (k != removed) out.push_back(k);
  }
  return out;
}

// Whether a proof counts `fault` in: in its cause, or among the faults it found necessary.
bool counts_in(const Cause& c, int64_t fault) {
  return std::find(c.cause.begin(), c.cause.end(), fault) != c.cause.end() ||
         std::find(c.necessary.begin(), c.necessary.end(), fault) != c.necessary.end();
}

}  // namespace

std::vector<std::string> violated_holders(const checker::PropertyResult& property) {
  const json& ce = property.counterexample;
  if (property.name != "mutual_exclusion" || !ce.is_object()) return {};
  std::vector<std::string> out;
  for (const char* which : {"first", "second"}) {
    if (!ce.contains(which) || !ce[which].is_object() || !ce[which].contains("thread") || !ce[which]["thread"].is_string()) {
      return {};
    }
    out.push_back(ce[which]["thread"].get<std::string>());
  }
  return out;
}

std::string violated_lock(const checker::PropertyResult& property) {
  const json& ce = property.counterexample;
  if (!ce.is_object()) return "";
  const json* lock = nullptr;
  if (property.name == "mutual_exclusion" && ce.contains("first") && ce["first"].is_object() && ce["first"].contains("lock")) {
    lock = &ce["first"]["lock"];
  } else if (property.name == "linearizability" && ce.contains("lock")) {
    lock = &ce["lock"];
  }
  return lock != nullptr && lock->is_string() ? lock->get<std::string>() : "";
}

void compare_with_story(const checker::PropertyResult& property, Cause* cause) {
  const json& facts = property.explanation.facts;
  const json& story = facts.contains("story") ? facts["story"] : facts;
  if (!story.is_object() || !story.contains("first_inevitable")) return;
  const bool proven = cause->algorithm_itself || cause->sufficient;
  if (!proven || cause->exhausted) return;
  cause->has_story = true;
  const json& first = story["first_inevitable"];
  // A fault, or a node's restart or loss of data that names the fault behind it.
  if (first.is_object() && first.contains("fault") && first["fault"].is_number_integer()) {
    cause->story_fault = first["fault"].get<int64_t>();
  }
  const std::string named = "fault #" + std::to_string(cause->story_fault);
  if (cause->story_fault != 0 && cause->algorithm_itself) {
    cause->story_agrees = false;
    cause->text += "; so the story's first inevitable event, " + named + ", was not needed";
  } else if (cause->story_fault != 0 && !counts_in(*cause, cause->story_fault)) {
    cause->story_agrees = false;
    cause->text += "; the story's first inevitable event, " + named + ", is not in that cause";
  } else if (cause->story_fault == 0 && !cause->algorithm_itself && !cause->cause.empty()) {
    cause->story_agrees = false;
    cause->text += "; the story named no fault as its first inevitable event, but the violation needs " +
                   std::string(cause->cause.size() == 1 ? "this one" : "these");
  }
}

void prove_story_on_overlap(const json& doc, const scenario::Scenario& parsed, uint64_t seed,
                            const checker::PropertyResult& property, const CounterfactualOptions& options, Cause* cause) {
  if (!cause->has_story || cause->story_agrees || cause->story_fault == 0) return;
  CounterfactualOptions pair = options;
  pair.holders = violated_holders(property);
  if (pair.holders.size() != 2) return;
  Result<Cause> proof = prove_cause(doc, parsed, seed, property.name, pair);
  if (!proof.ok() || proof.value().exhausted || !(proof.value().algorithm_itself || proof.value().sufficient)) return;
  const Cause& p = proof.value();
  cause->overlap_proven = true;
  cause->overlap_agrees = !p.algorithm_itself && counts_in(p, cause->story_fault);
  const std::string named = "fault #" + std::to_string(cause->story_fault);
  const std::string overlap = "the overlap of " + pair.holders[0] + " and " + pair.holders[1];
  cause->text += cause->overlap_agrees ? "; but " + overlap + ", which the story tells, needs " + named + ": " + p.text
                                       : "; nor does " + overlap + ", which the story tells, need it: " + p.text;
}

json Cause::to_json() const {
  json j = {{"property", property},     {"seed", seed},          {"faults", faults},
            {"cause", cause},           {"necessary", necessary}, {"algorithm_itself", algorithm_itself},
            {"sufficient", sufficient}, {"exhausted", exhausted}, {"text", text}};
  json list = json::array();
  for (const Replay& r : replays) list.push_back({{"kept", r.kept}, {"violated", r.violated}});
  j["replays"] = list;
  if (has_story) {
    j["story"] = {{"first_inevitable_fault", story_fault == 0 ? json(nullptr) : json(story_fault)}, {"agrees", story_agrees}};
    if (overlap_proven) j["story"]["overlap_agrees"] = overlap_agrees;
  }
  return j;
}

Result<Cause> prove_cause(const json& doc, const scenario::Scenario& parsed, uint64_t seed,
                          const std::string& property, const CounterfactualOptions& options) {
  LS_ASSERT(options.max_replays >= 1);
  Prover p(materialize_faults(doc, parsed, seed), seed, property, parsed.file, options.max_replays, options.mutant,
           options.lock, options.holders);
  std::string violation = options.lock.empty() ? "the violation" : "the violation on " + options.lock;
  if (options.holders.size() == 2) {
    violation = "the overlap of " + options.holders[0] + " and " + options.holders[1] +
                (options.lock.empty() ? "" : " on " + options.lock);
  }
  Cause c;
  c.property = property;
  c.seed = seed;
  c.faults = p.faults();
  const int64_t n = p.faults();
  // 1. Without any fault: the algorithm itself?
  if (n == 0 || p.violated({})) {
    c.algorithm_itself = p.error().ok() && !p.exhausted();
    c.sufficient = c.algorithm_itself;
  }
  if (!p.error().ok()) return p.error();
  if (c.algorithm_itself) {
    // With raw steps in the workload, "itself" may be an operator's command: the explanation
    // names the command that touched the lock.
    const bool raw = raw_steps(parsed);
    const std::string who = raw ? "the algorithm itself, or the workload's raw commands" : "the algorithm itself";
    c.text = n == 0 ? "the run had no faults: " + who + (raw ? " violate " : " violates ") + property
                    : "verified by replay: " + violation + " happens without any of the run's " + std::to_string(n) +
                          " fault(s): " + who;
  } else {
    // 2. Necessity: each fault removed alone.
    for (int64_t k = 1; k <= n && !p.exhausted(); ++k) {
      if (!p.violated(all_but(n, k)) && !p.exhausted() && p.error().ok()) c.necessary.push_back(k);
    }
    if (!p.error().ok()) return p.error();
    // 3. Sufficiency of the necessary faults; else (redundant faults) drop faults while the
    //    violation stays, which leaves a minimal sufficient set.
    if (!c.necessary.empty() && !p.exhausted() && p.violated(c.necessary)) {
      c.cause = c.necessary;
      c.sufficient = true;
    } else if (!p.exhausted()) {
      std::vector<int64_t> kept = all_but(n, 0);
      for (int64_t k = 1; k <= n && !p.exhausted(); ++k) {
        std::vector<int64_t> fewer;
        std::copy_if(kept.begin(), kept.end(), std::back_inserter(fewer), [k](int64_t x) { return x != k; });
        if (p.violated(fewer)) kept = fewer;
      }
      if (!p.exhausted()) {
        c.cause = kept;
        c.sufficient = true;
      }
    }
    if (!p.error().ok()) return p.error();
    const json& schedule = p.schedule();
    if (c.sufficient && c.cause == c.necessary) {
      c.text = "verified by replay: without " + (c.cause.size() == 1 ? list(schedule, c.cause) : "any one of " + list(schedule, c.cause)) +
               " " + violation + " does not happen; with " + (c.cause.size() == 1 ? "it" : "them") + " alone it does";
    } else if (c.sufficient) {
      c.text = "verified by replay: " + list(schedule, c.cause) + " alone cause " + violation +
               (c.necessary.empty() ? " (no single fault is necessary: the run's faults are redundant)"
                                    : "; without " + list(schedule, c.necessary) + " it does not happen");
    } else if (!c.necessary.empty()) {
      c.text = "replay: without " + list(schedule, c.necessary) + " " + violation + " does not happen";
    }
  }
  c.exhausted = p.exhausted();
  if (c.exhausted) {
    c.text += std::string(c.text.empty() ? "" : "; ") + "the replay budget (" + std::to_string(options.max_replays) +
              " runs) ran out before the cause was proven";
  }
  c.replays = p.replays();
  return c;
}

}  // namespace lockstep::explore
