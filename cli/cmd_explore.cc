// `lockstep explore SCENARIO --seeds N [--first-seed S] [--jobs J] [--shard I/N] [--junit FILE]
// [--out DIR] [--no-shrink] [--shrink-runs N]`, and `lockstep explore --merge A.json B.json ...`
// (docs/cli.md).
//
// Runs many seeds of a scenario in worker processes, prints progress on a terminal and then a
// summary (violations by property, the first failing seeds with replay commands), shrinks the
// smallest of the first failures to DIR/shrunk.json, and writes DIR/explore.json (and JUnit XML if asked).
// Exit codes: 0 every seed as expected, 1 otherwise, 2 bad usage or input, 3 only unknowns.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checker/check.h"
#include "checker/report/files.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "harness/explore/derived_profile.h"
#include "harness/explore/explore.h"
#include "harness/explore/junit.h"
#include "harness/explore/shrink.h"
#include "harness/explore/worker_pool.h"
#include "harness/live/live_run.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "sim/core/assert.h"
#include "sim/core/interrupt.h"
#include "sim/core/json_keys.h"

namespace lockstep::cli {
namespace {

using explore::ExploreSummary;

// How often a running exploration writes its checkpoint (ExploreOptions::checkpoint), by default.
constexpr int64_t kCheckpointEverySeconds = 5;

struct ExploreArgs {
  std::string scenario;
  uint64_t seeds = 0;
  uint64_t first_seed = 1;
  int jobs = 0;  // 0: one per available CPU
  std::string shard = "1/1";
  std::string junit;
  std::string out = "lockstep-explore";
  bool no_shrink = false;
  int shrink_runs = 300;
  std::string shrink_property;  // shrink a failure of this property (default: the first failure's)
  size_t list = 10;
  std::vector<std::string> merge;
  std::string resume;  // DIR of an interrupted exploration
  std::string algorithm;  // explore a profile derived from this algorithm (no scenario file)
  std::string options;    // its algorithm options, as JSON
  bool print_profile = false;
  int masters = 0;        // RedLocks: independent masters of the derived profile (0: 3)
  bool live = false;      // against real redis-servers (docs/live.md)
  int64_t time_budget_s = 0;  // stop starting seeds after this much wall time (0: no limit)
  int64_t checkpoint_every_s = kCheckpointEverySeconds;  // write DIR/explore.json this often while running
  // Which of the options an interrupted summary records (kResumeOptions) were given on the
  // command line, by flag.
  std::vector<std::string> given;
};

// The options that shape an exploration's end besides its scenario and seeds, by flag and by
// their key in an interrupted summary's "options": --resume goes on with them, so that the
// resumed exploration ends as the uninterrupted one would (it shrinks, lists and writes JUnit the
// same way, and a --live exploration stays live). Those that shape explore.json must agree when
// given again; --list and --junit, which only say what is printed and written beside it, may be
// given anew.
struct ResumeOption {
  const char* flag;
  const char* key;
  bool shapes_summary;
};
constexpr std::array<ResumeOption, 6> kResumeOptions = {{{"--no-shrink", "no_shrink", true},
                                                         {"--shrink-runs", "shrink_runs", true},
                                                         {"--shrink-property", "shrink_property", true},
                                                         {"--live", "live", true},
                                                         {"--list", "list", false},
                                                         {"--junit", "junit", false}}};

// The kResumeOptions of `args`; a --junit path made absolute, as a resumption may run elsewhere.
nlohmann::json resume_options(const ExploreArgs& args) {
  std::error_code ec;
  const std::string junit = args.junit.empty() ? "" : std::filesystem::absolute(args.junit, ec).string();
  return {{"no_shrink", args.no_shrink}, {"shrink_runs", args.shrink_runs}, {"shrink_property", args.shrink_property},
          {"list", args.list},           {"live", args.live},               {"junit", ec ? args.junit : junit}};
}

// The text of DIR/explore.json for `sum`; an interrupted one records this run's resume_options.
std::string summary_json(ExploreSummary sum, const ExploreArgs& args) {
  if (sum.interrupted) sum.options = resume_options(args);
  return sum.to_json().dump(2) + "\n";
}


int fail(const std::string& message) {
  print_error("explore", message);
  return kExitBadInput;
}

// --algorithm NAME [--options JSON]: the derived profile (harness/explore/derived_profile.h), printed
// with --print-profile, else written to DIR/profile.json and explored like a scenario file (so
// replay lines name a file that exists). Returns -1 to go on exploring, else an exit code.
int derive_scenario(ExploreArgs& args) {
  if (!args.scenario.empty()) return fail("give either a scenario file or --algorithm, not both");
  nlohmann::json options = nlohmann::json::object();
  if (!args.options.empty()) {
    options = nlohmann::json::parse(args.options, nullptr, false);
    if (options.is_discarded() || !options.is_object()) {
      return fail("--options: expected a JSON object of algorithm options, found " + args.options);
    }
  }
  Result<nlohmann::json> profile = explore::derive_profile(args.algorithm, options, args.masters);
  if (!profile.ok()) return fail(profile.status().message());
  if (args.print_profile) {
    std::printf("%s\n", profile.value().dump(2).c_str());
    return 0;
  }
  if (Status s = check_output_dir(args.out, "--out", "explore"); !s.ok()) return fail(s.message());
  if (Status s = make_dir(args.out); !s.ok()) return fail(s.message());
  args.scenario = args.out + "/profile.json";
  if (Status s = report::write_file_atomically(args.scenario, profile.value().dump(2) + "\n"); !s.ok()) return fail(s.message());
  return -1;
}

// Shrinks an unexpected violation (pick_seed_to_shrink: the smallest of the first failures of the
// first failure's property) into DIR/shrunk.json and runs it into DIR/shrunk/.
// Returns what goes into the summary's "shrunk" field (null when there is nothing to shrink).
Result<nlohmann::json> shrink_first(const LoadedScenario& l, const ExploreSummary& sum, const ExploreArgs& args,
                                    std::vector<std::string>& wrote) {
  uint64_t seed = 0;
  std::string property;
  if (!sum.shrink_target(seed, property)) return nlohmann::json(nullptr);
  if (!args.shrink_property.empty()) {
    property = args.shrink_property;
    bool any = false;
    for (const explore::SeedResult& f : sum.failures) {
      any = any || std::find(f.violated.begin(), f.violated.end(), property) != f.violated.end();
    }
    if (!any) {
      std::fprintf(stderr, "lockstep explore: --shrink-property: no failing seed violated %s; nothing shrunk\n",
                   property.c_str());
      return nlohmann::json(nullptr);
    }
  }
  seed = explore::pick_seed_to_shrink(sum.failures, l.parsed, property, seed);
  explore::ShrinkOptions o;
  o.max_runs = args.shrink_runs;
  o.file = args.out + "/shrunk.json";
  std::fprintf(stderr, "lockstep explore: shrinking seed %llu (%s), at most %d runs...\n",
               static_cast<unsigned long long>(seed), printable(property).c_str(), o.max_runs);
  Result<explore::ShrinkResult> r = explore::shrink_failure(l.doc, l.parsed, seed, property, o);
  if (!r.ok()) return r.status();
  const explore::ShrinkResult& sh = r.value();
  nlohmann::json j = sh.to_json();
  j["max_runs"] = o.max_runs;
  if (!sh.reproduced) return j;
  Status st = report::write_file_atomically(o.file, sh.scenario.dump(2) + "\n");
  if (!st.ok()) return st;
  wrote.push_back(o.file);
  j["file"] = o.file;
  j["replay"] = "lockstep run " + shell_quote(o.file);
  // Run it once more with outputs, so the minimal failure has its own report.
  Result<scenario::Scenario> s = scenario::parse_scenario_text(sh.scenario.dump(), o.file);
  if (s.ok()) {
    scenario::RunOptions ro;
    ro.out_dir = args.out + "/shrunk";
    if (scenario::run_scenario(s.value(), ro).ok()) {
      wrote.push_back(ro.out_dir + "/report.html");
      j["report"] = ro.out_dir + "/report.html";
    }
  }
  return j;
}

std::string shrunk_text(const nlohmann::json& j) {
  if (j.is_null()) return "";
  std::string out = "shrunk seed " + std::to_string(j["seed"].get<uint64_t>()) + " (" + printable(j["property"].get<std::string>()) + "): ";
  if (!j["reproduced"].get<bool>()) {
    return out + "the materialised fault schedule did not reproduce the failure, so nothing was shrunk (a lockstep bug: please report it)\n";
  }
  auto size = [](const nlohmann::json& z) {
    explore::ScenarioSize s;
    s.faults = z["faults"].get<int64_t>();
    s.clients = z["clients"].get<int64_t>();
    s.threads = z["threads"].get<int64_t>();
    s.operations = z["operations"].get<int64_t>();
    s.duration_ms = z["duration_ms"].get<int64_t>();
    return s.to_text();
  };
  out += size(j["before"]) + " -> " + size(j["after"]) + " in " + std::to_string(j["runs"].get<int>()) + " runs";
  out += j["exhausted"].get<bool>() ? " (stopped at the run limit; --shrink-runs raises it)\n" : "\n";
  out += "  replay: " + printable(j["replay"].get<std::string>()) + "\n";
  return out;
}

Status write_outputs(const ExploreSummary& sum, const ExploreArgs& args, std::vector<std::string>& wrote) {
  const std::string path = args.out + "/explore.json";
  Status st = report::write_file_atomically(path, summary_json(sum, args));
  if (!st.ok()) return st;
  wrote.insert(wrote.begin(), path);
  if (!args.junit.empty()) {
    st = report::write_file_atomically(args.junit, explore::junit_xml("lockstep explore", {explore::junit_suite(sum)}));
    if (!st.ok()) return st;
    wrote.push_back(args.junit);
  }
  return Status::ok_status();
}

int finish(const ExploreSummary& sum, const ExploreArgs& args, std::vector<std::string>& wrote) {
  Status st = make_dir(args.out);
  if (st.ok()) st = write_outputs(sum, args, wrote);
  // Names, outcomes and replay commands may come from a merged explore.json: escaped. Printed
  // even when an output cannot be written (a full disk), so that hours of seeds are not lost.
  std::fputs(printable_lines(printable_copy(sum).to_text(args.list)).c_str(), stdout);
  std::fputs(printable_lines(shrunk_text(sum.shrunk)).c_str(), stdout);
  if (!st.ok()) {
    std::fflush(stdout);
    return fail(st.message() + (wrote.empty() ? " (the summary above was not saved)" : ""));
  }
  std::string w;
  for (const std::string& f : wrote) w += (w.empty() ? "" : ", ") + printable(f);
  std::printf("wrote: %s\n", w.c_str());
  return sum.exit_code();
}

// Reads an explore.json. Errors name the file.
Result<ExploreSummary> read_summary(const std::string& f) {
  Result<std::string> text = report::read_text_file(f, uint64_t{1} << 32);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, false);
  if (j.is_discarded()) return Status::error(f + ": not valid JSON (expected an explore.json)");
  if (const std::optional<std::string> dup = duplicate_key(text.value())) {
    return Status::error(f + ": " + *dup + ": duplicate key (each key may appear once in an object)");
  }
  return ExploreSummary::from_json(j, f);
}

// An interrupted exploration: the summary of the seeds that finished goes to DIR/explore.json
// (marked interrupted; no shrinking, no JUnit), and the way to go on is printed. Exit 128 + the
// signal.
int finish_interrupted(const ExploreSummary& sum, const ExploreArgs& args) {
  const std::string path = args.out + "/explore.json";
  Status st = report::write_file_atomically(path, summary_json(sum, args));
  if (!st.ok()) return fail(st.message());
  std::fputs(printable_lines(printable_copy(sum).to_text(args.list)).c_str(), stdout);
  const uint64_t left = sum.planned.count - (sum.slices.empty() ? 0 : sum.slices.back().end() - sum.planned.first);
  std::printf("interrupted: %llu of %llu seeds ran; %llu left\nwrote: %s\nresume: lockstep explore --resume %s\n",
              static_cast<unsigned long long>(sum.planned.count - left), static_cast<unsigned long long>(sum.planned.count),
              static_cast<unsigned long long>(left), printable(path).c_str(), shell_quote(printable(args.out)).c_str());
  return 128 + interrupt::stop_requested();
}

// The working directory, for an interrupted summary's `dir` ("" if it cannot be read).
std::string working_dir() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::current_path(ec);
  return ec ? std::string() : p.string();
}

