// Benchmark B6 (docs/performance.md): how many seeds `lockstep explore --algorithm NAME` needs to
// find each known kind of lock failure by itself.
//
// For each algorithm, the profile derived from its timings (derived_profile.h) is explored over
// a few disjoint seed ranges. Every violating seed's first violated property has its cause
// proven by replay (counterfactual.h) and classified (bug_class.h); for each class the bench
// records the position in the range of the first seed that showed it. Reported per class: in
// how many ranges it was found, and the median and worst seeds needed (a range that never found
// it counts as its length, and the class as missed there).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "sim/explore/bug_class.h"
#include "sim/explore/counterfactual.h"
#include "sim/explore/derived_profile.h"
#include "sim/scenario/parse.h"
#include "sim/scenario/run.h"

namespace lockstep::bench {
namespace {

using json = nlohmann::json;

// The known failures of the edge-case library (scenarios/edge) each algorithm should show, by
// class. A lock without a watchdog or a replica is not expected to show what needs one.
const std::map<std::string, std::vector<std::string>>& known_classes() {
  static const std::map<std::string, std::vector<std::string>> known = {
      {"redisson-lock", {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                         "restart-without-persistence", "node-clock", "lost-reply", "network"}},
      {"redisson-fair-lock", {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                              "restart-without-persistence", "fair-dead-waiter"}},
      {"redisson-fenced-lock", {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                "restart-without-persistence"}},
      {"redisson-rwlock", {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                           "restart-without-persistence"}},
      {"redisson-redlock", {"redlock-gc-pause", "redlock-restart", "node-clock"}},
      {"redlock-spec", {"redlock-gc-pause", "redlock-restart", "node-clock"}},
      {"set-nx-px", {"holder-pause", "lease-shorter-than-work", "restart-without-persistence", "node-clock"}},
      {"setnx-naive", {"lease-shorter-than-work", "restart-without-persistence"}},
  };
  return known;
}

// First seed position (1-based) of each class in one range.
std::map<std::string, uint64_t> explore_range(const json& doc, const scenario::Scenario& s, uint64_t first,
                                              uint64_t count, uint64_t* violating, uint64_t* replays) {
  std::map<std::string, uint64_t> found;
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
    explore::CounterfactualOptions co;
    Result<explore::Cause> c = explore::prove_cause(doc, s, seed, property, co);
    if (!c.ok()) continue;
    *replays += c.value().replays.size();
    const std::string cls = explore::bug_class(s, r.value().result.at("faults"), c.value());
    found.emplace(cls, i + 1);  // keeps the first
  }
  return found;
}

}  // namespace

json run_b6_bugs(const BenchOptions& options) {
  const uint64_t seeds = options.quick ? 30 : 300;
  const std::vector<uint64_t> starts = options.quick ? std::vector<uint64_t>{1}
                                                     : std::vector<uint64_t>{1, 100'001, 200'001};
  json per_algorithm = json::object();
  bool met = true;
  uint64_t known_total = 0, known_found_everywhere = 0;
  std::vector<double> all_medians;
  for (const auto& [algorithm, known] : known_classes()) {
    Result<json> doc = explore::derive_profile(algorithm, json::object());
    if (!doc.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", doc.status().message()}};
    Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.value().dump(), algorithm + "-derived.json");
    if (!s.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", s.status().message()}};
    std::map<std::string, std::vector<uint64_t>> needed;  // class -> seeds needed per range
    uint64_t violating = 0, replays = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
      const std::map<std::string, uint64_t> found =
          explore_range(doc.value(), s.value(), starts[k], seeds, &violating, &replays);
      for (const auto& [cls, at] : found) {
        std::vector<uint64_t>& v = needed[cls];
        v.resize(k, 0);
        v.push_back(at);
      }
      for (auto& [cls, v] : needed) v.resize(k + 1, 0);  // 0: not found in that range
    }
    json classes = json::object();
    for (const auto& [cls, v] : needed) {
      std::vector<double> filled;
      uint64_t ranges_found = 0;
      for (uint64_t n : v) {
        filled.push_back(static_cast<double>(n == 0 ? seeds : n));
        ranges_found += n != 0;
      }
      classes[cls] = {{"found_in_ranges", ranges_found},
                      {"seeds_median", median(filled)},
                      {"seeds_worst", *std::max_element(filled.begin(), filled.end())},
                      {"known", std::find(known.begin(), known.end(), cls) != known.end()}};
    }
    json missed = json::array();
    for (const std::string& cls : known) {
      ++known_total;
      auto it = needed.find(cls);
      const bool everywhere = it != needed.end() &&
                              std::all_of(it->second.begin(), it->second.end(), [](uint64_t n) { return n != 0; });
      if (!everywhere) {
        missed.push_back(cls);
        met = false;
        continue;
      }
      ++known_found_everywhere;
      const double m = classes[cls]["seeds_median"].get<double>();
      all_medians.push_back(m);
      if (m > 200) met = false;
    }
    per_algorithm[algorithm] = {{"classes", classes},
                                {"known_missed", missed},
                                {"seeds_with_a_violation", violating},
                                {"cause_replays", replays}};
  }
  return {{"id", "B6"},
          {"what", "seeds explore --algorithm needs to find each known failure class (causes proven by replay)"},
          {"results", {{"seeds_per_range", seeds},
                       {"ranges", starts.size()},
                       {"known_classes", known_total},
                       {"known_found_in_every_range", known_found_everywhere},
                       {"algorithms", per_algorithm}}},
          {"target", "every known class found, median <= 200 seeds (shrinking to <= 3 faults, <= 3 clients: not measured here)"},
          {"met", met},
          {"quick", options.quick},
          {"machine", machine()}};
}

}  // namespace lockstep::bench
