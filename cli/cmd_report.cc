// `lockstep report RESULT -o FILE.html [--history FILE]`: (re)renders the HTML report of a run
// from its result.json and the history next to it (docs/cli.md#report). Exit codes: 0 written,
// 2 bad usage or input (a missing or malformed result or history, an unwritable output, -o
// naming the result or the history, a result naming a history outside its directory).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "checker/report/report.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "sim/core/interrupt.h"
#include "cli/terminal.h"

namespace lockstep::cli {
namespace {

struct ReportArgs {
  std::string result;
  std::string out;
  std::string history;
};

int report_command(const ReportArgs& args) {
  interrupt::exit_on_signal("lockstep report");  // Ctrl-C leaves no half-written output (.tmp)
  // -o is checked before the history is read (a large one takes a while to render).
  if (Status st = check_output_file(args.out, "-o"); !st.ok()) {
    print_error("report", st.message());
    return kExitBadInput;
  }
  Status s = report::write_report_from_result(args.result, args.history, args.out);
  if (!s.ok()) {
    print_error("report", s.message());
    return kExitBadInput;
  }
  std::printf("wrote: %s\n", printable(args.out).c_str());
  return kExitOk;
}

}  // namespace

void register_report(CLI::App& app, Action& action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* sub = app.add_subcommand("report", "Render the self-contained HTML report of a run from its result.json");
  sub->add_option("result", args->result, "The run's result.json (its history is found beside it)")->required();
  sub->add_option("-o,--out", args->out, "The HTML file to write")->required()->check(non_empty_path("a file name"));
  sub->add_option("--history", args->history, "The history file (default: the one result.json names, which must be inside its directory)")->check(non_empty_path("a file name"));
  sub->callback([&action, args] { action = [args] { return report_command(*args); }; });
}

}  // namespace lockstep::cli