// Writes the checkpoint `sofar` (this run's seeds so far, marked interrupted) to DIR/explore.json,
// merged with `before` when this run resumes an earlier one. A checkpoint that cannot be written
// is said once on stderr and does not stop the exploration.
void write_checkpoint(const ExploreSummary& sofar, const std::optional<ExploreSummary>& before, const ExploreArgs& args) {
  static bool warned = false;
  ExploreSummary sum = sofar;
  if (before) {
    Result<ExploreSummary> merged = explore::merge_summaries({*before, sofar}, {args.resume + "/explore.json", "this run"});
    LS_ASSERT(merged.ok());  // the same merge as at the end of a resumed run
    sum = std::move(merged.value());
    sum.interrupted = true;
    sum.planned = before->planned;
  }
  sum.dir = working_dir();
  const std::string path = args.out + "/explore.json";
  Status st = report::write_file_atomically(path, summary_json(sum, args));
  if (!st.ok() && !warned) {
    warned = true;
    std::fprintf(stderr, "lockstep explore: cannot write the checkpoint (the run goes on): %s\n", printable(st.message()).c_str());
  }
}

int merge_command(const ExploreArgs& args) {
  // As for a run of seeds: the directory must not hold another command's outputs.
  if (Status s = check_output_dir(args.out, "--out", "explore"); !s.ok()) return fail(s.message());
  std::vector<ExploreSummary> parts;
  for (const std::string& f : args.merge) {
    Result<ExploreSummary> s = read_summary(f);
    if (!s.ok()) return fail(s.status().message());
    parts.push_back(std::move(s.value()));
  }
  Result<ExploreSummary> m = explore::merge_summaries(parts, args.merge);
  if (!m.ok()) return fail(m.status().message());
  const ExploreSummary& sum = m.value();
  uint64_t covered = 0;
  for (const explore::SeedRange& s : sum.slices) covered += s.count;
  std::printf("lockstep explore --merge: scenario \"%s\" (%s), %zu summaries, %llu of seeds %llu..%llu%s\n",
              printable(sum.scenario).c_str(), printable(sum.file).c_str(), parts.size(), static_cast<unsigned long long>(covered),
              static_cast<unsigned long long>(sum.range.first), static_cast<unsigned long long>(sum.range.end() - 1),
              covered == sum.range.count ? " (complete)" : " (INCOMPLETE: some shards are missing)");
  std::vector<std::string> wrote;
  const int code = finish(sum, args, wrote);
  if (covered == sum.range.count || code == 2) return code;
  // Seeds no summary holds were never checked: without a failure in the rest, the merge cannot
  // say the exploration passed (a CI merge job whose shard's upload was lost must not go green).
  std::string missing;
  uint64_t next = sum.range.first;
  auto gap = [&](uint64_t from, uint64_t to) {  // [from, to)
    if (from >= to) return;
    missing += (missing.empty() ? "" : ", ") + std::to_string(from) + (to - from > 1 ? ".." + std::to_string(to - 1) : "");
  };
  for (const explore::SeedRange& slice : sum.slices) {
    gap(next, slice.first);
    next = slice.end();
  }
  gap(next, sum.range.end());
  std::fprintf(stderr, "lockstep explore --merge: seeds %s were not explored (no summary given holds them)%s\n", missing.c_str(),
               code == 0 ? ": exit 3, the exploration is not decided" : "");
  return code == 0 ? 3 : code;
}

