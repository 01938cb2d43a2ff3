#include "harness/explore/shrink.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "checker/result.h"
#include "harness/explore/counterfactual.h"
#include "harness/explore/materialize.h"
#include "harness/explore/worker_pool.h"
#include "harness/scenario/faults.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "sim/core/assert.h"
#include "sim/core/fault_kind.h"

namespace lockstep::explore {
namespace {

using json = nlohmann::json;
using Ptr = json::json_pointer;

constexpr int kMaxRounds = 4;       // rounds of all passes while they make progress
constexpr int kMaxBisectSteps = 12; // per number: precision about 1/4096 of its value
constexpr int kInvalidPerRun = 20;  // candidates the parser may reject per run allowed

std::string n_of(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Pointers to every array of steps in the script workload, and to every repeat's "times".
void walk_steps(const json& node, const std::string& ptr, std::vector<std::string>& arrays,
                std::vector<std::string>& repeats, int depth) {
  if (depth > scenario::Limits::kMaxNesting + 2 || !node.is_object()) return;
  if (node.value("op", "") == "repeat" && node.contains("times")) repeats.push_back(ptr + "/times");
  for (const char* key : {"steps", "then", "else"}) {
    if (!node.contains(key) || !node[key].is_array()) continue;
    const std::string p = ptr + "/" + key;
    arrays.push_back(p);
    for (size_t i = 0; i < node[key].size(); ++i) {
      walk_steps(node[key][i], p + "/" + std::to_string(i), arrays, repeats, depth + 1);
    }
  }
}

// Drops from a script workload the thread patterns that name no thread of `doc`'s clients any
// more (and entries left with none), so that removing a client or a thread takes its steps
// along instead of making the candidate invalid. Leaves `doc` alone when its clients are not
// in a form it knows.
void prune_script_threads(json& doc) {
  const Ptr script_ptr("/workload/script");
  if (!doc.contains(script_ptr) || !doc[script_ptr].is_array() || !doc.contains("clients")) return;
  std::vector<std::pair<std::string, int64_t>> clients;  // name, threads
  const json& cs = doc["clients"];
  if (cs.is_array()) {
    for (const json& c : cs) {
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) return;
      const json& t = c.value("threads", json(1));
      if (!t.is_number_integer()) return;
      clients.emplace_back(c["name"].get<std::string>(), t.get<int64_t>());
    }
  } else if (cs.is_object()) {
    const json& n = cs.value("count", json(1));
    const json& t = cs.value("threads", json(1));
    if (!n.is_number_integer() || !t.is_number_integer()) return;
    for (int64_t i = 0; i < n.get<int64_t>() && i < scenario::Limits::kMaxClients; ++i) {
      clients.emplace_back("c" + std::to_string(i + 1), t.get<int64_t>());
    }
  } else {
    return;
  }
  auto names_a_thread = [&](const json& pattern) {
    if (!pattern.is_string()) return true;  // the parser's to judge
    const std::string p = pattern.get<std::string>();
    if (p == "all") return true;
    for (const auto& [name, threads] : clients) {
      if (p == name || p == name + "/*") return threads > 0;
      for (int64_t k = 0; k < threads; ++k) {
        if (p == name + "/t" + std::to_string(k)) return true;
      }
    }
    return false;
  };
  json kept = json::array();
  for (json entry : doc[script_ptr]) {
    if (entry.is_object() && entry.contains("threads")) {
      json& th = entry["threads"];
      if (th.is_array()) {
        json left = json::array();
        for (const json& p : th) {
          if (names_a_thread(p)) left.push_back(p);
        }
        if (left.empty()) continue;
        th = left;
      } else if (!names_a_thread(th)) {
        continue;
      }
    }
    kept.push_back(std::move(entry));
  }
  doc[script_ptr] = std::move(kept);
}

// Drops from the partitions of `doc`'s fault schedule the clients `doc` no longer has (and the
// groups left empty), so that removing an idle client does not make a partition that names it
// invalid. Only for the list form of clients; a group of another shape is the parser's to judge.
void prune_partition_members(json& doc, const std::vector<std::string>& nodes) {
  const Ptr schedule("/faults/schedule");
  if (!doc.contains(schedule) || !doc[schedule].is_array() || !doc.contains("clients") || !doc["clients"].is_array()) return;
  std::vector<std::string> known = nodes;
  for (const json& c : doc["clients"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) return;
    known.push_back(c["name"].get<std::string>());
  }
  for (json& f : doc[schedule]) {
    if (!f.is_object() || parse_fault_kind(f.value("kind", "")) != FaultKind::kPartition || !f.contains("groups") || !f["groups"].is_array()) continue;
    json groups = json::array();
    for (const json& g : f["groups"]) {
      if (!g.is_array()) {
        groups.push_back(g);
        continue;
      }
      json left = json::array();
      for (const json& m : g) {
        if (!m.is_string() || std::find(known.begin(), known.end(), m.get<std::string>()) != known.end()) left.push_back(m);
      }
      if (!left.empty()) groups.push_back(std::move(left));
    }
    f["groups"] = std::move(groups);
  }
}

// The count form of clients ({"count": n, "threads": t, ...}) written as the list it stands
// for (c1 ... cn, each with the same fields): the same run, but a client the failure does not
// need can now go without renaming the others (their names seed their random streams).
void clients_as_list(json& doc) {
  if (!doc.contains("clients") || !doc["clients"].is_object()) return;
  const json& form = doc["clients"];
  const json count = form.value("count", json(1));
  if (!count.is_number_integer() || count.get<int64_t>() < 1 || count.get<int64_t>() > 64) return;
  json list = json::array();
  for (int64_t i = 1; i <= count.get<int64_t>(); ++i) {
    json c = form;
    c.erase("count");
    c["name"] = "c" + std::to_string(i);
    list.push_back(std::move(c));
  }
  doc["clients"] = std::move(list);
}

class Shrinker {
 public:
  Shrinker(uint64_t seed, const std::string& property, const ShrinkOptions& options)
      : seed_(seed), property_(property), options_(options) {
    LS_ASSERT(options.max_runs >= 0);
    LS_ASSERT(!property.empty());
  }

