// What the CLI prints that came from input — scenario and lock names, file paths, error messages
// quoting a file, explanations naming locks of a history — goes through printable()
// (sim/core/printable.h), so a control character in it shows as \xNN instead of acting on the
// terminal (docs/cli.md#terminal-output). The structs' own text methods compose the lines; the
// copies made here escape each field first, so a field can neither add a line nor colour one.
#ifndef LOCKSTEP_CLI_TERMINAL_H_
#define LOCKSTEP_CLI_TERMINAL_H_

#include <string>

#include "checker/result.h"
#include "harness/explore/explore.h"
#include "harness/scenario/run.h"
#include "sim/core/printable.h"

namespace lockstep::cli {

// "lockstep <command>: <message>" and a newline on stderr, the message escaped.
void print_error(const char* command, const std::string& message);

// Copies whose every string that is printed came through printable().
checker::CheckResult printable_copy(const checker::CheckResult& r);
scenario::RunReport printable_copy(const scenario::RunReport& r);
explore::ExploreSummary printable_copy(const explore::ExploreSummary& s);

}  // namespace lockstep::cli

#endif  // LOCKSTEP_CLI_TERMINAL_H_
