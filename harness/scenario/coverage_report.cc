#include "harness/scenario/coverage_report.h"

#include <string_view>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/mutants/mutants.h"
#include "harness/scenario/scenario.h"
#include "sim/redis/script_lua.h"

namespace lockstep::scenario {
namespace {

using json = nlohmann::json;

// Line `n` (1-based) of `body`, trimmed.
std::string line_text(std::string_view body, int n) {
  size_t start = 0;
  for (int i = 1; i < n && start != std::string_view::npos; ++i) {
    start = body.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start >= body.size()) return "";
  size_t end = body.find('\n', start);
  std::string_view line = body.substr(start, end == std::string_view::npos ? body.size() - start : end - start);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  constexpr size_t kMaxCode = 120;
  std::string out(line.substr(0, kMaxCode));
  if (line.size() > kMaxCode) out += "...";
  return out;
}

// A count or a line number: a non-negative integer, however the JSON holds it.
bool is_count(const json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

// Recomputes the totals of a coverage object from its per-line and per-state hits.
void recount(json& c) {
  uint64_t lines_reached = 0, lines_total = 0, states_reached = 0;
  for (json& script : c["scripts"]) {
    uint64_t reached = 0;
    for (const json& l : script["lines"]) reached += l["hits"].get<uint64_t>() > 0;
    script["lines_reached"] = reached;
    script["lines_total"] = script["lines"].size();
    lines_reached += reached;
    lines_total += script["lines"].size();
  }
  for (const json& p : c["states"]) states_reached += p["hits"].get<uint64_t>() > 0;
  c["script_lines"] = {{"reached", lines_reached}, {"total", lines_total}};
  c["client_states"] = {{"reached", states_reached}, {"total", c["states"].size()}};
}

}  // namespace

json coverage_json(const kernel::Coverage& coverage, const Scenario& s) {
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.algorithm);
  std::vector<const runtime::Script*> scripts;
  if (info != nullptr && info->scripts) scripts = info->scripts(s.algorithm_options);
  const algorithms::mutants::Mutant* mutant =
      s.mutant.empty() ? nullptr : algorithms::mutants::find_mutant(s.mutant);
  if (mutant != nullptr) {
    for (const runtime::Script*& script : scripts) {
      if (script->name == mutant->replaces) script = &mutant->script;
    }
  }
  json out = {{"scripts", json::array()}, {"states", json::array()}};
  for (const runtime::Script* script : scripts) {
    json lines = json::array();
    for (int line : redis::LuaHost::code_lines(script->body)) {
      lines.push_back({{"line", line}, {"hits", uint64_t{0}}, {"code", line_text(script->body, line)}});
    }
    out["scripts"].push_back({{"name", script->name}, {"lines", std::move(lines)}});
  }
  if (info != nullptr) {
    for (const runtime::CoveragePoint& p : info->coverage_points) {
      out["states"].push_back({{"name", p.name}, {"hits", uint64_t{0}}, {"meaning", p.meaning}});
    }
  }
  add_coverage(out, coverage);
  return out;
}

void add_coverage(json& into, const kernel::Coverage& counts) {
  for (json& script : into["scripts"]) {
    auto it = counts.scripts().find(script["name"].get<std::string>());
    if (it == counts.scripts().end()) continue;
    const kernel::Coverage::LineHits& hits = it->second;
    for (json& l : script["lines"]) {
      const size_t line = l["line"].get<size_t>();
      if (line < hits.size()) l["hits"] = l["hits"].get<uint64_t>() + hits[line];
    }
  }
  for (json& p : into["states"]) {
    auto it = counts.points().find(p["name"].get<std::string>());
    if (it != counts.points().end()) p["hits"] = p["hits"].get<uint64_t>() + it->second;
  }
  recount(into);
}

Result<kernel::Coverage> coverage_from_json(const json& j, const std::string& where) {
  kernel::Coverage c;
  if (j.is_null()) return c;
  auto bad = [&](const std::string& path, const std::string& what) {
    return Status::error(where + ": /coverage" + path + ": " + what);
  };
  if (!j.is_object() || !j.contains("scripts") || !j["scripts"].is_array() || !j.contains("states") ||
      !j["states"].is_array()) {
    return bad("", "expected an object with \"scripts\" and \"states\" arrays");
  }
  const json& scripts = j["scripts"];
  for (size_t i = 0; i < scripts.size(); ++i) {
    const json& s = scripts[i];
    const std::string at = "/scripts/" + std::to_string(i);
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("lines") ||
        !s["lines"].is_array()) {
      return bad(at, "expected {\"name\": string, \"lines\": [...]}");
    }
    for (size_t k = 0; k < s["lines"].size(); ++k) {
      const json& l = s["lines"][k];
      if (!l.is_object() || !l.contains("line") || !is_count(l["line"]) || !l.contains("hits") ||
          !is_count(l["hits"]) || !l.contains("code") || !l["code"].is_string() ||
          l["line"].get<uint64_t>() == 0 || l["line"].get<uint64_t>() > 1'000'000) {
        return bad(at + "/lines/" + std::to_string(k), "expected {\"line\": 1.., \"hits\": count, \"code\": string}");
      }
      c.set_line(s["name"].get<std::string>(), l["line"].get<size_t>(), l["hits"].get<uint64_t>());
    }
  }
  const json& states = j["states"];
  for (size_t i = 0; i < states.size(); ++i) {
    const json& p = states[i];
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("hits") ||
        !is_count(p["hits"])) {
      return bad("/states/" + std::to_string(i), "expected {\"name\": string, \"hits\": count, ...}");
    }
    c.set_point(p["name"].get<std::string>(), p["hits"].get<uint64_t>());
  }
  return c;
}

