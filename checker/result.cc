#include "checker/result.h"

#include "sim/core/assert.h"

namespace lockstep::checker {

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk: return "ok";
    case Verdict::kViolation: return "violation";
    case Verdict::kUnknown: return "unknown";
    case Verdict::kNotApplicable: return "not_applicable";
  }
  return "?";
}

nlohmann::json PropertyResult::to_json() const {
  nlohmann::json j = {{"name", name}, {"verdict", verdict_name(verdict)}, {"reason", reason}};
  if (!details.empty()) j["details"] = details;
  if (verdict == Verdict::kViolation) {
    j["counterexample"] = counterexample;
    j["explanation"] = {{"text", explanation.text}, {"facts", explanation.facts}};
  }
  return j;
}

Verdict CheckResult::overall() const {
  bool unknown = false, checked = false;
  for (const PropertyResult& p : properties) {
    if (p.verdict == Verdict::kViolation) return Verdict::kViolation;
    unknown = unknown || p.verdict == Verdict::kUnknown;
    checked = checked || p.verdict == Verdict::kOk;
  }
  if (unknown) return Verdict::kUnknown;
  return checked ? Verdict::kOk : Verdict::kNotApplicable;
}

int CheckResult::exit_code() const {
  switch (overall()) {
    case Verdict::kViolation: return 1;
    case Verdict::kUnknown: return 3;
    default: return 0;
  }
}

bool CheckResult::has(const std::string& name) const {
  for (const PropertyResult& p : properties) {
    if (p.name == name) return true;
  }
  return false;
}

const PropertyResult& CheckResult::property(const std::string& name) const {
  for (const PropertyResult& p : properties) {
    if (p.name == name) return p;
  }
  LS_ASSERT(false && "property not checked");
  return properties.front();
}

nlohmann::json CheckResult::to_json() const {
  nlohmann::json props = nlohmann::json::array();
  for (const PropertyResult& p : properties) props.push_back(p.to_json());
  return {{"lockstep_result", 1}, {"source", source}, {"verdict", verdict_name(overall())},
          {"properties", props}};
}

std::string CheckResult::to_text() const {
  std::string out;
  for (const PropertyResult& p : properties) {
    std::string verdict = verdict_name(p.verdict);
    verdict.resize(15, ' ');
    std::string name = p.name;
    name.resize(18, ' ');
    out += name + verdict + p.reason + "\n";
  }
  for (const PropertyResult& p : properties) {
    if (p.verdict != Verdict::kViolation || p.explanation.text.empty()) continue;
    out += "\n" + p.name + ": " + p.explanation.text + "\n";
  }
  if (overall() == Verdict::kNotApplicable) {
    out += "\nnothing was checked: no property found the events it needs in this history "
           "(docs/history-format.md says which events each one reads)\n";
  }
  return out;
}

}  // namespace lockstep::checker
