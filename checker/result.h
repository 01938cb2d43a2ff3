// What a checker answers: a verdict per property, with the reason, a counterexample and a causal
// explanation for violations, and the whole result as JSON (docs/checker.md documents the schema).
//
// Verdicts: ok (checked the whole history, nothing wrong), violation (with a counterexample),
// unknown (could not decide: search budget exhausted, history incomplete, history lacks the
// events the property needs — the reason says which) and not_applicable (the property does not
// apply to this lock kind or history, e.g. quorum on a single-node lock). A checker never
// answers ok when it did not finish.
#ifndef LOCKSTEP_CHECKER_RESULT_H_
#define LOCKSTEP_CHECKER_RESULT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lockstep::checker {

enum class Verdict : uint8_t { kOk, kViolation, kUnknown, kNotApplicable };

const char* verdict_name(Verdict verdict);

// The causal story of one violation: text for people, facts for tools.
struct Explanation {
  std::string text;
  nlohmann::json facts = nlohmann::json::object();
};

struct PropertyResult {
  std::string name;            // mutual_exclusion, linearizability, fairness, quorum, ...
  Verdict verdict = Verdict::kUnknown;
  std::string reason;          // one line: why this verdict
  nlohmann::json counterexample = nullptr;  // the offending events (violation only)
  Explanation explanation;     // violation only
  nlohmann::json details = nlohmann::json::object();  // counts, classified reorderings, ...

  nlohmann::json to_json() const;
};

struct CheckResult {
  std::string source;
  std::vector<PropertyResult> properties;

  // violation if any property is violated; else unknown if any is unknown; else ok if any is
  // ok; else not_applicable (nothing was checked).
  Verdict overall() const;
  // The exit code of `lockstep check`: 0 ok / not applicable, 1 violation, 3 unknown.
  int exit_code() const;
  // REQUIRES: a property named `name` was checked.
  const PropertyResult& property(const std::string& name) const;
  bool has(const std::string& name) const;
  nlohmann::json to_json() const;
  // One line per property, then the explanation of each violation.
  std::string to_text() const;
};

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_RESULT_H_
