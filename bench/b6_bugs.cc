// Benchmark B6 (docs/performance.md): how many seeds `lockstep explore --algorithm NAME` needs to
// find each known kind of lock failure by itself.
//
// For each algorithm, the profile derived from its timings (derived_profile.h) is explored over
// a few disjoint seed ranges. Every violating seed's first violated property has its cause
// proven by replay (counterfactual.h) and classified (bug_class.h); for each class the bench
// records the position in the range of the first seed that showed it. A known class counts as
// found by a cause made of it alone or with other faults (a failover that needed a partition
// too is still the failover bug). Reported per known class: in how many ranges it was found,
// the median and worst seeds needed (a range that never found it counts as its length), and
// the first range's first seed showing the class alone (else within a cause) shrunk: its size
// after, and the class its cause then has.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "sim/explore/bug_class.h"
#include "sim/explore/counterfactual.h"
#include "sim/explore/derived_profile.h"
#include "sim/explore/shrink.h"
#include "sim/scenario/parse.h"
#include "sim/scenario/run.h"

namespace lockstep::bench {
namespace {

using json = nlohmann::json;

// The known failures of the edge-case library (scenarios/edge) each algorithm should show, by
// class, with the options (Redisson profile) under which they are bugs: the fair lock's dead
// head waiter blocks the queue only with the current profile's threadWaitTime (5 min; the
// classic 5 s evicts it in time).
struct Target {
  std::string algorithm;
  json options;
  std::vector<std::string> known;
  std::string label() const { return options.empty() ? algorithm : algorithm + " " + options.dump(); }
};

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"redisson-lock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                         "restart-without-persistence", "node-clock", "lost-reply", "network"}},
      {"redisson-fair-lock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                              "restart-without-persistence"}},
      {"redisson-fair-lock", {{"profile", "current"}}, {"fair-dead-waiter"}},
      {"redisson-fenced-lock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                                "restart-without-persistence"}},
      {"redisson-rwlock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                           "restart-without-persistence"}},
      {"redisson-redlock", json::object(), {"redlock-gc-pause", "redlock-restart", "node-clock"}},
      {"redlock-spec", json::object(), {"redlock-gc-pause", "redlock-restart", "node-clock"}},
      {"set-nx-px", json::object(), {"holder-pause", "lease-shorter-than-work", "restart-without-persistence", "node-clock"}},
      {"setnx-naive", json::object(), {"lease-shorter-than-work", "restart-without-persistence"}},
  };
  return all;
}

// The first seed of a class in one range: its position (1-based), seed and property.
struct Found {
  uint64_t at = 0;
  uint64_t seed = 0;
  std::string property;
};

// The first seed of each class (a proven cause's classes joined by "+") in one range.
std::map<std::string, Found> explore_range(const json& doc, const scenario::Scenario& s, uint64_t first,
                                           uint64_t count, uint64_t* violating, uint64_t* replays) {
  std::map<std::string, Found> found;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t seed = first + i;
    scenario::RunOptions o;
    o.seed = seed;
    o.coverage = false;
    Result<scenario::RunReport> r = scenario::run_scenario(s, o);
    if (!r.ok()) continue;
    std::string property;
    for (const checker::PropertyResult& p : r.value().check.properties) {
      if (p.verdict == checker::Verdict::kViolation) {
        property = p.name;
        break;
      }
    }
    if (property.empty()) continue;
    ++*violating;
    Result<explore::Cause> c = explore::prove_cause(doc, s, seed, property, explore::CounterfactualOptions{});
    if (!c.ok()) continue;
    *replays += c.value().replays.size();
    const std::string cls = explore::bug_class(s, r.value().result.at("faults"), c.value());
    found.emplace(cls, Found{i + 1, seed, property});  // keeps the first
  }
  return found;
}

// Whether the combined class `combo` ("a+b") contains `cls`.
bool contains(const std::string& combo, const std::string& cls) {
  size_t start = 0;
  for (;;) {
    const size_t end = combo.find('+', start);
    if (combo.compare(start, end == std::string::npos ? std::string::npos : end - start, cls) == 0 &&
        (end == std::string::npos ? combo.size() - start : end - start) == cls.size()) {
      return true;
    }
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

// Shrinks `f` and proves the cause of the shrunk scenario's violation: its size and class.
json shrink_found(const json& doc, const scenario::Scenario& s, const Found& f) {
  explore::ShrinkOptions so;
  so.max_runs = 300;
  Result<explore::ShrinkResult> r = explore::shrink_failure(doc, s, f.seed, f.property, so);
  if (!r.ok()) return {{"error", r.status().message()}};
  const explore::ShrinkResult& sr = r.value();
  json out = {{"seed", f.seed}, {"property", f.property}, {"faults", sr.after.faults},
              {"clients", sr.after.clients}, {"runs", sr.runs}, {"exhausted", sr.exhausted}};
  Result<scenario::Scenario> shrunk = scenario::parse_scenario_text(sr.scenario.dump(), "shrunk.json");
  if (!shrunk.ok()) return out;
  scenario::RunOptions o;
  o.seed = f.seed;
  Result<scenario::RunReport> run = scenario::run_scenario(shrunk.value(), o);
  if (!run.ok() || run.value().check.property(f.property).verdict != checker::Verdict::kViolation) {
    out["class"] = "does not replay";
    return out;
  }
  Result<explore::Cause> c = explore::prove_cause(sr.scenario, shrunk.value(), f.seed, f.property,
                                                  explore::CounterfactualOptions{});
  out["class"] = c.ok() ? explore::bug_class(shrunk.value(), run.value().result.at("faults"), c.value()) : "unproven";
  return out;
}

}  // namespace

json run_b6_bugs(const BenchOptions& options) {
  // --quick, a smoke run (CI runs it under the sanitizers): 4 seeds of three targets.
  const uint64_t seeds = options.quick ? 4 : 300;
  const std::vector<uint64_t> starts = options.quick ? std::vector<uint64_t>{1}
                                                     : std::vector<uint64_t>{1, 100'001, 200'001};
  json per_algorithm = json::object();
  bool met = true;
  uint64_t known_total = 0, known_found_everywhere = 0, shrunk_small = 0;
  for (const Target& target : targets()) {
    if (options.quick && target.algorithm != "redisson-lock" && target.algorithm != "redisson-redlock" &&
        target.algorithm != "setnx-naive") {
      continue;
    }
    const std::vector<std::string>& known = target.known;
    Result<json> doc = explore::derive_profile(target.algorithm, target.options);
    if (!doc.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", doc.status().message()}};
    Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.value().dump(), target.algorithm + "-derived.json");
    if (!s.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", s.status().message()}};
    std::vector<std::map<std::string, Found>> ranges;
    uint64_t violating = 0, replays = 0;
    for (uint64_t start : starts) {
      ranges.push_back(explore_range(doc.value(), s.value(), start, seeds, &violating, &replays));
    }
    // Every class seen, alone: in how many ranges, and the seeds needed.
    std::set<std::string> seen;
    for (const auto& r : ranges) {
      for (const auto& [cls, f] : r) seen.insert(cls);
    }
    json classes = json::object();
    for (const std::string& cls : seen) {
      std::vector<double> needed;
      uint64_t in = 0;
      for (const auto& r : ranges) {
        auto it = r.find(cls);
        needed.push_back(static_cast<double>(it == r.end() ? seeds : it->second.at));
        in += it != r.end();
      }
      classes[cls] = {{"found_in_ranges", in}, {"seeds_median", median(needed)}};
    }
    // Each known class, alone or as part of a cause with other faults: the seeds needed, and
    // the first range's first such seed shrunk.
    json known_json = json::object();
    json missed = json::array();
    for (const std::string& cls : known) {
      ++known_total;
      std::vector<double> needed;
      uint64_t in = 0;
      std::optional<Found> first_found;  // to shrink: the class alone if the range has it
      for (size_t k = 0; k < ranges.size(); ++k) {
        std::optional<Found> best;
        for (const auto& [combo, f] : ranges[k]) {
          if (contains(combo, cls) && (!best || f.at < best->at)) best = f;
        }
        needed.push_back(static_cast<double>(best ? best->at : seeds));
        in += best.has_value();
        if (k == 0) {
          auto alone = ranges[k].find(cls);
          first_found = alone != ranges[k].end() ? std::optional<Found>(alone->second) : best;
        }
      }
      json item = {{"found_in_ranges", in},
                   {"seeds_median", median(needed)},
                   {"seeds_worst", *std::max_element(needed.begin(), needed.end())}};
      if (first_found && !options.quick) {
        item["shrunk"] = shrink_found(doc.value(), s.value(), *first_found);
        const json& sh = item["shrunk"];
        const std::string cls_after = sh.value("class", "");
        const bool replays = !cls_after.empty() && cls_after != "does not replay";
        if (replays && sh.value("faults", int64_t{99}) <= 3 && sh.value("clients", int64_t{99}) <= 3) ++shrunk_small;
      }
      if (in != ranges.size()) {
        missed.push_back(cls);
        met = false;
      } else {
        ++known_found_everywhere;
        if (median(needed) > 200) met = false;
      }
      known_json[cls] = std::move(item);
    }
    per_algorithm[target.label()] = {{"known", known_json},
                                {"known_missed", missed},
                                {"classes", classes},
                                {"seeds_with_a_violation", violating},
                                {"cause_replays", replays}};
  }
  if (!options.quick && shrunk_small < known_found_everywhere) met = false;
  return {{"id", "B6"},
          {"what", "seeds explore --algorithm needs to find each known failure class (causes proven by replay)"},
          {"results", {{"seeds_per_range", seeds},
                       {"ranges", starts.size()},
                       {"known_classes", known_total},
                       {"known_found_in_every_range", known_found_everywhere},
                       {"known_shrunk_to_3_faults_3_clients", shrunk_small},
                       {"algorithms", per_algorithm}}},
          {"target", "every known class found in every range, median <= 200 seeds, each shrunk to <= 3 faults and <= 3 clients"},
          {"met", met},
          {"quick", options.quick},
          {"machine", machine()}};
}

}  // namespace lockstep::bench
