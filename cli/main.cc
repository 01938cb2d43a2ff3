// lockstep: one binary, one subcommand per job. Parse errors exit 2 with CLI11's message;
// `--help` on any subcommand prints its usage and exits 0.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "cli/commands.h"
#include "harness/explore/worker_pool.h"
#include "sim/core/interrupt.h"
#include "sim/core/printable.h"

#ifdef LOCKSTEP_WITH_JEMALLOC
// jemalloc's options, read when it starts. One arena for every thread: under an address-space
// limit, jemalloc 5.3 crashes (a null dereference in its arena set-up) when a new thread's first
// allocation needs an arena of its own and none can be mapped, where it should fail the
// allocation. `check` runs properties and its reader on threads; with one arena a new thread uses
// the first one's, and running out of memory stays a clean exit 2 (run_cli_test sweeps limits).
// The threads are few and cache allocations per thread: B3 (a) measured the same with it.
extern "C" {
const char* malloc_conf = "narenas:1";  // NOLINT: the name jemalloc looks for
}
#endif

namespace {

// Running out of memory ends every command the same way: the outputs that were not complete
// are removed (the interrupt table knows them), one clear line, exit 2 (docs/cli.md).
[[noreturn]] void out_of_memory() {
  // An exploration's worker says it with its exit status; the parent reports the seed. It writes
  // no files, and the ones it remembers are its parent's (inherited at fork): it leaves them.
  if (lockstep::explore::in_worker()) std::_Exit(lockstep::explore::kOutOfMemoryStatus);
  lockstep::interrupt::remove_remembered();
  static const char kMsg[] =
      "lockstep: out of memory; the outputs that were not complete have been removed (shorten the run, "
      "lower limits, or give it more memory)\n";
  std::fputs(kMsg, stderr);
  std::_Exit(lockstep::cli::kExitBadInput);
}

// A bad_alloc thrown where no one can catch it (a coroutine, a destructor) ends in terminate.
[[noreturn]] void on_terminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      out_of_memory();
    } catch (const std::exception& x) {
      std::fprintf(stderr, "lockstep: internal error (a bug; please report it): uncaught exception: %s\n", x.what());
    } catch (...) {
      std::fprintf(stderr, "lockstep: internal error (a bug; please report it): uncaught exception of an unknown type\n");
    }
  }
  std::abort();
}

}  // namespace

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

  // A file-size limit (`ulimit -f`) would otherwise kill the process with SIGXFSZ in the middle
  // of a write, leaving a half-written temporary file and no message: ignored, the write fails
  // with EFBIG ("File too large") and goes the way of any failed write (an error naming the file,
  // exit 2, temporary files removed).
  std::signal(SIGXFSZ, SIG_IGN);

  Action action;
  register_run(app, action);
  register_explore(app, action);
  register_sweep(app, action);
  register_check(app, action);
  register_report(app, action);
  register_list(app, action);
  register_serve(app, action);
  register_bench(app, action);
  register_scorecard(app, action);

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
  std::set_terminate(on_terminate);
  try {
    return action();
  } catch (const std::bad_alloc&) {
    out_of_memory();
  }
}