// --resume: the options `before` was started with (resume_options), into `args`. An option also
// given now must have the recorded value. A summary written before options were recorded
// keeps what was given now.
Status apply_resume_options(const ExploreSummary& before, const std::string& path, ExploreArgs& args) {
  if (before.options.is_null()) return Status::ok_status();
  ExploreArgs recorded = args;
  const nlohmann::json& o = before.options;
  auto field = [&](const char* key, bool (nlohmann::json::*is)() const noexcept, const char* expected) -> Status {
    if (o.contains(key) && (o.at(key).*is)()) return Status::ok_status();
    return Status::error(path + ": /options/" + key + ": expected " + expected + " (the options the exploration started with)");
  };
  for (const Status& st : {field("no_shrink", &nlohmann::json::is_boolean, "true or false"),
                           field("shrink_runs", &nlohmann::json::is_number_unsigned, "a number of runs"),
                           field("shrink_property", &nlohmann::json::is_string, "a property name or \"\""),
                           field("list", &nlohmann::json::is_number_unsigned, "a number of seeds"),
                           field("live", &nlohmann::json::is_boolean, "true or false"),
                           field("junit", &nlohmann::json::is_string, "a file name or \"\"")}) {
    if (!st.ok()) return st;
  }
  recorded.no_shrink = o.at("no_shrink").get<bool>();
  recorded.shrink_runs = static_cast<int>(std::min<uint64_t>(o.at("shrink_runs").get<uint64_t>(), 100000));
  recorded.shrink_property = o.at("shrink_property").get<std::string>();
  const std::vector<std::string>& properties = checker::property_names();
  if (!recorded.shrink_property.empty() &&
      std::find(properties.begin(), properties.end(), recorded.shrink_property) == properties.end()) {
    return Status::error(path + ": /options/shrink_property: expected a property name or \"\", found \"" +
                         printable(recorded.shrink_property) + "\"");
  }
  recorded.list = o.at("list").get<size_t>();
  recorded.live = o.at("live").get<bool>();
  recorded.junit = o.at("junit").get<std::string>();
  const nlohmann::json now = resume_options(args);
  const nlohmann::json then = resume_options(recorded);
  auto given = [&args](const char* flag) { return std::find(args.given.begin(), args.given.end(), flag) != args.given.end(); };
  for (const ResumeOption& r : kResumeOptions) {
    if (!r.shapes_summary || !given(r.flag) || now.at(r.key) == then.at(r.key)) continue;
    return Status::error(path + ": the exploration started with " + r.key + " " + then.at(r.key).dump() + ", not " +
                         now.at(r.key).dump() + " as " + r.flag + " says: --resume goes on with the options it started with");
  }
  args.no_shrink = recorded.no_shrink;
  args.shrink_runs = recorded.shrink_runs;
  args.shrink_property = recorded.shrink_property;
  args.live = recorded.live;
  if (!given("--list")) args.list = recorded.list;
  if (!given("--junit")) args.junit = recorded.junit;
  return Status::ok_status();
}

