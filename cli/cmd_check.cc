// `lockstep check HISTORY`: runs the checkers on a history file (docs/checker.md) and prints one
// line per property, then the explanation of each violation. Exit codes: 0 all ok or not
// applicable, 1 a violation, 2 bad usage or a malformed history, 3 unknown and no violation.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checker/check.h"
#include "checker/report/files.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "harness/explore/worker_pool.h"
#include "sim/core/interrupt.h"
#include "cli/terminal.h"

namespace lockstep::cli {
namespace {

struct CheckArgs {
  std::string history;
  std::string json_out;
  int64_t budget = checker::CheckOptions{}.search_budget;
  std::vector<std::string> properties;
  bool no_exec_order = false;
  int64_t unknown_window_ms = -1;
  std::string model;  // empty: the header's lock_kind
  int jobs = 0;       // 0: one per CPU
};

// The sequential models `--model` accepts, as the header's lock_kind spells them.
const std::vector<std::pair<std::string, checker::LockKind>>& model_names() {
  static const std::vector<std::pair<std::string, checker::LockKind>> names = {
      {"reentrant", checker::LockKind::kReentrant},
      {"rwlock", checker::LockKind::kRwlock},
      {"simple", checker::LockKind::kSimple},
      {"redlock", checker::LockKind::kRedlock}};
  return names;
}

int run_check(const CheckArgs& args) {
  interrupt::exit_on_signal("lockstep check");  // Ctrl-C leaves no half-written output (.tmp)
  const std::vector<std::string>& names = checker::property_names();
  for (const std::string& p : args.properties) {
    if (std::find(names.begin(), names.end(), p) == names.end()) {
      std::fprintf(stderr, "lockstep check: unknown property '%s' (expected one of:", printable(p).c_str());
      for (const std::string& n : names) std::fprintf(stderr, " %s", n.c_str());
      std::fprintf(stderr, ")\n");
      return kExitBadInput;
    }
  }
  // --json is checked before the history is read (a large one takes minutes), and naming the
  // history itself would replace it with the result.
  if (!args.json_out.empty()) {
    if (Status st = check_output_file(args.json_out, "--json"); !st.ok()) {
      print_error("check", st.message());
      return kExitBadInput;
    }
  }
  if (!args.json_out.empty() && args.history != "-") {
    if (Status st = report::refuse_overwriting_input("check", "--json", args.json_out, args.history, "the history", "the JSON result");
        !st.ok()) {
      print_error("check", st.message());
      return kExitBadInput;
    }
  }
  const int threads = args.jobs > 0 ? args.jobs : explore::available_cpus();
  // Progress lines on a terminal only (stderr): megabytes of the file read (for a file of 16 MiB
  // or more), then properties done.
  std::error_code ec;
  const uint64_t file_bytes =
      args.history == "-" || !std::filesystem::is_regular_file(args.history, ec) ? 0 : std::filesystem::file_size(args.history, ec);
  Progress reading("MB read");
  checker::ReadOptions read_options;
  read_options.threads = threads;
  if (file_bytes >= (uint64_t{16} << 20) && !ec) {
    read_options.on_read = [&reading, file_bytes](uint64_t bytes) {
      reading.update(std::min(bytes, file_bytes) >> 20, file_bytes >> 20, "reading the history");
    };
  }
  Result<checker::History> history = checker::parse_history_file(args.history, read_options);
  reading.finish();
  if (!history.ok()) {
    print_error("check", history.status().message());
    return kExitBadInput;
  }
  if (history.value().cut_line != 0) {
    // Said, not silent: the verdicts below are of a history cut short.
    print_error("check", (args.history == "-" ? std::string("<stdin>") : args.history) + ":" +
                             std::to_string(history.value().cut_line) +
                             ": the file ends inside this line, which does not parse: it is left out, and the history "
                             "is read as cut short (the properties that need what is missing answer unknown)");
  }
  if (!args.model.empty()) {
    // REQUIRES: the CLI check accepted only a name of model_names().
    for (const auto& [name, kind] : model_names()) {
      if (name == args.model) history.value().header.lock_kind = kind;
    }
  }
  checker::CheckOptions options;
  options.search_budget = args.budget;
  options.properties = args.properties;
  options.use_exec_order = !args.no_exec_order;
  options.unknown_window_ms = args.unknown_window_ms;
  options.threads = threads;
  Progress checking("properties done");
  options.on_property_done = [&checking](size_t done, size_t total) { checking.update(done, total, "checking the history"); };
  const checker::CheckResult result = checker::check_history(history.value(), options);
  checking.finish();
  // Lock and client names in the explanations come from the history: escaped field by field.
  std::fputs(printable_lines(printable_copy(result).to_text()).c_str(), stdout);
  if (Status st = args.json_out.empty() ? Status() : report::write_file_atomically(args.json_out, result.to_json().dump(2) + "\n");
      !st.ok()) {
    std::fprintf(stderr, "lockstep check: %s\n", printable(st.message()).c_str());
    return kExitBadInput;
  }
  return result.exit_code();
}

}  // namespace

void register_check(CLI::App& app, Action& action) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand(
      "check", "Check a history (JSONL, docs/history-format.md): mutual exclusion, linearizability, "
               "fairness, quorum, liveness, fencing, script invariants");
  sub->add_option("HISTORY", args->history, "The history file (- for standard input)")->required();
  sub->add_option("--json", args->json_out, "Also write the result as JSON to this file")->check(non_empty_path("a file name"));
  sub->add_option("--budget", args->budget, "Linearizability search budget: states per lock")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  sub->add_option("--property", args->properties, "Check only these properties (repeatable)");
  sub->add_option("--unknown-window-ms", args->unknown_window_ms,
                  "How long after its invoke an unknown-outcome operation may still take effect "
                  "(-1: unbounded, the default)")
      ->check(CLI::Range(int64_t{-1}, int64_t{1} << 40));
  std::vector<std::string> models;
  for (const auto& [name, kind] : model_names()) models.push_back(name);
  sub->add_option("--model", args->model,
                  "The sequential model for linearizability, overriding the header's lock_kind")
      ->check(CLI::IsMember(models));
  sub->add_option("-j,--jobs", args->jobs,
                  "Threads: with 2 or more, one reads the file while another builds the records, then "
                  "properties are checked at once (default: one per CPU; 1 uses the least memory)")
      ->check(CLI::Range(1, 256));
  sub->add_flag("--no-exec-order", args->no_exec_order,
                "Ignore the logged execution order: no witness, unknown outcomes not pinned to their runs; "
                "always search (the client's view alone, as other checkers see a history)");
  sub->callback([&action, args] { action = [args] { return run_check(*args); }; });
}

}  // namespace lockstep::cli
