#include "harness/explore/sweep.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "checker/check.h"
#include "harness/explore/seed_result.h"
#include "harness/explore/svg_plot.h"
#include "harness/explore/worker_pool.h"
#include "harness/scenario/json_reader.h"
#include "harness/scenario/parse.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

using json = nlohmann::json;

constexpr size_t kFirstViolating = 5;

const char* kParamUsage = "expected PATH=FROM..TO[:STEP], e.g. /faults/schedule/0/duration_ms=1000..40000:1000";

bool parse_i64(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

const char* type_name(const json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_number_float()) return "a non-integer number";
  return "a number";
}

// Splits a JSON pointer into unescaped reference tokens (~1 is '/', ~0 is '~').
bool split_pointer(const std::string& ptr, std::vector<std::string>& tokens) {
  if (ptr.empty() || ptr[0] != '/') return false;
  std::string cur;
  for (size_t i = 1; i <= ptr.size(); ++i) {
    if (i == ptr.size() || ptr[i] == '/') {
      tokens.push_back(cur);
      cur.clear();
    } else if (ptr[i] == '~') {
      if (i + 1 >= ptr.size() || (ptr[i + 1] != '0' && ptr[i + 1] != '1')) return false;
      cur += ptr[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      cur += ptr[i];
    }
  }
  return true;
}

double rate(uint64_t k, uint64_t n) { return n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n); }

std::string fixed6(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

// A value no seed ran at (an interrupted sweep) has no rate: null in JSON, an empty CSV field,
// "not run" in the table; never 0, which would read as "ran and found nothing".
json rate_json(uint64_t k, uint64_t n) { return n == 0 ? json(nullptr) : json(rate(k, n)); }
std::string rate_csv(uint64_t k, uint64_t n) { return n == 0 ? std::string() : fixed6(rate(k, n)); }

}  // namespace

std::vector<int64_t> ParamRange::values() const {
  LS_ASSERT(step > 0 && from <= to);
  std::vector<int64_t> out;
  for (int64_t v = from; v <= to && out.size() < kMaxSweepValues; v += step) {
    out.push_back(v);
    if (v > INT64_MAX - step) break;
  }
  LS_ASSERT(!out.empty());
  return out;
}

Result<ParamRange> parse_param(std::string_view text) {
  const std::string quoted = "--param \"" + std::string(text) + "\": ";
  const size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0) return Status::error(quoted + kParamUsage);
  ParamRange p;
  p.pointer = std::string(text.substr(0, eq));
  if (p.pointer[0] != '/') return Status::error(quoted + "the path must be a JSON pointer starting with '/' (" + kParamUsage + ")");
  std::string_view range = text.substr(eq + 1);
  const size_t dots = range.find("..");
  if (dots == std::string_view::npos) return Status::error(quoted + kParamUsage);
  const size_t colon = range.find(':', dots);
  const std::string_view to_text = range.substr(dots + 2, colon == std::string_view::npos ? std::string_view::npos : colon - dots - 2);
  if (!parse_i64(range.substr(0, dots), p.from) || !parse_i64(to_text, p.to)) {
    return Status::error(quoted + "FROM and TO must be integers (" + kParamUsage + ")");
  }
  if (p.from > p.to) return Status::error(quoted + "FROM must not be greater than TO");
  if (colon != std::string_view::npos) {
    if (!parse_i64(range.substr(colon + 1), p.step) || p.step <= 0) {
      return Status::error(quoted + "STEP must be an integer > 0");
    }
  } else {
    // 10 steps by default: (TO - FROM) / 10, rounded up, at least 1. Computed without overflow.
    const uint64_t span = static_cast<uint64_t>(p.to) - static_cast<uint64_t>(p.from);
    p.step = static_cast<int64_t>(std::max<uint64_t>(1, span / 10 + (span % 10 != 0 ? 1 : 0)));
  }
  const uint64_t span = static_cast<uint64_t>(p.to) - static_cast<uint64_t>(p.from);
  if (span / static_cast<uint64_t>(p.step) + 1 > kMaxSweepValues) {
    return Status::error(quoted + "more than " + std::to_string(kMaxSweepValues) + " values; use a larger STEP");
  }
  return p;
}

