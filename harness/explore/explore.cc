#include "harness/explore/explore.h"

#include <algorithm>
#include <map>

#include "checker/check.h"
#include "harness/explore/junit.h"
#include "harness/explore/worker_pool.h"
#include "harness/scenario/coverage_report.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

nlohmann::json range_json(const SeedRange& r) { return {{"first", r.first}, {"count", r.count}}; }

SeedRange range_from(const nlohmann::json& j) {
  return SeedRange{j.at("first").get<uint64_t>(), j.at("count").get<uint64_t>()};
}

nlohmann::json expect_json(const scenario::ExpectSpec& e) {
  nlohmann::json j = {{"verdict", e.verdict}};
  if (!e.property.empty()) j["property"] = e.property;
  return j;
}

// Folds results arriving in any order into the summary in seed order: results wait here until
// every earlier seed has arrived. Tasks are handed out in order, so at most `jobs` wait.
class InOrder {
 public:
  InOrder(ExploreSummary& summary, const SeedRange& slice) : summary_(summary), slice_(slice) {}

  void put(uint64_t index, SeedResult r) {
    LS_ASSERT(index < slice_.count);
    LS_ASSERT(index >= next_ && pending_.count(index) == 0);
    pending_.emplace(index, std::move(r));
    for (auto it = pending_.begin(); it != pending_.end() && it->first == next_; it = pending_.erase(it)) {
      summary_.add(it->second);
      ++next_;
    }
  }
  bool complete() const { return next_ == slice_.count && pending_.empty(); }
  // How many seeds from the slice's start are folded in (the rest may wait in pending_).
  uint64_t folded() const { return next_; }

 private:
  ExploreSummary& summary_;
  const SeedRange slice_;
  std::map<uint64_t, SeedResult> pending_;
  uint64_t next_ = 0;
};

// `summary` of the first `folded` seeds of `slice`, as a run stopped there leaves it.
ExploreSummary stopped_summary(ExploreSummary summary, const SeedRange& slice, uint64_t folded) {
  LS_ASSERT(summary.slices.empty() && folded <= slice.count);
  summary.interrupted = true;
  summary.planned = slice;
  if (folded > 0) summary.slices.push_back(SeedRange{slice.first, folded});
  return summary;
}

}  // namespace

void ExploreSummary::add(const SeedResult& r) {
  LS_ASSERT(failures.empty() || failures.back().seed < r.seed);
  ++seeds_run;
  ++verdicts[r.verdict];
  for (const std::string& p : r.violated) ++violations[p];
  for (const std::string& p : r.unknown) ++unknown[p];
  if (!coverage.is_null()) scenario::add_coverage(coverage, r.coverage);
  if (r.expected) {
    ++as_expected;
    return;
  }
  ++failures_total;
  if (failures.size() < kMaxFailureRecords) {
    failures.push_back(r);
    failures.back().coverage = {};  // summed above; a failure's record does not keep it
  }
  LS_ASSERT(as_expected + failures_total == seeds_run);
}

int ExploreSummary::exit_code() const {
  if (failures_total == 0) return 0;
  if (failures.size() < failures_total) return 1;  // the uncounted ones could be anything
  for (const SeedResult& f : failures) {
    if (f.exit_code != 3) return 1;
  }
  return 3;
}

bool ExploreSummary::shrink_target(uint64_t& seed, std::string& property) const {
  for (const SeedResult& f : failures) {
    for (const std::string& p : f.violated) {
      if (p == expect.property) continue;
      seed = f.seed;
      property = p;
      return true;
    }
  }
  return false;
}