// --resume DIR: the interrupted summary in DIR/explore.json, and `args` filled from it (the
// scenario file, the seed range, DIR as --out).
Result<ExploreSummary> load_interrupted(ExploreArgs& args) {
  if (!args.scenario.empty() || args.seeds != 0) {
    return Status::error("--resume takes the scenario and the seeds from DIR/explore.json: give neither");
  }
  const std::string path = args.resume + "/explore.json";
  std::error_code ec;
  if (std::filesystem::is_directory(args.resume, ec) && !std::filesystem::exists(path, ec)) {
    return Status::error(args.resume + ": no explore.json to resume from (a running exploration writes one every few "
                         "seconds (--checkpoint-every), and when it stops or ends)");
  }
  Result<ExploreSummary> b = read_summary(path);
  if (!b.ok()) return b.status();
  const ExploreSummary& before = b.value();
  if (!before.interrupted) return Status::error(path + ": that exploration ran to the end; there is nothing to resume");
  const bool prefix = before.slices.empty() ||
                      (before.slices.size() == 1 && before.slices[0].first == before.planned.first &&
                       before.slices[0].count <= before.planned.count);
  if (!prefix) return Status::error(path + ": its finished seeds are not a prefix of the planned ones (edited by hand?)");
  // A relative scenario path was relative to the directory the exploration ran in.
  args.scenario = before.file;
  if (!before.dir.empty() && std::filesystem::path(before.file).is_relative()) {
    args.scenario = (std::filesystem::path(before.dir) / before.file).string();
  }
  args.first_seed = before.range.first;
  args.seeds = before.range.count;
  args.out = args.resume;
  if (Status st = apply_resume_options(before, path, args); !st.ok()) return st;
  return b;
}

