#include "cli/terminal.h"

#include <cstdio>

namespace lockstep::cli {

void print_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "lockstep %s: %s\n", command, printable(message).c_str());
}

checker::CheckResult printable_copy(const checker::CheckResult& r) {
  checker::CheckResult out;
  out.source = printable(r.source);
  for (const checker::PropertyResult& p : r.properties) {
    checker::PropertyResult q;  // only what to_text prints
    q.name = printable(p.name);
    q.verdict = p.verdict;
    q.reason = printable(p.reason);
    q.explanation.text = printable(p.explanation.text);
    out.properties.push_back(std::move(q));
  }
  return out;
}

scenario::RunReport printable_copy(const scenario::RunReport& r) {
  scenario::RunReport out;  // only what format_report prints
  out.seed = r.seed;
  out.check = printable_copy(r.check);
  out.verdict = printable(r.verdict);
  out.expected = r.expected;
  out.exit_code = r.exit_code;
  out.outcome = printable(r.outcome);
  out.replay = printable(r.replay);
  out.mutant = r.mutant;  // format_report prints only a known mutant's own texts
  out.history_file = r.history_file;  // one of two fixed names
  if (r.causes.is_object()) {
    out.causes = nlohmann::json::object();
    for (const auto& [property, cause] : r.causes.items()) {
      out.causes[printable(property)] = {{"text", printable(cause.is_object() ? cause.value("text", std::string()) : std::string())}};
    }
  }
  out.stats = r.stats;
  // Coverage's totals line: counts and the algorithm's own declared names only.
  if (r.result.is_object() && r.result.contains("coverage")) out.result["coverage"] = r.result["coverage"];
  return out;
}

explore::ExploreSummary printable_copy(const explore::ExploreSummary& s) {
  explore::ExploreSummary out = s;
  out.scenario = printable(s.scenario);
  out.file = printable(s.file);
  out.verdicts.clear();
  for (const auto& [v, n] : s.verdicts) out.verdicts[printable(v)] += n;
  out.violations.clear();
  for (const auto& [p, n] : s.violations) out.violations[printable(p)] += n;
  out.unknown.clear();
  for (const auto& [p, n] : s.unknown) out.unknown[printable(p)] += n;
  for (explore::SeedResult& f : out.failures) {
    f.verdict = printable(f.verdict);
    f.outcome = printable(f.outcome);
    f.explanation = printable(f.explanation);
    f.replay = printable(f.replay);
  }
  return out;
}

}  // namespace lockstep::cli