nlohmann::json ExploreSummary::to_json() const {
  nlohmann::json slices_json = nlohmann::json::array();
  for (const SeedRange& s : slices) slices_json.push_back(range_json(s));
  nlohmann::json fails = nlohmann::json::array();
  for (const SeedResult& f : failures) fails.push_back(f.to_json());
  nlohmann::json j = {{"lockstep_explore", 1},
          {"scenario", scenario},
          {"file", file},
          {"expect", expect_json(expect)},
          {"seeds", range_json(range)},
          {"slices", slices_json},
          {"seeds_run", seeds_run},
          {"as_expected", as_expected},
          {"not_as_expected", failures_total},
          {"verdicts", verdicts},
          {"violations", violations},
          {"unknown", unknown},
          {"exit_code", exit_code()},
          {"failures", fails},
          {"failures_listed", failures.size()},
          {"shrunk", shrunk},
          {"coverage", coverage}};
  if (interrupted) {
    j["interrupted"] = true;
    j["planned"] = range_json(planned);
    if (!dir.empty()) j["dir"] = dir;
    if (!options.is_null()) j["options"] = options;
  }
  return j;
}

Result<ExploreSummary> ExploreSummary::from_json(const nlohmann::json& j, const std::string& file) {
  ExploreSummary s;
  try {
    if (!j.is_object() || j.value("lockstep_explore", 0) != 1) {
      return Status::error(file + ": not a lockstep explore summary (expected \"lockstep_explore\": 1)");
    }
    s.scenario = j.at("scenario").get<std::string>();
    s.file = j.at("file").get<std::string>();
    s.expect.verdict = j.at("expect").at("verdict").get<std::string>();
    s.expect.property = j.at("expect").value("property", "");
    s.range = range_from(j.at("seeds"));
    for (const nlohmann::json& sl : j.at("slices")) s.slices.push_back(range_from(sl));
    s.seeds_run = j.at("seeds_run").get<uint64_t>();
    s.as_expected = j.at("as_expected").get<uint64_t>();
    s.failures_total = j.at("not_as_expected").get<uint64_t>();
    s.verdicts = j.at("verdicts").get<std::map<std::string, uint64_t>>();
    s.violations = j.at("violations").get<std::map<std::string, uint64_t>>();
    s.unknown = j.at("unknown").get<std::map<std::string, uint64_t>>();
    const nlohmann::json& fails = j.at("failures");
    for (size_t i = 0; i < fails.size(); ++i) {
      Result<SeedResult> r = SeedResult::from_json(fails[i], file + ": /failures/" + std::to_string(i));
      if (!r.ok()) return r.status();
      s.failures.push_back(r.value());
    }
    s.shrunk = j.value("shrunk", nlohmann::json());
    s.coverage = j.value("coverage", nlohmann::json());
    if (!s.coverage.is_null()) {
      Result<kernel::Coverage> c = scenario::coverage_from_json(s.coverage, file);
      if (!c.ok()) return c.status();
    }
    s.interrupted = j.value("interrupted", false);
    if (s.interrupted) {
      s.planned = range_from(j.at("planned"));
      s.dir = j.value("dir", "");
      s.options = j.value("options", nlohmann::json());
      if (!s.options.is_null() && !s.options.is_object()) {
        return Status::error(file + ": /options: expected an object (the options the exploration started with)");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::error(file + ": not a lockstep explore summary: " + e.what());
  }
  if (s.as_expected + s.failures_total != s.seeds_run || s.failures.size() > s.failures_total) {
    return Status::error(file + ": inconsistent counts (as_expected + not_as_expected != seeds_run)");
  }
  return s;
}

std::string ExploreSummary::to_text(size_t max_listed) const {
  std::string out = "seeds run: " + std::to_string(seeds_run) + " (" + std::to_string(as_expected) +
                    " as expected, " + std::to_string(failures_total) + " not)\n";
  out += "verdicts:";
  for (const auto& [v, n] : verdicts) out += " " + v + " " + std::to_string(n) + ",";
  if (!verdicts.empty()) out.pop_back();
  out += "\n";
  if (!violations.empty()) {
    out += "violations by property:";
    for (const std::string& p : checker::property_names()) {
      auto it = violations.find(p);
      if (it != violations.end()) out += " " + p + " " + std::to_string(it->second) + " seeds,";
    }
    out.pop_back();
    out += "\n";
  }
  if (!unknown.empty()) {
    out += "unknown by property:";
    for (const auto& [p, n] : unknown) out += " " + p + " " + std::to_string(n) + " seeds,";
    out.pop_back();
    out += "\n";
  }
  if (failures_total > 0) {
    out += "first failing seeds:\n";
    for (size_t i = 0; i < failures.size() && i < max_listed; ++i) {
      out += "  seed " + std::to_string(failures[i].seed) + ": " + failures[i].outcome + "\n";
      out += "    replay: " + failures[i].replay + "\n";
    }
    if (failures_total > max_listed) out += "  ... and " + std::to_string(failures_total - std::min<uint64_t>(max_listed, failures_total)) + " more\n";
  }
  out += scenario::coverage_text(coverage, /*max_items=*/10);
  return out;
}

Result<ExploreSummary> run_explore(const scenario::Scenario& s, const ExploreOptions& options) {
  LS_ASSERT(check_range(options.range).ok());
  LS_ASSERT(options.jobs >= 1 && options.jobs <= kMaxJobs);
  ExploreSummary summary;
  summary.scenario = s.name;
  summary.file = s.file;
  summary.expect = s.expect;
  summary.range = options.range;
  summary.coverage = scenario::coverage_json(kernel::Coverage{}, s);
  const SeedRange slice = options.only.has_value() ? *options.only : shard_slice(options.range, options.shard);
  LS_ASSERT(slice.first >= options.range.first && slice.end() <= options.range.end());
  InOrder in_order(summary, slice);
  ExploreProgress progress;
  progress.total = slice.count;
  const TaskFn task = [&s, &slice, &options](uint64_t i) {
    const uint64_t seed = slice.first + i;
    return (options.run_seed ? options.run_seed(s, seed) : run_seed(s, seed)).to_json().dump();
  };
  const DoneFn done = [&](uint64_t i, const TaskOutput& out) {
    SeedResult r;
    if (out.crashed) {
      r = crashed_seed(s, slice.first + i, out.text, out.out_of_memory);
    } else {
      Result<SeedResult> parsed = SeedResult::from_json(nlohmann::json::parse(out.text), "worker output");
      LS_ASSERT(parsed.ok());
      r = parsed.value();
    }
    ++progress.done;
    progress.failures += r.expected ? 0 : 1;
    progress.violations += r.violated.empty() ? 0 : 1;
    in_order.put(i, std::move(r));
    if (options.progress) options.progress(progress);
    if (options.checkpoint && options.checkpoint_due && options.checkpoint_due()) {
      options.checkpoint(stopped_summary(summary, slice, in_order.folded()));
    }
  };
  Status st = run_tasks(slice.count, options.jobs, task, done, options.stop);
  if (!st.ok()) return st;
  if (!in_order.complete()) {
    // Stopped: the summary covers the seeds folded in order; later ones that finished early are
    // dropped (at most --jobs of them) and run again on --resume.
    LS_ASSERT(options.stop && options.stop());
    return stopped_summary(summary, slice, in_order.folded());
  }
  if (slice.count > 0) summary.slices.push_back(slice);
  return summary;
}

Result<ExploreSummary> merge_summaries(const std::vector<ExploreSummary>& parts,
                                       const std::vector<std::string>& files) {
  LS_ASSERT(parts.size() == files.size());
  if (parts.empty()) return Status::error("explore --merge: no summaries to merge");
  const ExploreSummary& first = parts.front();
  // Order the parts by their first slice so the failures stay in seed order.
  std::vector<size_t> order(parts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto start = [&](size_t i) { return parts[i].slices.empty() ? 0 : parts[i].slices.front().first; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return start(a) < start(b); });
  ExploreSummary m;
  m.scenario = first.scenario;
  m.file = first.file;
  m.expect = first.expect;
  m.range = first.range;
  for (size_t k : order) {
    const ExploreSummary& p = parts[k];
    if (p.scenario != first.scenario || p.file != first.file || p.expect.verdict != first.expect.verdict ||
        p.expect.property != first.expect.property || p.range.first != first.range.first ||
        p.range.count != first.range.count) {
      return Status::error(files[k] + ": explores " + p.file + " seeds " + std::to_string(p.range.first) + "+" +
                           std::to_string(p.range.count) + ", not " + first.file + " seeds " +
                           std::to_string(first.range.first) + "+" + std::to_string(first.range.count) +
                           " like " + files[0]);
    }
    for (const SeedRange& sl : p.slices) {
      if (!m.slices.empty() && m.slices.back().end() > sl.first) {
        return Status::error(files[k] + ": its seeds from " + std::to_string(sl.first) +
                             " overlap another summary's (the same shard given twice?)");
      }
      if (!m.slices.empty() && m.slices.back().end() == sl.first) {
        m.slices.back().count += sl.count;  // adjacent: one slice
      } else {
        m.slices.push_back(sl);
      }
    }
    m.seeds_run += p.seeds_run;
    m.as_expected += p.as_expected;
    m.failures_total += p.failures_total;
    for (const auto& [k2, n] : p.verdicts) m.verdicts[k2] += n;
    for (const auto& [k2, n] : p.violations) m.violations[k2] += n;
    for (const auto& [k2, n] : p.unknown) m.unknown[k2] += n;
    for (const SeedResult& f : p.failures) {
      if (m.failures.size() < kMaxFailureRecords) m.failures.push_back(f);
    }
    if (m.shrunk.is_null() && !p.shrunk.is_null()) m.shrunk = p.shrunk;
    // Coverage sums like the counts; a part without it (an older summary) makes it unknown.
    if (k == order.front()) {
      m.coverage = p.coverage;
    } else if (m.coverage.is_null() || p.coverage.is_null()) {
      m.coverage = nullptr;
    } else {
      Result<kernel::Coverage> c = scenario::coverage_from_json(p.coverage, files[k]);
      if (!c.ok()) return c.status();
      scenario::add_coverage(m.coverage, c.value());
    }
  }
  LS_ASSERT(m.as_expected + m.failures_total == m.seeds_run);
  return m;
}

JUnitSuite junit_suite(const ExploreSummary& summary) {
  JUnitSuite suite;
  suite.name = summary.scenario;
  suite.properties = {{"file", summary.file},
                      {"seeds", std::to_string(summary.range.first) + ".." +
                                    std::to_string(summary.range.end() - 1)},
                      {"expect", summary.expect.verdict + (summary.expect.property.empty() ? "" : " " + summary.expect.property)}};
  const std::string classname = "lockstep." + summary.scenario;
  size_t f = 0;
  for (const SeedRange& sl : summary.slices) {
    for (uint64_t seed = sl.first; seed < sl.end(); ++seed) {
      JUnitCase c;
      c.classname = classname;
      c.name = "seed " + std::to_string(seed);
      while (f < summary.failures.size() && summary.failures[f].seed < seed) ++f;
      if (f < summary.failures.size() && summary.failures[f].seed == seed) {
        const SeedResult& r = summary.failures[f];
        const bool error = r.kind != SeedResult::Kind::kRan;
        c.kind = error ? JUnitCase::Kind::kError : JUnitCase::Kind::kFailure;
        c.type = error ? r.verdict : (r.exit_code == 3 ? "unknown" : "violation");
        c.message = r.outcome;
        c.text = "replay: " + r.replay + "\n" + (r.explanation.empty() ? "" : r.explanation + "\n");
        for (const std::string& more : r.more_explanations) c.text += more + "\n";
      }
      suite.cases.push_back(std::move(c));
    }
  }
  LS_ASSERT(suite.cases.size() == summary.seeds_run);
  if (summary.failures.size() < summary.failures_total) {
    // Past the cap the summary only counts failures; say so rather than pass them silently.
    JUnitCase c;
    c.classname = classname;
    c.name = "failing seeds not listed";
    c.kind = JUnitCase::Kind::kError;
    c.type = "truncated";
    c.message = std::to_string(summary.failures_total - summary.failures.size()) +
                " more seeds failed; their details were not kept (see explore.json)";
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

}  // namespace lockstep::explore