// A directory never mixes two explorations (issue 14): a new one first removes what an earlier one
// left in --out — its explore.json, shrunk.json and shrunk/ run, and a profile.json derived for
// another algorithm (not the one about to be explored, nor the scenario file itself).
Status remove_previous_outputs(const ExploreArgs& args) {
  namespace fs = std::filesystem;
  std::vector<fs::path> old = {fs::path(args.out) / "explore.json", fs::path(args.out) / "shrunk.json"};
  for (const char* name : {"history.jsonl", "result.json", "report.html"}) old.push_back(fs::path(args.out) / "shrunk" / name);
  const fs::path profile = fs::path(args.out) / "profile.json";
  std::error_code ec;
  if (args.algorithm.empty() && !fs::equivalent(profile, args.scenario, ec)) old.push_back(profile);
  for (const fs::path& p : old) {
    fs::remove(p, ec);
    if (ec) return Status::error(p.string() + ": cannot remove the previous exploration's output: " + ec.message());
  }
  fs::remove(fs::path(args.out) / "shrunk", ec);  // only if empty: anything else there is not ours
  return Status::ok_status();
}

int explore_command(ExploreArgs args) {
  if (!args.merge.empty()) {
    if (!args.scenario.empty()) return fail("give either a scenario or --merge, not both");
    return merge_command(args);
  }
  std::optional<ExploreSummary> before;  // --resume: the seeds that already ran
  if (!args.resume.empty()) {
    Result<ExploreSummary> b = load_interrupted(args);
    if (!b.ok()) return fail(b.status().message());
    before = std::move(b.value());
  }
  if (!args.algorithm.empty()) {
    if (!args.print_profile && args.seeds == 0) return fail("--seeds N is required (N >= 1)");
    const int rc = derive_scenario(args);
    if (rc >= 0) return rc;
  } else if (args.print_profile || !args.options.empty() || args.masters != 0) {
    return fail("--print-profile, --options and --masters go with --algorithm NAME");
  }
  if (args.scenario.empty()) return fail("a scenario file is required (or --algorithm NAME, --merge FILES, or --resume DIR)");
  if (args.seeds == 0) return fail("--seeds N is required (N >= 1)");
  // Outputs are checked before any seed runs, not after all of them (issue 14).
  if (Status s = check_output_dir(args.out, "--out", "explore"); !s.ok()) return fail(s.message());
  if (!before) {  // a resumption goes on in its own explore.json
    if (Status s = refuse_replacing_input(args.out, "explore", args.scenario); !s.ok()) return fail(s.message());
  }
  if (!args.junit.empty()) {
    if (Status s = check_output_file(args.junit, "--junit"); !s.ok()) return fail(s.message());
    // Written once every seed ran: over the scenario it would have destroyed it.
    if (Status s = report::refuse_overwriting_input("exploration", "--junit", args.junit, args.scenario, "the scenario", "the JUnit XML"); !s.ok()) {
      return fail(s.message());
    }
  }
  Result<LoadedScenario> l = load_scenario_file(args.scenario);
  if (!l.ok()) return fail(l.status().message());
  // Replay commands name the file as the exploration first did, wherever it resumes from.
  if (before) l.value().parsed.file = before->file;
  if (before && l.value().parsed.name != before->scenario) {
    return fail(args.scenario + ": its scenario is now named \"" + l.value().parsed.name + "\", not \"" + before->scenario +
                "\" as when " + args.resume + "/explore.json was written: the file changed, so the seeds would not resume the same exploration");
  }
  explore::ExploreOptions o;
  o.range = explore::SeedRange{args.first_seed, args.seeds};
  Status st = explore::check_range(o.range);
  if (!st.ok()) return fail(st.message());
  Result<explore::Shard> shard = explore::parse_shard(args.shard);
  if (!shard.ok()) return fail(shard.status().message());
  o.shard = shard.value();
  o.jobs = args.jobs > 0 ? args.jobs : explore::available_cpus();
  if (before) {
    const uint64_t done = before->slices.empty() ? 0 : before->slices[0].count;
    o.only = explore::SeedRange{before->planned.first + done, before->planned.count - done};
  }
  st = make_dir(args.out);  // before the seeds run, so a bad --out costs nothing
  if (!st.ok()) return fail(st.message());
  if (!before) {
    st = remove_previous_outputs(args);
    if (!st.ok()) return fail(st.message());
  }
  const explore::SeedRange slice = o.only.has_value() ? *o.only : explore::shard_slice(o.range, o.shard);
  std::printf("lockstep explore: scenario \"%s\" (%s), seeds %llu..%llu", printable(l.value().parsed.name).c_str(),
              printable(args.scenario).c_str(), static_cast<unsigned long long>(o.range.first),
              static_cast<unsigned long long>(o.range.end() - 1));
  if (before) {
    std::printf(", resuming: %llu seeds from %llu", static_cast<unsigned long long>(slice.count),
                static_cast<unsigned long long>(slice.first));
  } else if (o.shard.total > 1) {
    std::printf(", shard %s: %llu seeds from %llu", printable(args.shard).c_str(), static_cast<unsigned long long>(slice.count),
                static_cast<unsigned long long>(slice.first));
  }
  std::printf("\n");
  std::fflush(stdout);
  // Ctrl-C or SIGTERM: stop the workers, keep what finished, write it, say how to resume.
  interrupt::stop_on_signal("lockstep explore");
  // Wall time bounds a soak test (--time-budget); it is read here, never inside a run.
  const auto started = std::chrono::steady_clock::now();
  const int64_t budget_s = args.time_budget_s;
  o.stop = [started, budget_s] {
    if (interrupt::stop_requested() != 0) return true;
    return budget_s > 0 && std::chrono::steady_clock::now() - started >= std::chrono::seconds(budget_s);
  };
  if (args.live) {
    if (Status live = live::LiveRun::supported(l.value().parsed, slice.first); !live.ok()) return fail(live.message());
    // Each seed starts its own servers; a seed whose drawn faults cannot be made real is an error result.
    o.run_seed = [](const scenario::Scenario& sc, uint64_t seed) {
      live::LiveRun run;
      return explore::run_seed(sc, seed, &run);
    };
    if (args.jobs == 0) o.jobs = 1;  // live seeds one after another unless -j says otherwise
  }
  // A checkpoint every few seconds: a run killed without warning (SIGKILL, the OOM killer) can
  // still be resumed from its last one. Only when it is written depends on wall time; what it
  // holds does not. A summary of many failures takes a while to write: the gap between two is at
  // least ten times the last one's cost, so checkpoints never take more than a tenth of the run.
  using Clock = std::chrono::steady_clock;
  Clock::time_point next_checkpoint = Clock::now() + std::chrono::seconds(args.checkpoint_every_s);
  o.checkpoint_due = [&next_checkpoint] { return Clock::now() >= next_checkpoint; };
  o.checkpoint = [&](const ExploreSummary& sofar) {
    const Clock::time_point start = Clock::now();
    write_checkpoint(sofar, before, args);
    const Clock::time_point end = Clock::now();
    next_checkpoint = end + std::max<Clock::duration>(std::chrono::seconds(args.checkpoint_every_s), 10 * (end - start));
  };
  Progress progress("seeds");
  o.progress = [&](const explore::ExploreProgress& p) {
    progress.update(p.done, p.total, std::to_string(p.violations) + " with violations, " + std::to_string(p.failures) + " not as expected");
  };
  Result<ExploreSummary> sum = explore::run_explore(l.value().parsed, o);
  progress.finish();
  if (!sum.ok()) return fail(sum.status().message());
  const double wall_s = progress.elapsed_s();
  std::fprintf(stderr, "lockstep explore: %llu seeds in %.2f s (%.0f seeds/s with %d jobs)\n",
               static_cast<unsigned long long>(sum.value().seeds_run), wall_s,
               wall_s > 0 ? static_cast<double>(sum.value().seeds_run) / wall_s : 0.0, o.jobs);
  if (before) {
    const bool stopped = sum.value().interrupted;
    Result<ExploreSummary> merged = explore::merge_summaries({*before, sum.value()}, {args.resume + "/explore.json", "this run"});
    if (!merged.ok()) return fail(merged.status().message());
    sum = std::move(merged.value());
    sum.value().interrupted = stopped;
    sum.value().planned = before->planned;
  }
  sum.value().dir = working_dir();  // written only while interrupted
  if (sum.value().interrupted && interrupt::stop_requested() == 0) {
    // The time budget ran out: a complete summary of the seeds that ran, resumable for the rest.
    std::vector<std::string> wrote;
    const int code = finish(sum.value(), args, wrote);
    std::printf("time budget of %lld s reached: %llu seeds ran; resume: lockstep explore --resume %s\n",
                static_cast<long long>(args.time_budget_s), static_cast<unsigned long long>(sum.value().seeds_run),
                shell_quote(printable(args.out)).c_str());
    return code;
  }
  if (sum.value().interrupted) return finish_interrupted(sum.value(), args);
  std::vector<std::string> wrote;
  if (!args.no_shrink && !args.live && sum.value().slices.size() == 1) {
    // Shrinking may take minutes: killed during it, the run resumes with every seed done (when
    // there is nothing to shrink, finish overwrites this at once).
    ExploreSummary done = sum.value();
    done.interrupted = true;
    done.planned = done.slices[0];
    write_checkpoint(done, std::nullopt, args);
  }
  if (args.live && !args.no_shrink) {
    std::printf("--live: a failure is not shrunk (shrinking replays it many times); run its seed with lockstep run --live\n");
  } else if (!args.no_shrink) {
    Result<nlohmann::json> shrunk = shrink_first(l.value(), sum.value(), args, wrote);
    if (!shrunk.ok()) {
      // The seeds' summary is still written and printed; the exit code says the shrinking failed.
      finish(sum.value(), args, wrote);
      return fail(shrunk.status().message());
    }
    sum.value().shrunk = shrunk.value();
  }
  return finish(sum.value(), args, wrote);
}

}  // namespace

