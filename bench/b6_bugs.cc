// Benchmark B6 (docs/performance.md): how many seeds `lockstep explore --algorithm NAME` needs to
// find each known kind of lock failure by itself.
//
// For each algorithm, the profile derived from its timings (derived_profile.h) is explored over
// a few disjoint seed ranges. Every violated property of every seed has its cause proven by
// replay (counterfactual.h) and classified (bug_class.h); for each class the bench
// records the position in the range of the first seed that showed it. A known class counts as
// found by a cause made of it alone or with other faults (a failover that needed a partition
// too is still the failover bug). Reported per known class: in how many ranges it was found,
// the median and worst seeds needed (a range that never found it counts as its length), and
// the first range's first seed showing the class alone (else within a cause) shrunk: its size
// after, and the class its cause then has. A stale write (a holder writing after it lost the
// lock) is no violation; its first seed is counted as an observation: rejected by a fenced
// resource, accepted by an unfenced one. Ranges and shrinks run on `--jobs` workers; the
// figures are counts of seeds, so they do not depend on how many.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "harness/explore/bug_class.h"
#include "harness/explore/counterfactual.h"
#include "harness/explore/derived_profile.h"
#include "harness/explore/shrink.h"
#include "harness/explore/worker_pool.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

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
                                         "restart-without-persistence", "node-clock", "lost-reply", "network",
                                         "stale-write-accepted"}},
      {"redisson-fair-lock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                              "restart-without-persistence"}},
      {"redisson-fair-lock", {{"profile", "current"}}, {"fair-dead-waiter"}},
      {"redisson-fenced-lock", json::object(), {"holder-pause", "lease-shorter-than-work", "failover-before-replication",
                                                "restart-without-persistence", "stale-write-rejected"}},
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
    // Every violated property's cause: a seed whose mutual exclusion broke by a pause and whose
    // quorum broke by a clock jump shows both bugs, as explore's summary lists both.
    bool any = false;
    for (const checker::PropertyResult& p : r.value().check.properties) {
      if (p.verdict != checker::Verdict::kViolation) continue;
      any = true;
      Result<explore::Cause> c = explore::prove_cause(doc, s, seed, p.name, explore::CounterfactualOptions{});
      if (!c.ok()) continue;
      *replays += c.value().replays.size();
      const std::string cls = explore::bug_class(s, r.value().result.at("faults"), c.value());
      found.emplace(cls, Found{i + 1, seed, p.name});  // keeps the first
    }
    *violating += any;
    // A stale write — a holder writing after it lost the lock — is no violation by itself: a
    // fenced resource rejects it (the fix working), an unfenced one accepts it (the bug fencing
    // fixes). The fencing check counts both; the first seed of each is an observation.
    if (r.value().check.has("fencing")) {
      const nlohmann::json& d = r.value().check.property("fencing").details;
      if (d.value("rejected", int64_t{0}) > 0) found.emplace("stale-write-rejected", Found{i + 1, seed, "fencing"});
      if (d.value("stale_unfenced_accepted", int64_t{0}) > 0) {
        found.emplace("stale-write-accepted", Found{i + 1, seed, "fencing"});
      }
    }
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
  so.max_runs = 1000;  // a budget, not a target: most shrinks end long before it
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

json found_to_json(const Found& f) { return {{"at", f.at}, {"seed", f.seed}, {"property", f.property}}; }
Found found_from_json(const json& j) {
  return Found{j.at("at").get<uint64_t>(), j.at("seed").get<uint64_t>(), j.at("property").get<std::string>()};
}

// Runs `count` tasks on `jobs` workers; their outputs (JSON text) in index order. A crashed or
// unparsable task's output is {"error": ...}.
std::vector<json> run_parallel(uint64_t count, int jobs, const std::function<json(uint64_t)>& task) {
  std::vector<json> out(count, json{{"error", "not run"}});
  uint64_t finished = 0;
  const explore::TaskFn fn = [&](uint64_t i) { return task(i).dump(); };
  const explore::DoneFn done = [&](uint64_t i, const explore::TaskOutput& t) {
    ++finished;
    if (t.crashed) {
      out[i] = {{"error", "the worker crashed: " + t.text}};
      return;
    }
    json j = json::parse(t.text, nullptr, false);
    out[i] = j.is_discarded() ? json{{"error", "unreadable task output"}} : j;
    std::fprintf(stderr, "  B6: %llu of %llu tasks done\n", static_cast<unsigned long long>(finished),
                 static_cast<unsigned long long>(count));
  };
  Status st = explore::run_tasks(count, std::max(1, std::min(jobs, static_cast<int>(count))), fn, done);
  if (!st.ok()) {
    for (json& j : out) j = {{"error", st.message()}};
  }
  return out;
}

// --quick, a smoke run (CI runs it under the sanitizers), keeps three algorithms' targets.
bool in_run(const Target& target, bool quick) {
  return !quick || target.algorithm == "redisson-lock" || target.algorithm == "redisson-redlock" ||
         target.algorithm == "setnx-naive";
}

}  // namespace

std::vector<std::string> b6_algorithms(bool quick) {
  std::vector<std::string> names;
  for (const Target& target : targets()) {
    if (in_run(target, quick) && std::find(names.begin(), names.end(), target.algorithm) == names.end()) {
      names.push_back(target.algorithm);
    }
  }
  return names;
}