  // Runs the starting point; false if it does not fail with the property. A failure that needs
  // faults must keep needing the same ones: the cause is proven by replay (counterfactual.h)
  // and its faults' shapes (kind, and whether they hit a node or a client) are kept. A smaller
  // variant is taken only if it still has a fault of such a shape and fails no more without
  // them; otherwise it shows another bug (a lease shortened below the work, a restart where
  // the start had a pause). When the cause cannot be proven, any fault will do.
  bool start(const json& materialized, const scenario::Scenario& parsed) {
    node_names_ = parsed.node_names;
    reproduced_ = try_candidate(materialized);
    before_ = size_of(current_, ops_);
    if (!reproduced_ || before_.faults == 0) return reproduced_;
    Result<scenario::Scenario> bare = scenario::parse_scenario_text(without_faults(current_).dump(), options_.file);
    int64_t ops = 0;
    ++runs_;
    needs_faults_ = bare.ok() && !run_isolated(bare.value(), nullptr, ops);
    if (!needs_faults_) return reproduced_;
    Result<scenario::Scenario> here = scenario::parse_scenario_text(current_.dump(), options_.file);
    CounterfactualOptions proof;  // its replays count against the run limit
    proof.max_replays = std::min(proof.max_replays, options_.max_runs - runs_);
    Result<Cause> cause = here.ok() && proof.max_replays >= 1
                              ? prove_cause(current_, here.value(), seed_, property_, proof)
                              : Result<Cause>(Status::error("no runs left to prove the cause"));
    std::string shapes;
    if (cause.ok()) runs_ += static_cast<int>(cause.value().replays.size());
    if (cause.ok() && cause.value().sufficient && !cause.value().cause.empty()) {
      const json& schedule = current_["faults"]["schedule"];
      for (int64_t n : cause.value().cause) {
        const std::string shape = shape_of(schedule[static_cast<size_t>(n - 1)]);
        if (std::find(cause_shapes_.begin(), cause_shapes_.end(), shape) == cause_shapes_.end()) {
          cause_shapes_.push_back(shape);
          shapes += (shapes.empty() ? "" : ", ") + shape;
        }
      }
    }
    log_.push_back(cause_shapes_.empty()
                       ? "the failure needs faults (none: no " + property_ + " violation): every smaller variant must too"
                       : "the failure needs its cause's faults (" + shapes + "; proven by replay): every smaller variant must too");
    return reproduced_;
  }