void register_explore(CLI::App& app, Action& action) {
  auto args = std::make_shared<ExploreArgs>();
  CLI::App* sub = app.add_subcommand("explore", "Run many seeds of a scenario in parallel; shrink the smallest of the first failures");
  sub->add_option("scenario", args->scenario, "The scenario file (JSON; docs/scenarios.md)");
  sub->add_option("--seeds", args->seeds, "How many seeds to run")->check(CLI::Range(uint64_t{1}, explore::kMaxSeeds));
  sub->add_option("--first-seed", args->first_seed, "The first seed of the range")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, static_cast<uint64_t>(INT64_MAX)));  // as a scenario's `seed`
  sub->add_option("--jobs,-j", args->jobs, "Worker processes (default: one per CPU)")->check(CLI::Range(1, explore::kMaxJobs));
  sub->add_option("--shard", args->shard, "Run only slice I of N of the seed range (I/N, 1-based)")->capture_default_str();
  sub->add_option("--junit", args->junit, "Also write JUnit XML here (one test case per seed)")->check(non_empty_path("a file name"));
  sub->add_option("--out", args->out, "Directory for explore.json, shrunk.json and shrunk/")->capture_default_str();
  sub->add_flag("--no-shrink", args->no_shrink, "Do not shrink a failure");
  sub->add_option("--shrink-runs", args->shrink_runs, "The most runs shrinking may spend")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  sub->add_option("--shrink-property", args->shrink_property,
                  "Shrink a failure of this property instead of the first failure's (e.g. quorum)")
      ->check(CLI::IsMember(checker::property_names()));
  sub->add_option("--list", args->list, "How many failing seeds to list")->capture_default_str();
  sub->add_option("--merge", args->merge, "Merge these explore.json files (shards) instead of running")->expected(1, -1);
  sub->add_option("--algorithm", args->algorithm,
                  "Explore a profile derived from this algorithm's timings instead of a scenario file "
                  "(written to DIR/profile.json)");
  sub->add_option("--options", args->options, "With --algorithm: its options, as a JSON object");
  sub->add_flag("--print-profile", args->print_profile, "With --algorithm: print the derived scenario and exit");
  sub->add_option("--masters", args->masters, "With --algorithm and a RedLock: its independent masters (3, 5, 7, 9; default 3)");
  sub->add_flag("--live", args->live,
                "Run each seed against real redis-servers in real time (docs/live.md); one after another unless -j");
  sub->add_option("--time-budget", args->time_budget_s,
                  "Start no seed after this many seconds of wall time (a soak test); the summary covers the seeds that ran")
      ->check(CLI::Range(int64_t{1}, int64_t{365} * 24 * 3600));
  sub->add_option("--checkpoint-every", args->checkpoint_every_s,
                  "While running, write DIR/explore.json (marked interrupted) this often, in seconds: a run killed "
                  "without warning resumes from it with --resume")
      ->check(CLI::Range(int64_t{1}, int64_t{24} * 3600))
      ->capture_default_str();
  sub->add_option("--resume", args->resume,
                  "Go on with the interrupted exploration in DIR (its explore.json names the scenario and the seeds)");
  sub->callback([&action, args, sub] {
    for (const ResumeOption& o : kResumeOptions) {
      if (sub->get_option(o.flag)->count() > 0) args->given.push_back(o.flag);
    }
    action = [args] { return explore_command(*args); };
  });
}

}  // namespace lockstep::cli