json run_b6_bugs(const BenchOptions& options) {
  // --quick, a smoke run (CI runs it under the sanitizers): 4 seeds of three targets.
  const uint64_t seeds = options.quick ? 4 : 300;
  const std::vector<uint64_t> starts = options.quick ? std::vector<uint64_t>{1}
                                                     : std::vector<uint64_t>{1, 100'001, 200'001};
  std::vector<Target> chosen;
  for (const Target& target : targets()) {
    if (!in_run(target, options.quick)) continue;
    if (!options.algorithm.empty() && target.algorithm != options.algorithm) continue;
    chosen.push_back(target);
  }
  if (chosen.empty()) return {{"id", "B6"}, {"status", "error"}, {"error", "no target of algorithm " + options.algorithm}};
  // The profiles, derived and parsed once (each worker has its copy after the fork).
  std::vector<json> docs;
  std::vector<scenario::Scenario> parsed;
  for (const Target& target : chosen) {
    Result<json> doc = explore::derive_profile(target.algorithm, target.options);
    if (!doc.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", doc.status().message()}};
    Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.value().dump(), target.algorithm + "-derived.json");
    if (!s.ok()) return {{"id", "B6"}, {"status", "error"}, {"error", s.status().message()}};
    docs.push_back(doc.value());
    parsed.push_back(std::move(s.value()));
  }
  // 1. Every (target, range) explored, on the workers.
  const std::vector<json> explored = run_parallel(chosen.size() * starts.size(), options.jobs, [&](uint64_t i) {
    const size_t t = i / starts.size();
    uint64_t violating = 0, replays = 0;
    const std::map<std::string, Found> found = explore_range(docs[t], parsed[t], starts[i % starts.size()], seeds,
                                                             &violating, &replays);
    json f = json::object();
    for (const auto& [cls, at] : found) f[cls] = found_to_json(at);
    return json{{"found", f}, {"violating", violating}, {"replays", replays}};
  });
  for (const json& e : explored) {
    if (e.contains("error")) return {{"id", "B6"}, {"status", "error"}, {"error", e["error"]}};
  }
  // 2. For each known class: the ranges that found it, alone or within a cause with other
  //    faults, and the first range's first seed showing it (alone if that range has it).
  struct Shrink {
    size_t target;
    std::string cls;
    Found found;
  };
  std::vector<Shrink> shrinks;
  json per_algorithm = json::object();
  bool met = true;
  uint64_t known_total = 0, known_found_everywhere = 0, to_shrink = 0, shrunk_small = 0;
  for (size_t t = 0; t < chosen.size(); ++t) {
    std::vector<std::map<std::string, Found>> ranges;
    uint64_t violating = 0, replays = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
      const json& e = explored[t * starts.size() + k];
      std::map<std::string, Found> found;
      for (const auto& [cls, f] : e["found"].items()) found.emplace(cls, found_from_json(f));
      ranges.push_back(std::move(found));
      violating += e["violating"].get<uint64_t>();
      replays += e["replays"].get<uint64_t>();
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
    json known_json = json::object();
    json missed = json::array();
    for (const std::string& cls : chosen[t].known) {
      ++known_total;
      std::vector<double> needed;
      uint64_t in = 0;
      std::optional<Found> first_found;
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
      // A stale write is an observation, not a violation: nothing to shrink.
      const bool observation = cls.rfind("stale-write-", 0) == 0;
      if (first_found && !options.quick && !observation) shrinks.push_back(Shrink{t, cls, *first_found});
      if (in != ranges.size()) {
        missed.push_back(cls);
        met = false;
      } else {
        ++known_found_everywhere;
        to_shrink += !observation;
        if (median(needed) > 200) met = false;
      }
      known_json[cls] = {{"found_in_ranges", in},
                         {"seeds_median", median(needed)},
                         {"seeds_worst", *std::max_element(needed.begin(), needed.end())}};
    }
    per_algorithm[chosen[t].label()] = {{"known", known_json},
                                        {"known_missed", missed},
                                        {"classes", classes},
                                        {"seeds_with_a_violation", violating},
                                        {"cause_replays", replays}};
  }
  // 3. The shrinks, on the workers. Small means: it replays, its proven cause still contains
  //    the class, and it has <= 3 faults and <= 3 clients.
  const std::vector<json> shrunk = run_parallel(shrinks.size(), options.jobs, [&](uint64_t i) {
    return shrink_found(docs[shrinks[i].target], parsed[shrinks[i].target], shrinks[i].found);
  });
  for (size_t i = 0; i < shrinks.size(); ++i) {
    const json& sh = shrunk[i];
    const bool same_class = contains(sh.value("class", ""), shrinks[i].cls);
    if (same_class && sh.value("faults", int64_t{99}) <= 3 && sh.value("clients", int64_t{99}) <= 3) ++shrunk_small;
    per_algorithm[chosen[shrinks[i].target].label()]["known"][shrinks[i].cls]["shrunk"] = sh;
  }
  if (!options.quick && shrunk_small < to_shrink) met = false;
  return {{"id", "B6"},
          {"what", "seeds explore --algorithm needs to find each known failure class (causes proven by replay)"},
          {"results", {{"seeds_per_range", seeds},
                       {"ranges", starts.size()},
                       {"known_classes", known_total},
                       {"known_found_in_every_range", known_found_everywhere},
                       {"known_to_shrink", to_shrink},
                       {"known_shrunk_to_3_faults_3_clients_same_class", shrunk_small},
                       {"algorithms", per_algorithm}}},
          {"target", "every known class found in every range, median <= 200 seeds, each shrunk to <= 3 faults and "
                     "<= 3 clients with the same class"},
          {"met", met},
          {"quick", options.quick},
          {"machine", machine()}};
}

}  // namespace lockstep::bench