  void run_passes() {
    for (int round = 0; round < kMaxRounds && !stopped(); ++round) {
      bool changed = reduce_array("/faults/schedule", "fault");
      changed |= pass_clients();
      changed |= pass_operations();
      changed |= pass_fault_sizes();
      changed |= pass_step_durations();
      changed |= reduce_number("/duration_ms", 1, std::nullopt);
      if (!changed) break;
    }
  }

  ShrinkResult result() {
    ShrinkResult r;
    r.seed = seed_;
    r.property = property_;
    r.reproduced = reproduced_;
    r.scenario = current_;
    r.runs = runs_;
    r.exhausted = exhausted_;
    r.before = before_;
    r.after = size_of(current_, ops_);
    r.log = log_;
    return r;
  }

  const Status& error() const { return error_; }

 private:
  bool stopped() const { return exhausted_ || !error_.ok(); }

  // Parses and runs `candidate`; if it still violates the property it becomes the current one.
  bool try_candidate(const json& proposed) {
    json candidate = proposed;
    prune_script_threads(candidate);
    prune_partition_members(candidate, node_names_);
    if (stopped() || candidate == current_) return false;
    Result<scenario::Scenario> s = scenario::parse_scenario_text(candidate.dump(), options_.file);
    if (!s.ok()) {
      // Not a valid scenario (e.g. a fault aimed at a removed client): free, but bounded.
      if (++invalid_ > kInvalidPerRun * (options_.max_runs + 1)) exhausted_ = true;
      return false;
    }
    if (runs_ >= options_.max_runs) {
      exhausted_ = true;
      return false;
    }
    std::optional<scenario::Scenario> bare;
    if (needs_faults_) {
      const json without = without_cause(candidate);
      if (s.value().schedule.empty() || without == candidate) return false;  // no fault of the cause's shapes left: another bug
      Result<scenario::Scenario> b = scenario::parse_scenario_text(without.dump(), options_.file);
      if (!b.ok()) return false;
      bare = std::move(b.value());
    }
    ++runs_;
    int64_t ops = 0;
    if (!run_isolated(s.value(), bare ? &*bare : nullptr, ops)) return false;
    current_ = candidate;
    ops_ = ops;
    return true;
  }

  static json without_faults(const json& doc) {
    json bare = doc;
    bare["faults"] = {{"schedule", json::array()}};
    return bare;
  }

  // "pause on a client", "crash on a node", "drop": a fault's kind and what it hits.
  std::string shape_of(const json& fault) const {
    std::string shape = fault.value("kind", std::string("fault"));
    if (fault.contains("target") && fault["target"].is_string()) {
      const std::string target = fault["target"].get<std::string>();
      const bool node = std::find(node_names_.begin(), node_names_.end(), target) != node_names_.end();
      shape += node ? " on a node" : " on a client";
    }
    return shape;
  }

  // `doc` without the faults the failure needs: those of the cause's shapes (all of them when
  // the cause was not proven).
  json without_cause(const json& doc) const {
    if (cause_shapes_.empty()) return without_faults(doc);
    json out = doc;
    const Ptr p("/faults/schedule");
    if (!out.contains(p) || !out[p].is_array()) return out;
    json kept = json::array();
    for (const json& f : out[p]) {
      if (std::find(cause_shapes_.begin(), cause_shapes_.end(), shape_of(f)) == cause_shapes_.end()) kept.push_back(f);
    }
    out[p] = std::move(kept);
    return out;
  }