Result<json> substitute(const json& doc, const std::string& file, const std::string& pointer, int64_t value) {
  const std::string where = file + ": --param " + pointer + ": ";
  std::vector<std::string> tokens;
  if (!split_pointer(pointer, tokens)) {
    return Status::error(where + "not a JSON pointer (it starts with '/', and '~' is written ~0, '/' ~1)");
  }
  json out = doc;
  json* node = &out;
  std::string walked;
  for (const std::string& t : tokens) {
    const std::string here = walked.empty() ? "the top level" : walked;
    if (node->is_object()) {
      if (!node->contains(t)) return Status::error(where + "there is no field \"" + t + "\" at " + here);
      node = &(*node)[t];
    } else if (node->is_array()) {
      int64_t i = -1;
      if (!parse_i64(t, i) || i < 0 || (t.size() > 1 && t[0] == '0')) {
        return Status::error(where + here + " is an array: \"" + t + "\" is not an index");
      }
      if (static_cast<size_t>(i) >= node->size()) {
        return Status::error(where + "no element " + t + " at " + here + " (it has " +
                             std::to_string(node->size()) + ")");
      }
      node = &(*node)[static_cast<size_t>(i)];
    } else {
      return Status::error(where + here + " is " + type_name(*node) + ", not an object or array");
    }
    walked += "/" + t;
  }
  if (!node->is_number_integer()) {
    return Status::error(where + "it holds " + type_name(*node) + ", not an integer");
  }
  *node = value;
  return out;
}

Result<std::vector<scenario::Scenario>> sweep_scenarios(const json& doc, const std::string& file,
                                                        const ParamRange& param) {
  std::vector<scenario::Scenario> out;
  for (int64_t v : param.values()) {
    Result<json> d = substitute(doc, file, param.pointer, v);
    if (!d.ok()) return d.status();
    Result<scenario::Scenario> s = scenario::parse_scenario_text(d.value().dump(), file);
    if (!s.ok()) {
      return Status::error("--param " + param.pointer + "=" + std::to_string(v) +
                           ": the scenario rejects this value: " + s.status().message());
    }
    out.push_back(std::move(s.value()));
  }
  return out;
}

Result<SweepResult> run_sweep(const std::vector<scenario::Scenario>& scenarios, const ParamRange& param,
                              const SweepOptions& options, const SweepResult* before) {
  const std::vector<int64_t> values = param.values();
  LS_ASSERT(values.size() == scenarios.size());
  LS_ASSERT(check_range(options.seeds).ok());
  const uint64_t n = options.seeds.count;
  SweepResult r;
  if (before != nullptr) {
    LS_ASSERT(before->rows.size() == values.size() && before->seeds.first == options.seeds.first &&
              before->seeds.count == n);
    r = *before;
  } else {
    for (int64_t v : values) {
      SweepRow row;
      row.value = v;
      r.rows.push_back(std::move(row));
    }
  }
  r.scenario = scenarios.front().name;
  r.file = scenarios.front().file;
  r.param = param;
  r.seeds = options.seeds;
  r.properties.clear();
  r.interrupted = false;
  // The runs left, value by value: run i is value i / n, seed i % n. A new sweep runs them all
  // (task k is run k, with no list: up to kMaxSeeds runs); a resumed one, task k is run todo[k].
  std::vector<uint64_t> todo;
  for (size_t v = 0; v < r.rows.size(); ++v) {
    r.rows[v].ran.resize(n, false);
    if (before == nullptr) continue;
    for (uint64_t i = 0; i < n; ++i) {
      if (!r.rows[v].ran[i]) todo.push_back(v * n + i);
    }
  }
  const uint64_t total = n * values.size();
  const uint64_t tasks = before == nullptr ? total : todo.size();
  const auto run_of = [&](uint64_t k) { return before == nullptr ? k : todo[k]; };
  const TaskFn task = [&](uint64_t k) {
    const uint64_t i = run_of(k);
    return run_seed(scenarios[i / n], options.seeds.first + i % n).to_json().dump();
  };
  uint64_t done_count = total - tasks;
  const DoneFn done = [&](uint64_t k, const TaskOutput& out) {
    const uint64_t i = run_of(k);
    SweepRow& row = r.rows[i / n];
    const uint64_t seed = options.seeds.first + i % n;
    LS_ASSERT(!row.ran[i % n]);
    row.ran[i % n] = true;
    ++row.seeds;
    ++done_count;
    if (options.progress) options.progress(done_count, total);
    // Keep the smallest seeds, whatever order they finish in.
    auto keep_first = [seed](std::vector<uint64_t>& seeds) {
      seeds.insert(std::upper_bound(seeds.begin(), seeds.end(), seed), seed);
      if (seeds.size() > kFirstViolating) seeds.pop_back();
    };
    if (out.crashed) {
      ++row.errors;
      keep_first(row.first_errors);
      return;
    }
    Result<SeedResult> s = SeedResult::from_json(json::parse(out.text), "worker output");
    LS_ASSERT(s.ok());
    const SeedResult& sr = s.value();
    if (sr.kind != SeedResult::Kind::kRan) {
      ++row.errors;
      keep_first(row.first_errors);
      return;
    }
    if (sr.violated.empty()) {
      row.unknown += sr.unknown.empty() ? 0 : 1;
      return;
    }
    ++row.violating;
    for (const std::string& p : sr.violated) ++row.by_property[p];
    keep_first(row.first_violating);
  };
  Status st = run_tasks(tasks, options.jobs, task, done, options.stop);
  if (!st.ok()) return st;
  r.interrupted = done_count < total;
  LS_ASSERT(!r.interrupted || (options.stop && options.stop()));
  for (const std::string& p : checker::property_names()) {
    for (const SweepRow& row : r.rows) {
      if (row.by_property.count(p) != 0) {
        r.properties.push_back(p);
        break;
      }
    }
  }
  return r;
}

