#include "harness/explore/scorecard.h"

#include <filesystem>
#include <utility>

#include "checker/report/page.h"
#include "checker/result.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "sim/core/files.h"

namespace lockstep::explore {
namespace {

std::string stem(const std::string& file) { return std::filesystem::path(file).stem().string(); }

// The verdict's colour class in the page.
const char* css_class(const ScorecardCell& c) {
  if (!c.applies) return "na";
  if (c.verdict == "ok") return "ok";
  if (c.verdict == "violation") return "bad";
  return "unk";
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

ScorecardCell run_cell(const nlohmann::json& doc, const std::string& file, const ScoredAlgorithm& a,
                       const std::string& out_dir) {
  ScorecardCell cell;
  cell.algorithm = a.name;
  cell.scenario = stem(file);
  nlohmann::json replaced = doc;
  // The scenario's own algorithm keeps its options (a profile, WAIT for replicas...): the cell is
  // then exactly the library scenario.
  const nlohmann::json* own = doc.contains("algorithm") && doc["algorithm"].is_object() ? &doc["algorithm"] : nullptr;
  const bool same = a.file.empty() && own != nullptr && own->value("name", "") == a.name;
  if (!same) replaced["algorithm"] = a.file.empty() ? nlohmann::json{{"name", a.name}} : nlohmann::json{{"file", a.file}};
  Result<scenario::Scenario> s = scenario::parse_scenario_text(replaced.dump(), file);
  if (!s.ok()) {
    cell.applies = false;
    cell.why_not = s.status().message();
    cell.verdict = "not_applicable";
    return cell;
  }
  scenario::RunOptions options;
  const std::string rel = "runs/" + a.name + "/" + cell.scenario;
  if (!out_dir.empty()) options.out_dir = out_dir + "/" + rel;  // run_scenario creates it
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), options);
  if (!r.ok()) {
    cell.verdict = "error";
    cell.why_not = r.status().message();
    return cell;
  }
  cell.verdict = r.value().verdict;
  for (const checker::PropertyResult& p : r.value().check.properties) cell.properties[p.name] = checker::verdict_name(p.verdict);
  if (!out_dir.empty()) cell.report = rel + "/report.html";
  return cell;
}

}  // namespace

Result<Scorecard> run_scorecard(const std::vector<std::string>& scenario_files,
                                const std::vector<ScoredAlgorithm>& algorithms, const std::string& out_dir,
                                const std::function<void(size_t, size_t)>& progress) {
  Scorecard card;
  for (const ScoredAlgorithm& a : algorithms) card.algorithms.push_back(a.name);
  const size_t total = scenario_files.size() * algorithms.size();
  size_t done = 0;
  for (const std::string& file : scenario_files) {
    Result<std::string> text = read_text_file(file, uint64_t{64} << 20);
    if (!text.ok()) return text.status();
    nlohmann::json doc = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) return Status::error(file + ": not a JSON object (the scorecard reads scenario files)");
    card.scenarios.push_back(stem(file));
    for (const ScoredAlgorithm& a : algorithms) {
      card.cells.push_back(run_cell(doc, file, a, out_dir));
      if (progress) progress(++done, total);
    }
  }
  return card;
}

nlohmann::json Scorecard::to_json() const {
  nlohmann::json cells_json = nlohmann::json::array();
  for (const ScorecardCell& c : cells) {
    nlohmann::json j = {{"algorithm", c.algorithm}, {"scenario", c.scenario}, {"verdict", c.verdict}};
    if (!c.applies || c.verdict == "error") j["why"] = c.why_not;
    if (!c.properties.empty()) j["properties"] = c.properties;
    if (!c.report.empty()) j["report"] = c.report;
    cells_json.push_back(std::move(j));
  }
  return {{"lockstep_scorecard", 1}, {"algorithms", algorithms}, {"scenarios", scenarios}, {"cells", cells_json}};
}

std::string Scorecard::to_csv() const {
  std::string out = "algorithm,scenario,property,verdict\n";
  for (const ScorecardCell& c : cells) {
    if (c.properties.empty()) {
      out += csv(c.algorithm) + "," + csv(c.scenario) + ",-," + c.verdict + "\n";
      continue;
    }
    for (const auto& [property, verdict] : c.properties) {
      out += csv(c.algorithm) + "," + csv(c.scenario) + "," + property + "," + verdict + "\n";
    }
  }
  return out;
}

std::string Scorecard::to_html() const {
  using report::html_escape;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lockstep scorecard</title>\n"
      "<style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
      "th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top}th{background:#f4f4f4;position:sticky;top:0}"
      "td.ok{background:#e6f4e6}td.bad{background:#fbe3e3}td.unk{background:#fff4d6}td.na{background:#f0f0f0;color:#888}"
      "td a{color:inherit}small{color:#555}</style></head><body>\n"
      "<h1>lockstep scorecard</h1>\n<p>The edge-case library run against each algorithm with its defaults. "
      "A cell lists the properties violated (or ok); it links to that run's report. "
      "Grey: the scenario does not apply to the algorithm (hover for why).</p>\n<table id=\"scorecard\">\n<tr><th>edge case</th>";
  for (const std::string& a : algorithms) h += "<th>" + html_escape(a) + "</th>";
  h += "</tr>\n";
  size_t i = 0;
  for (const std::string& s : scenarios) {
    h += "<tr><th>" + html_escape(s) + "</th>";
    for (size_t k = 0; k < algorithms.size() && i < cells.size(); ++k, ++i) {
      const ScorecardCell& c = cells[i];
      std::string text;
      if (!c.applies) {
        text = "does not apply";
      } else if (c.verdict == "error") {
        text = "error";
      } else {
        for (const auto& [property, verdict] : c.properties) {
          if (verdict == "violation" || verdict == "unknown") {
            text += (text.empty() ? "" : "<br>") + html_escape(property) + (verdict == "unknown" ? " ?" : "");
          }
        }
        if (text.empty()) text = "ok";
      }
      if (!c.report.empty()) text = "<a href=\"" + html_escape(c.report) + "\">" + text + "</a>";
      const std::string title = c.why_not.empty() ? "" : " title=\"" + html_escape(c.why_not) + "\"";
      h += std::string("<td class=\"") + css_class(c) + "\"" + title + " data-verdict=\"" + html_escape(c.verdict) +
           "\">" + text + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace lockstep::explore