  // One run in a forked worker: does it violate the property (and, given `bare`, the same
  // scenario without faults does not)? A crash counts as no.
  bool run_isolated(const scenario::Scenario& s, const scenario::Scenario* bare, int64_t& ops) {
    const TaskFn task = [&](uint64_t) -> std::string {
      auto violates = [&](const scenario::Scenario& x, int64_t* ran_ops) {
        scenario::RunOptions ro;
        ro.seed = seed_;
        ro.coverage = false;
        ro.history_text = false;
        ro.result_json = false;
        Result<scenario::RunReport> r = scenario::run_scenario(x, ro);
        if (!r.ok()) return false;
        if (ran_ops != nullptr) *ran_ops = static_cast<int64_t>(r.value().stats.ops);
        const checker::CheckResult& c = r.value().check;
        return c.has(property_) && c.property(property_).verdict == checker::Verdict::kViolation;
      };
      int64_t ran_ops = 0;
      const bool v = violates(s, &ran_ops) && (bare == nullptr || !violates(*bare, nullptr));
      return std::string(v ? "1 " : "0 ") + std::to_string(ran_ops);
    };
    std::string out;
    const DoneFn done = [&](uint64_t, const TaskOutput& t) {
      if (!t.crashed) out = t.text;
    };
    Status st = run_tasks(1, 1, task, done);
    if (!st.ok()) {
      error_ = st;
      return false;
    }
    if (out.size() < 3 || out[0] != '1') return false;
    ops = std::strtoll(out.c_str() + 2, nullptr, 10);
    return true;
  }

  ScenarioSize size_of(const json& doc, int64_t ops) const {
    ScenarioSize z;
    z.operations = ops;
    Result<scenario::Scenario> s = scenario::parse_scenario_text(doc.dump(), options_.file);
    if (!s.ok()) return z;
    z.faults = static_cast<int64_t>(s.value().schedule.size());
    z.clients = static_cast<int64_t>(s.value().clients.size());
    z.threads = s.value().total_threads();
    z.duration_ms = s.value().duration_ms;
    return z;
  }

  // Removes as much of the array at `ptr` as still fails: all of it, then halves, quarters...
  bool reduce_array(const std::string& ptr, const char* noun) {
    const Ptr p(ptr);
    if (!current_.contains(p) || !current_[p].is_array() || current_[p].empty()) return false;
    const size_t before = current_[p].size();
    size_t chunk = before;
    for (;;) {
      size_t start = 0;
      while (!stopped() && current_.contains(p) && start < current_[p].size()) {
        json candidate = current_;
        json& arr = candidate[p];
        const size_t end = std::min(arr.size(), start + chunk);
        arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(start), arr.begin() + static_cast<std::ptrdiff_t>(end));
        if (!try_candidate(candidate)) start += chunk;
      }
      if (chunk == 1 || stopped()) break;
      chunk = (chunk + 1) / 2;
    }
    const size_t after = current_.contains(p) ? current_[p].size() : 0;
    if (after == before) return false;
    log_.push_back(ptr + ": " + n_of(before, noun) + " -> " + std::to_string(after));
    return true;
  }

  // Moves the integer at `ptr` as close to `target` as still fails (target first, then
  // bisection). A missing field counts as `missing_default` (no default: leave it alone).
  bool reduce_number(const std::string& ptr, int64_t target, std::optional<int64_t> missing_default) {
    const Ptr p(ptr);
    int64_t from = 0;
    if (current_.contains(p)) {
      if (!current_[p].is_number_integer()) return false;
      from = current_[p].get<int64_t>();
    } else if (missing_default.has_value()) {
      from = *missing_default;
    } else {
      return false;
    }
    if (from == target) return false;
    auto with = [&](int64_t v) {
      json c = current_;
      c[p] = v;
      return c;
    };
    int64_t hi = from;  // fails
    if (try_candidate(with(target))) {
      hi = target;
    } else {
      int64_t lo = target;  // does not fail
      for (int step = 0; step < kMaxBisectSteps && !stopped(); ++step) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (mid == lo || mid == hi) break;
        if (try_candidate(with(mid))) {
          hi = mid;
        } else {
          lo = mid;
        }
      }
    }
    if (hi == from) return false;
    log_.push_back(ptr + ": " + std::to_string(from) + " -> " + std::to_string(hi));
    return true;
  }