namespace {

// The seeds of `row` that ran, as [first, last] ranges.
json ran_ranges(const SweepRow& row, const SeedRange& seeds) {
  json out = json::array();
  for (uint64_t i = 0; i < row.ran.size(); ++i) {
    if (!row.ran[i]) continue;
    uint64_t last = i;
    while (last + 1 < row.ran.size() && row.ran[last + 1]) ++last;
    out.push_back({seeds.first + i, seeds.first + last});
    i = last;
  }
  return out;
}

// A list of seeds (first_violating_seeds) at `path`: at most kFirstViolating, ascending, each
// within `seeds`.
std::vector<uint64_t> read_seed_list(const json& j, const std::string& path, const SeedRange& seeds,
                                     scenario::Errors& errors) {
  std::vector<uint64_t> out;
  if (!j.is_array() || j.size() > kFirstViolating) {
    errors.expected(path, "an array of at most " + std::to_string(kFirstViolating) + " seeds", j);
    return out;
  }
  for (size_t k = 0; k < j.size(); ++k) {
    const int64_t seed = scenario::read_integer(j[k], path + "/" + std::to_string(k), errors,
                                                static_cast<int64_t>(seeds.first), static_cast<int64_t>(seeds.end() - 1));
    if (!out.empty() && static_cast<uint64_t>(seed) <= out.back()) {
      errors.message(path, "the seeds are not in ascending order (edited by hand?)");
    }
    out.push_back(static_cast<uint64_t>(seed));
  }
  return out;
}

}  // namespace

