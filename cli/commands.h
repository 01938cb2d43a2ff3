// The lockstep binary's subcommands. Each lives in its own cmd_<name>.cc and registers itself on
// the CLI11 app; main.cc only wires them together and maps outcomes to exit codes.
#ifndef LOCKSTEP_CLI_COMMANDS_H_
#define LOCKSTEP_CLI_COMMANDS_H_

#include <functional>

namespace CLI {
class App;
}

namespace lockstep::cli {

// Exit codes shared by every subcommand (docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,          // ran; the outcome is the expected one
  kExitViolation = 1,   // an unexpected violation, or an expected one that did not happen
  kExitBadInput = 2,    // bad usage or bad input
  kExitUnknown = 3,     // a checker could not decide
};

// A registered subcommand runs this after parsing; its return value is the process exit code.
using Action = std::function<int()>;

// Each adds one subcommand to `app` and stores the action to run when it is chosen.
void register_run(CLI::App& app, Action& action);
void register_explore(CLI::App& app, Action& action);
void register_sweep(CLI::App& app, Action& action);
void register_check(CLI::App& app, Action& action);
void register_report(CLI::App& app, Action& action);
void register_list(CLI::App& app, Action& action);
void register_serve(CLI::App& app, Action& action);
void register_bench(CLI::App& app, Action& action);
void register_scorecard(CLI::App& app, Action& action);

}  // namespace lockstep::cli

#endif  // LOCKSTEP_CLI_COMMANDS_H_