  bool pass_clients() {
    bool changed = false;
    if (current_.contains("clients") && current_["clients"].is_array()) {
      changed |= reduce_array("/clients", "client");
      for (size_t i = 0; current_.contains("clients") && i < current_["clients"].size(); ++i) {
        changed |= reduce_number("/clients/" + std::to_string(i) + "/threads", 1, std::nullopt);
      }
    } else if (current_.contains("clients") && current_["clients"].is_object()) {
      changed |= reduce_number("/clients/count", 1, std::nullopt);
      changed |= reduce_number("/clients/threads", 1, std::nullopt);
    }
    return changed;
  }

  bool pass_operations() {
    bool changed = false;
    if (current_.contains(Ptr("/workload/generator"))) {
      changed |= reduce_number("/workload/generator/ops_per_thread", 1, 10);
    }
    changed |= reduce_array("/workload/script", "script entry");
    std::vector<std::string> arrays;
    std::vector<std::string> repeats;
    const Ptr script("/workload/script");
    if (current_.contains(script) && current_[script].is_array()) {
      for (size_t i = 0; i < current_[script].size(); ++i) {
        walk_steps(current_[script][i], "/workload/script/" + std::to_string(i), arrays, repeats, 0);
      }
    }
    // Pointers into arrays shortened meanwhile may be gone; the passes skip those.
    for (const std::string& a : arrays) changed |= reduce_array(a, "step");
    for (const std::string& r : repeats) changed |= reduce_number(r, 1, std::nullopt);
    return changed;
  }

  // Shorter holds, sleeps and leases in the script, once few steps are left (each number is a
  // bisection of its own): a hold that outlives its lease by a little reads clearer than one
  // that outlives it by seconds.
  bool pass_step_durations() {
    static constexpr size_t kMaxNumbers = 16;
    std::vector<std::string> arrays, repeats;
    const Ptr script("/workload/script");
    if (!current_.contains(script) || !current_[script].is_array()) return false;
    for (size_t i = 0; i < current_[script].size(); ++i) {
      walk_steps(current_[script][i], "/workload/script/" + std::to_string(i), arrays, repeats, 0);
    }
    std::vector<std::pair<std::string, int64_t>> numbers;  // pointer, target
    for (const std::string& a : arrays) {
      const json& steps = current_[Ptr(a)];
      for (size_t j = 0; j < steps.size(); ++j) {
        const json& st = steps[j];
        const std::string op = st.value("op", "");
        const std::string at = a + "/" + std::to_string(j);
        if ((op == "hold" || op == "sleep") && st.contains("ms")) numbers.emplace_back(at + "/ms", 0);
        if ((op == "lock" || op == "try_lock") && st.value("lease_ms", int64_t{-1}) > 0) {
          numbers.emplace_back(at + "/lease_ms", 1);
        }
        if (op == "try_lock" && st.contains("wait_ms")) numbers.emplace_back(at + "/wait_ms", 0);
      }
    }
    if (numbers.size() > kMaxNumbers) return false;
    bool changed = false;
    for (const auto& [ptr, target] : numbers) changed |= reduce_number(ptr, target, std::nullopt);
    return changed;
  }

  bool pass_fault_sizes() {
    bool changed = false;
    const Ptr sched("/faults/schedule");
    for (size_t i = 0; current_.contains(sched) && i < current_[sched].size(); ++i) {
      const std::string f = "/faults/schedule/" + std::to_string(i);
      for (const char* field : {"duration_ms", "restart_after_ms", "extra_ms"}) {
        changed |= reduce_number(f + "/" + field, 0, std::nullopt);
      }
      for (const char* field : {"delta_ms", "offset_ms", "drift_ppm"}) {
        changed |= reduce_number(f + "/" + field, 0, std::nullopt);
      }
      changed |= reduce_number(f + "/replies", 1, std::nullopt);
    }
    return changed;
  }

