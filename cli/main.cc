// lockstep: one binary, one subcommand per job. Parse errors exit 2 with CLI11's message;
// `--help` on any subcommand prints its usage and exits 0.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"
#include "sim/core/printable.h"

int main(int argc, char** argv) {
  using namespace lockstep::cli;
  CLI::App app{
      "lockstep: a deterministic simulator and correctness checker for Redis-based locks.\n"
      "Exit codes: 0 expected outcome, 1 unexpected violation, 2 bad usage or input, 3 unknown."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lockstep 0.1.0");
  // Usage errors quote the command line ("The following argument was not expected: ..."):
  // escaped like every other input-derived text (docs/cli.md#terminal-output).
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return lockstep::printable_lines(CLI::FailureMessage::simple(a, e));
  });

  Action action;
  register_run(app, action);
  register_explore(app, action);
  register_sweep(app, action);
  register_check(app, action);
  register_report(app, action);
  register_list(app, action);
  register_serve(app, action);
  register_bench(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (!action) {
    std::fprintf(stderr, "lockstep: no subcommand chosen (see lockstep --help)\n");
    return kExitBadInput;
  }
  return action();
}