json coverage_counts_json(const kernel::Coverage& c) {
  json scripts = json::object();
  for (const auto& [name, hits] : c.scripts()) {
    json lines = json::array();
    for (size_t line = 1; line < hits.size(); ++line) {
      if (hits[line] > 0) lines.push_back({line, hits[line]});
    }
    scripts[name] = std::move(lines);
  }
  return {{"scripts", std::move(scripts)}, {"states", c.points()}};
}

Result<kernel::Coverage> coverage_from_counts_json(const json& j, const std::string& where) {
  kernel::Coverage c;
  if (!j.is_object() || !j.contains("scripts") || !j["scripts"].is_object() || !j.contains("states") ||
      !j["states"].is_object()) {
    return Status::error(where + ": expected {\"scripts\": {...}, \"states\": {...}}");
  }
  for (const auto& [name, lines] : j["scripts"].items()) {
    if (!lines.is_array()) return Status::error(where + "/scripts/" + name + ": expected an array");
    for (const json& l : lines) {
      if (!l.is_array() || l.size() != 2 || !is_count(l[0]) || !is_count(l[1]) ||
          l[0].get<uint64_t>() == 0 || l[0].get<uint64_t>() > 1'000'000) {
        return Status::error(where + "/scripts/" + name + ": expected [line, hits] pairs");
      }
      c.set_line(name, l[0].get<size_t>(), l[1].get<uint64_t>());
    }
  }
  for (const auto& [name, n] : j["states"].items()) {
    if (!is_count(n)) return Status::error(where + "/states/" + name + ": expected a count");
    c.set_point(name, n.get<uint64_t>());
  }
  return c;
}

std::string coverage_totals(const json& j) {
  if (!j.is_object() || !j.contains("script_lines")) return "";
  auto frac = [&](const char* key) {
    const json& t = j[key];
    return std::to_string(t["reached"].get<uint64_t>()) + "/" + std::to_string(t["total"].get<uint64_t>());
  };
  return "coverage: " + frac("script_lines") + " script lines, " + frac("client_states") + " client states reached\n";
}

std::string coverage_text(const json& j, size_t max_items) {
  std::string out = coverage_totals(j);
  if (out.empty()) return out;
  size_t listed = 0, more = 0;
  for (const json& s : j["scripts"]) {
    for (const json& l : s["lines"]) {
      if (l["hits"].get<uint64_t>() > 0) continue;
      if (listed == max_items) {
        ++more;
        continue;
      }
      out += "  not reached: " + s["name"].get<std::string>() + ":" + std::to_string(l["line"].get<int>()) +
             "  " + l["code"].get<std::string>() + "\n";
      ++listed;
    }
  }
  if (more > 0) out += "  (and " + std::to_string(more) + " more script lines)\n";
  std::string states;
  for (const json& p : j["states"]) {
    if (p["hits"].get<uint64_t>() == 0) states += (states.empty() ? "" : ", ") + p["name"].get<std::string>();
  }
  if (!states.empty()) out += "  client states never reached: " + states + "\n";
  return out;
}

}  // namespace lockstep::scenario