  const uint64_t seed_;
  const std::string property_;
  const ShrinkOptions options_;
  json current_;
  int64_t ops_ = 0;
  bool needs_faults_ = false;  // see start()
  std::vector<std::string> cause_shapes_;  // the proven cause's fault shapes (empty: any fault)
  std::vector<std::string> node_names_;
  bool reproduced_ = false;
  int runs_ = 0;
  int64_t invalid_ = 0;
  bool exhausted_ = false;
  ScenarioSize before_;
  std::vector<std::string> log_;
  Status error_;
};

}  // namespace

json ScenarioSize::to_json() const {
  return {{"faults", faults}, {"clients", clients}, {"threads", threads},
          {"operations", operations}, {"duration_ms", duration_ms}};
}

std::string ScenarioSize::to_text() const {
  return n_of(static_cast<size_t>(faults), "fault") + ", " + n_of(static_cast<size_t>(clients), "client") +
         ", " + n_of(static_cast<size_t>(threads), "thread") + ", " +
         n_of(static_cast<size_t>(operations), "operation") + ", " + std::to_string(duration_ms) + " ms";
}

json ShrinkResult::to_json() const {
  return {{"seed", seed},       {"property", property},        {"reproduced", reproduced},
          {"runs", runs},       {"exhausted", exhausted},      {"before", before.to_json()},
          {"after", after.to_json()}, {"log", log}};
}

uint64_t pick_seed_to_shrink(const std::vector<SeedResult>& failures, const scenario::Scenario& parsed,
                             const std::string& property, uint64_t fallback) {
  uint64_t best = fallback;
  size_t best_faults = SIZE_MAX;
  size_t seen = 0;
  for (const SeedResult& f : failures) {
    if (std::find(f.violated.begin(), f.violated.end(), property) == f.violated.end()) continue;
    if (++seen > kShrinkCandidates) break;
    const size_t faults = parsed.random.has_value() ? scenario::draw_random_faults(parsed, f.seed, 1).size() : 0;
    if (faults < best_faults || (faults == best_faults && f.seed < best)) {
      best = f.seed;
      best_faults = faults;
    }
  }
  return best;
}

Result<ShrinkResult> shrink_failure(const json& doc, const scenario::Scenario& parsed, uint64_t seed,
                                    const std::string& property, const ShrinkOptions& options) {
  LS_ASSERT(doc.is_object());
  LS_ASSERT(options.max_runs >= 1);
  Shrinker shrinker(seed, property, options);
  json start = materialize_faults(doc, parsed, seed);
  // A generated workload is written out as the script it ran, so that clients, threads and
  // single operations can go (the generator only lets ops_per_thread shrink).
  std::string workload_note;
  if (parsed.workload.generator.has_value()) {
    Result<scenario::Scenario> fixed = scenario::parse_scenario_text(start.dump(), options.file);
    if (fixed.ok()) {
      scenario::RunOptions ro;
      ro.seed = seed;
      ro.check = false;
      Result<scenario::RunReport> ran = scenario::run_scenario(fixed.value(), ro);
      if (ran.ok()) {
        if (std::optional<json> scripted = materialize_workload(start, fixed.value(), seed, ran.value().history)) {
          start = std::move(*scripted);
          workload_note = "/workload: the generator written out as the script it ran for seed " + std::to_string(seed);
        }
      }
    }
  }
  clients_as_list(start);
  if (shrinker.start(start, parsed)) shrinker.run_passes();
  if (!shrinker.error().ok()) return shrinker.error();
  ShrinkResult r = shrinker.result();
  if (!workload_note.empty()) r.log.insert(r.log.begin(), workload_note);
  if (!r.reproduced) r.scenario = start;
  // Say where the file came from; the description is free text, so this changes no behaviour.
  const std::string origin = "Shrunk by lockstep explore from " + parsed.file + ", seed " +
                             std::to_string(seed) + ", violating " + property + ".";
  const std::string desc = doc.value("description", "");
  r.scenario["description"] = desc.empty() ? origin : origin + " Originally: " + desc;
  return r;
}

}  // namespace lockstep::explore
