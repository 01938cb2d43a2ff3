#include "harness/scenario/run.h"

#include <cstdio>
#include <filesystem>
#include <optional>

#include "algorithms/mutants/mutants.h"
#include "checker/check.h"
#include "checker/history_parse.h"
#include "checker/report/files.h"
#include "checker/report/report.h"
#include "harness/scenario/coverage_report.h"
#include "harness/scenario/direct_history.h"
#include "harness/scenario/faults.h"
#include "sim/core/assert.h"
#include "sim/core/interrupt.h"
#include "sim/core/printable.h"
#include "sim/history/recorder.h"
#include "sim/history/writer.h"

namespace lockstep::scenario {

// What a run writes, the checker must read back.
static_assert(history::Writer::kMaxLineBytes == checker::kMaxHistoryLineBytes);

namespace {

std::string verdict_text(checker::Verdict v) { return checker::verdict_name(v); }

// Compares the checkers' verdicts with the scenario's expect block.
void judge(const Scenario& s, RunReport& r) {
  const checker::Verdict overall = r.check.overall();
  r.verdict = verdict_text(overall);
  const ExpectSpec& e = s.expect;
  if (e.verdict == "violation") {
    const checker::Verdict v = r.check.has(e.property) ? r.check.property(e.property).verdict
                                                       : checker::Verdict::kNotApplicable;
    if (v == checker::Verdict::kViolation) {
      r.expected = true;
      r.exit_code = 0;
      r.outcome = "expected a violation of " + e.property + ": found it";
    } else if (v == checker::Verdict::kUnknown) {
      r.expected = false;
      r.exit_code = 3;
      r.outcome = "expected a violation of " + e.property + ": the checker could not decide";
    } else {
      r.expected = false;
      r.exit_code = 1;
      r.outcome = "expected a violation of " + e.property + ": it did not happen (" + verdict_text(v) + ")";
    }
    return;
  }
  if (e.verdict == "unknown") {
    r.expected = overall == checker::Verdict::kUnknown;
    r.exit_code = r.expected ? 0 : 1;
    r.outcome = std::string("expected unknown: the checkers answered ") + r.verdict;
    return;
  }
  r.expected = overall != checker::Verdict::kViolation && overall != checker::Verdict::kUnknown;
  r.exit_code = overall == checker::Verdict::kViolation ? 1 : overall == checker::Verdict::kUnknown ? 3 : 0;
  r.outcome = r.expected ? "expected ok: no violation"
                         : std::string("expected ok: the checkers answered ") + r.verdict;
}

nlohmann::json make_result(const Scenario& s, const std::vector<FaultSpec>& run_faults, const RunReport& r) {
  nlohmann::json j;
  j["lockstep_result"] = 1;
  j["scenario"] = s.name;
  j["file"] = s.file;
  j["seed"] = r.seed;
  j["algorithm"] = s.algorithm;
  if (!s.mutant.empty()) {
    // Never mistaken for the real algorithm: which script was replaced, and by what.
    const algorithms::mutants::Mutant* m = algorithms::mutants::find_mutant(s.mutant);
    LS_ASSERT(m != nullptr);
    j["mutant"] = {{"name", m->name}, {"replaces", m->replaces}, {"broken", m->broken},
                   {"caught_by", m->property}};
  }
  j["expect"] = {{"verdict", s.expect.verdict}};
  if (!s.expect.property.empty()) j["expect"]["property"] = s.expect.property;
  j["verdict"] = r.verdict;
  j["expected"] = r.expected;
  j["outcome"] = r.outcome;
  j["exit_code"] = r.exit_code;
  nlohmann::json props = nlohmann::json::array();
  for (const checker::PropertyResult& p : r.check.properties) props.push_back(p.to_json());
  j["properties"] = props;
  if (!r.causes.is_null()) j["causes"] = r.causes;
  nlohmann::json faults = nlohmann::json::array();
  for (const FaultSpec& f : run_faults) {
    faults.push_back({{"fault", f.id},
                      {"kind", std::string(fault_kind_name(f.kind))},
                      {"target", fault_target(f)},
                      {"at_ms", f.at_ms},
                      {"params", nlohmann::json::parse(fault_params_json(f))}});
  }
  j["faults"] = faults;
  j["stats"] = {{"virtual_ms", r.stats.virtual_ms},       {"events", r.stats.events},
                {"operations", r.stats.ops},              {"messages_sent", r.stats.messages_sent},
                {"messages_lost", r.stats.messages_lost}, {"faults", r.stats.faults}};
  j["coverage"] = coverage_json(r.coverage, s);
  j["replay"] = r.replay;
  j["history"] = r.history_file;
  return j;
}

}  // namespace

Result<RunReport> run_scenario(const Scenario& s, const RunOptions& options) {
  if (!options.mutant.empty() && options.mutant != s.mutant) {
    Scenario mutated = s;
    mutated.mutant = options.mutant;
    return run_scenario(mutated, options);
  }
  const algorithms::mutants::Mutant* mutant = nullptr;
  if (!s.mutant.empty()) {
    Result<const algorithms::mutants::Mutant*> m = algorithms::mutants::mutant_for(s.mutant, s.algorithm);
    if (!m.ok()) return Status::error(s.file + ": --mutant: " + m.status().message());
    mutant = m.value();
  }
  RunReport report;
  report.seed = options.seed.value_or(s.seed);
  report.replay = "lockstep run " + shell_quote(s.file) + " --seed " + std::to_string(report.seed);
  if (mutant != nullptr) {
    report.replay += " --mutant " + mutant->name;
    report.mutant = mutant->name;
  }
  kernel::NodeModelFactory factory = options.factory ? options.factory : kernel::redis_node_model_factory();
  if (!factory) return Status::error("lockstep run: this build has no Redis node model (sim/redis/node.cc)");

  std::unique_ptr<history::Writer> writer;
  std::unique_ptr<DirectHistory> direct;
  if (!options.out_dir.empty() && options.compress_history) report.history_file = kCompressedHistoryFile;
  const std::string history_path = options.out_dir.empty() ? "" : options.out_dir + "/" + report.history_file;
  if (options.out_dir.empty() && options.source == nullptr && !options.history_text && options.check) {
    direct = std::make_unique<DirectHistory>("history.jsonl");
  } else if (!options.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    if (ec) return Status::error(options.out_dir + ": cannot create the output directory: " + ec.message());
    // A directory never mixes two runs: the previous run's outputs go before this one writes.
    for (const char* name : {kHistoryFile, kCompressedHistoryFile, "result.json", "report.html"}) {
      std::filesystem::remove(std::filesystem::path(options.out_dir) / name, ec);
      if (ec) return Status::error(options.out_dir + "/" + name + ": cannot replace the previous run's output: " + ec.message());
    }
    auto w = history::Writer::to_file(history_path, s.max_history_bytes,
                                      options.compress_history ? history::Writer::Compression::kZstd
                                                               : history::Writer::Compression::kNone);
    if (!w.ok()) return w.status();
    writer = std::move(w.value());
  } else {
    writer = std::make_unique<history::Writer>(history::Writer::Mode::kMemory, s.max_history_bytes);
  }
  std::optional<history::Recorder> recorder;
  if (direct != nullptr) {
    recorder.emplace(direct.get());
  } else {
    recorder.emplace(writer.get());
  }
  history::Recorder& rec = *recorder;
  std::unique_ptr<World> world;
  Status st;
  if (options.source != nullptr) {
    report.replay += " " + options.source->replay_flags();
    st = options.source->run(s, report.seed, rec);
  } else {
    world = std::make_unique<World>(s, report.seed, rec, factory, options.coverage);
    world->set_beliefs(options.beliefs);
    World::ProgressFn progress;
    if (options.progress) {
      progress = [&options](TimeUs now_us, uint64_t events) { options.progress("simulating", us_to_ms_floor(now_us), events); };
    }
    st = world->run(progress);
  }
  if (!st.ok()) {
    if (writer != nullptr) writer->abandon();
    return st;
  }
  if (direct != nullptr && direct->bytes_bound() > s.max_history_bytes) {
    // The text might have passed the limit: the same run again, with text, finds out.
    RunOptions with_text = options;
    with_text.history_text = true;
    if (with_text.beliefs != nullptr) with_text.beliefs->clear();
    return run_scenario(s, with_text);
  }
  report.stats = world != nullptr ? world->stats() : options.source->stats();
  report.coverage = world != nullptr ? world->coverage() : options.source->coverage();
  const std::vector<FaultSpec>& run_faults = world != nullptr ? world->faults() : options.source->faults();
  if (writer != nullptr && options.out_dir.empty()) report.history = writer->text();
  // Until result.json and report.html are written too, the history alone is a partial output:
  // an error, Ctrl-C or running out of memory from here on removes it (docs/cli.md). Listed
  // before the rename that creates it, so no signal finds it unlisted.
  interrupt::PartialOutputs partial;
  if (!options.out_dir.empty()) partial.add(history_path);
  if (writer != nullptr) {
    st = writer->finish();
    if (!st.ok()) return Status::error(s.file + ": " + st.message());
  }

  if (options.check) {
    if (options.progress) options.progress("checking", report.stats.virtual_ms, report.stats.events);
    Result<checker::History> h = direct != nullptr           ? direct->finish()
                                 : options.out_dir.empty() ? checker::parse_history_text(report.history, "history.jsonl")
                                                           : checker::parse_history_file(history_path);
    if (!h.ok()) {
      // The reader's allocation failures are the machine's limit, not a malformed history.
      if (h.status().message().find("out of memory") != std::string::npos) {
        return Status::error("out of memory while checking the history (" + std::to_string(report.stats.events) +
                             " events); nothing was written: shorten the run or give it more memory");
      }
      return Status::error("the recorded history does not parse (a bug): " + h.status().message());
    }
    checker::CheckOptions copts;
    copts.properties = s.checks.properties;
    copts.threads = options.check_threads;
    copts.lock = options.check_lock;
    copts.holders = options.check_holders;
    report.check = checker::check_history(h.value(), copts);
    report.check.source = report.history_file;
  }
  if (options.check) {
    judge(s, report);
    if (options.annotate) options.annotate(s, report);
  } else {
    report.verdict = "unchecked";
    report.outcome = "not checked (--no-check)";
  }
  if (options.result_json || !options.out_dir.empty()) report.result = make_result(s, run_faults, report);
  if (!options.out_dir.empty()) {
    st = lockstep::report::write_file_atomically(options.out_dir + "/result.json", report.result.dump(2) + "\n");
    if (!st.ok()) return st;
    partial.add(options.out_dir + "/result.json");
    // The self-contained HTML report (checker/report), from the two files just written.
    if (options.progress) options.progress("report", report.stats.virtual_ms, report.stats.events);
    st = lockstep::report::write_run_report(report.result, history_path, options.out_dir + "/report.html");
    if (!st.ok()) return st;
    partial.keep();
  }
  return report;
}

std::string format_report(const RunReport& r, const std::string& out_dir) {
  std::string out;
  const algorithms::mutants::Mutant* m =
      r.mutant.empty() ? nullptr : algorithms::mutants::find_mutant(r.mutant);
  if (m != nullptr) {
    out += "MUTANT RUN (not the real algorithm): " + m->name + " replaces " + m->replaces + ": " +
           m->broken + "\n";
  }
  out += r.check.to_text();
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (r.causes.is_object()) {
    for (const auto& [property, cause] : r.causes.items()) {
      out += "\ncause of the " + property + " violation: " + cause.value("text", std::string()) + "\n";
    }
    out += "\n";
  }
  // The totals; the report lists the rest.
  if (r.result.is_object() && r.result.contains("coverage")) out += coverage_totals(r.result["coverage"]);
  out += "outcome" + (m != nullptr ? " [mutant " + m->name + "]" : std::string()) + ": " +
         r.outcome + (r.expected ? " (as expected)" : " (NOT as expected)") + "\n";
  if (!out_dir.empty()) {
    out += "wrote: " + out_dir + "/" + r.history_file + ", " + out_dir + "/result.json, " + out_dir + "/report.html\n";
  }
  out += "replay: " + r.replay + "\n";
  return out;
}

}  // namespace lockstep::scenario