Result<SweepResult> SweepResult::from_json(const json& j, const std::string& file) {
  scenario::Errors errors(file);
  SweepResult r;
  scenario::ObjectReader top(j, "", errors);
  if (!top.valid()) return errors.status();
  top.required_integer("lockstep_sweep", 1, 1);
  r.scenario = top.required_string("scenario");
  r.file = top.required_string("file");
  if (const json* p = top.get("param")) {
    scenario::ObjectReader param(*p, "/param", errors);
    r.param.pointer = param.required_string("pointer");
    r.param.from = param.required_integer("from", INT64_MIN, INT64_MAX);
    r.param.to = param.required_integer("to", r.param.from, INT64_MAX);
    r.param.step = param.required_integer("step", 1, INT64_MAX);
    param.finish();
  } else {
    errors.message("/param", "missing (the swept number and its values)");
  }
  if (const json* p = top.get("seeds")) {
    scenario::ObjectReader seeds(*p, "/seeds", errors);
    r.seeds.first = static_cast<uint64_t>(seeds.required_integer("first", 0, INT64_MAX));
    r.seeds.count = static_cast<uint64_t>(seeds.required_integer("count", 1, static_cast<int64_t>(kMaxSeeds)));
    seeds.finish();
  } else {
    errors.message("/seeds", "missing (the seeds run at every value)");
  }
  top.get("properties");  // recomputed from the rows
  r.interrupted = top.boolean("interrupted", false);
  const json* rows = top.get("rows");
  if (!errors.ok()) return errors.status();
  if (const Status st = check_range(r.seeds); !st.ok()) return Status::error(file + ": /seeds: " + st.message());
  const uint64_t span = static_cast<uint64_t>(r.param.to) - static_cast<uint64_t>(r.param.from);
  if (span / static_cast<uint64_t>(r.param.step) + 1 > kMaxSweepValues) {
    return Status::error(file + ": /param: more than " + std::to_string(kMaxSweepValues) + " values");
  }
  const std::vector<int64_t> values = r.param.values();
  if (rows == nullptr || !rows->is_array() || rows->size() != values.size()) {
    errors.expected("/rows", "an array of " + std::to_string(values.size()) + " rows, one per value", rows != nullptr ? *rows : json());
    return errors.status();
  }
  const std::vector<std::string> names = checker::property_names();
  for (size_t v = 0; v < values.size() && errors.ok(); ++v) {
    const std::string path = "/rows/" + std::to_string(v);
    scenario::ObjectReader in((*rows)[v], path, errors);
    if (!in.valid()) break;
    SweepRow row;
    row.value = in.required_integer("value", values[v], values[v]);
    const auto count = [&](const char* key) {
      return static_cast<uint64_t>(in.required_integer(key, 0, static_cast<int64_t>(r.seeds.count)));
    };
    row.seeds = count("seeds");
    row.violating = count("violating");
    row.unknown = count("unknown");
    row.errors = count("errors");
    in.get("violation_rate");  // recomputed
    if (const json* by = in.get("by_property")) {
      scenario::ObjectReader props(*by, path + "/by_property", errors);
      for (const std::string& p : names) {
        if (!props.has(p)) continue;
        scenario::ObjectReader one(*props.get(p), path + "/by_property/" + p, errors);
        const uint64_t k = static_cast<uint64_t>(one.required_integer("violations", 0, static_cast<int64_t>(row.violating)));
        one.get("rate");
        one.finish();
        if (k > 0) row.by_property[p] = k;
      }
      props.finish();
    }
    if (const json* f = in.get("first_violating_seeds")) row.first_violating = read_seed_list(*f, path + "/first_violating_seeds", r.seeds, errors);
    if (const json* f = in.get("first_error_seeds")) row.first_errors = read_seed_list(*f, path + "/first_error_seeds", r.seeds, errors);
    row.ran.assign(r.seeds.count, false);
    uint64_t ran = 0;
    if (const json* ranges = in.get("ran"); ranges != nullptr && ranges->is_array()) {
      for (size_t k = 0; k < ranges->size() && errors.ok(); ++k) {
        const std::string at = path + "/ran/" + std::to_string(k);
        const json& range = (*ranges)[k];
        if (!range.is_array() || range.size() != 2) {
          errors.expected(at, "a [first, last] range of seeds", range);
          break;
        }
        const int64_t lo = static_cast<int64_t>(r.seeds.first), hi = static_cast<int64_t>(r.seeds.end() - 1);
        const int64_t a = scenario::read_integer(range[0], at + "/0", errors, lo, hi);
        const int64_t b = scenario::read_integer(range[1], at + "/1", errors, a, hi);
        if (!errors.ok()) break;
        for (int64_t seed = a; seed <= b; ++seed) {
          const uint64_t i = static_cast<uint64_t>(seed) - r.seeds.first;
          if (row.ran[i]) {
            errors.message(at, "seed " + std::to_string(seed) + " is in two ranges (edited by hand?)");
            break;
          }
          row.ran[i] = true;
          ++ran;
        }
      }
    } else if (r.interrupted) {
      errors.message(path + "/ran", "missing: an interrupted sweep lists the seeds that ran at each value");
    }
    in.finish();
    if (!errors.ok()) break;
    // What the counts say must be what ran (a row written by hand could say anything).
    const bool adds_up = (ran == row.seeds || !r.interrupted) && row.violating + row.errors <= row.seeds && row.unknown + row.violating + row.errors <= row.seeds &&
                         (row.first_violating.size() == std::min<uint64_t>(row.violating, kFirstViolating)) &&
                         (row.first_errors.size() == std::min<uint64_t>(row.errors, kFirstViolating));
    if (!adds_up) errors.message(path, "its counts do not add up (" + std::to_string(ran) + " seeds ran, " +
                                     std::to_string(row.seeds) + " counted): edited by hand?");
    r.rows.push_back(std::move(row));
  }
  if (!errors.ok()) return errors.status();
  top.finish();
  if (!errors.ok()) return errors.status();
  return r;
}

json SweepResult::to_json() const {
  json rows_json = json::array();
  for (const SweepRow& row : rows) {
    json by = json::object();
    for (const std::string& p : properties) {
      const uint64_t k = row.by_property.count(p) ? row.by_property.at(p) : 0;
      by[p] = {{"violations", k}, {"rate", rate_json(k, row.judged())}};
    }
    rows_json.push_back({{"value", row.value},
                         {"seeds", row.seeds},
                         {"violating", row.violating},
                         {"violation_rate", rate_json(row.violating, row.judged())},
                         {"by_property", by},
                         {"unknown", row.unknown},
                         {"errors", row.errors},
                         {"first_violating_seeds", row.first_violating},
                         {"first_error_seeds", row.first_errors}});
    if (interrupted) rows_json.back()["ran"] = ran_ranges(row, seeds);
  }
  json out = {{"lockstep_sweep", 1},
              {"scenario", scenario},
              {"file", file},
              {"param", {{"pointer", param.pointer}, {"from", param.from}, {"to", param.to}, {"step", param.step}}},
              {"seeds", {{"first", seeds.first}, {"count", seeds.count}}},
              {"properties", properties},
              {"rows", rows_json}};
  if (interrupted) out["interrupted"] = true;
  return out;
}

uint64_t SweepResult::errors() const {
  uint64_t n = 0;
  for (const SweepRow& row : rows) n += row.errors;
  return n;
}

uint64_t SweepResult::runs() const {
  uint64_t n = 0;
  for (const SweepRow& row : rows) n += row.seeds;
  return n;
}

std::string SweepResult::to_csv() const {
  std::string out = "value,seeds,violating,violation_rate";
  for (const std::string& p : properties) out += "," + p + "," + p + "_rate";
  out += ",unknown,errors\n";
  for (const SweepRow& row : rows) {
    out += std::to_string(row.value) + "," + std::to_string(row.seeds) + "," + std::to_string(row.violating) +
           "," + rate_csv(row.violating, row.judged());
    for (const std::string& p : properties) {
      const uint64_t k = row.by_property.count(p) ? row.by_property.at(p) : 0;
      out += "," + std::to_string(k) + "," + rate_csv(k, row.judged());
    }
    out += "," + std::to_string(row.unknown) + "," + std::to_string(row.errors) + "\n";
  }
  return out;
}

std::string SweepResult::to_svg() const {
  PlotSpec spec;
  spec.title = "Violation rate of \"" + scenario + "\" (" + std::to_string(seeds.count) + " seeds per value" +
               (interrupted ? "; interrupted: " + std::to_string(runs()) + " of " + std::to_string(seeds.count * rows.size()) + " runs" : "") + ")";
  spec.x_label = param.pointer;
  spec.y_label = "seeds with a violation";
  PlotSeries any{"any property", {}};
  for (const SweepRow& row : rows) {
    if (row.judged() > 0) any.points.emplace_back(static_cast<double>(row.value), rate(row.violating, row.judged()));
  }
  spec.series.push_back(any);
  for (const std::string& p : properties) {
    PlotSeries s{p, {}};
    for (const SweepRow& row : rows) {
      if (row.judged() == 0) continue;
      const uint64_t k = row.by_property.count(p) ? row.by_property.at(p) : 0;
      s.points.emplace_back(static_cast<double>(row.value), rate(k, row.judged()));
    }
    spec.series.push_back(s);
  }
  return svg_line_plot(spec);
}

std::string SweepResult::to_text() const {
  std::string out;
  if (interrupted) {
    out += "interrupted: " + std::to_string(runs()) + " of " + std::to_string(seeds.count * rows.size()) +
           " runs finished; each rate covers the seeds that ran at its value\n";
  }
  out += "       value   violating     rate";
  for (const std::string& p : properties) out += "  " + p;
  out += "\n";
  for (const SweepRow& row : rows) {
    char buf[128];
    if (row.seeds == 0) {
      std::snprintf(buf, sizeof buf, "%12lld     not run\n", static_cast<long long>(row.value));
      out += buf;
      continue;
    }
    if (row.judged() == 0) {
      std::snprintf(buf, sizeof buf, "%12lld     no verdict (%llu errors)\n", static_cast<long long>(row.value),
                    static_cast<unsigned long long>(row.errors));
      out += buf;
      continue;
    }
    std::snprintf(buf, sizeof buf, "%12lld %5llu/%-5llu %7.1f%%", static_cast<long long>(row.value),
                  static_cast<unsigned long long>(row.violating), static_cast<unsigned long long>(row.judged()),
                  100.0 * rate(row.violating, row.judged()));
    out += buf;
    for (const std::string& p : properties) {
      const uint64_t k = row.by_property.count(p) ? row.by_property.at(p) : 0;
      std::snprintf(buf, sizeof buf, "  %*.1f%%", static_cast<int>(p.size()) - 1, 100.0 * rate(k, row.judged()));
      out += buf;
    }
    if (row.errors > 0) {
      std::snprintf(buf, sizeof buf, "  (%llu errors)", static_cast<unsigned long long>(row.errors));
      out += buf;
    }
    out += "\n";
  }
  if (errors() > 0) {
    out += std::to_string(errors()) + " of " + std::to_string(runs()) +
           " runs ended in an error and gave no verdict (a limit, running out of memory, a crash); each rate is over "
           "the runs that gave one\n";
  }
  return out;
}

}  // namespace lockstep::explore
