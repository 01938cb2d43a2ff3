// The checker's entry point: run the properties of docs/checker.md on a history.
//
//   Result<History> h = parse_history_file("run/history.jsonl");   // or parse_history_text
//   if (!h.ok()) { report(h.status().message()); return 2; }
//   CheckResult r = check_history(h.value(), CheckOptions{});
//   std::cout << r.to_text();  write(r.to_json());  return r.exit_code();
//
// A recorder that holds its history in memory as JSONL text passes it to parse_history_text; the
// checkers see exactly what `lockstep check` would see in the file.
#ifndef LOCKSTEP_CHECKER_CHECK_H_
#define LOCKSTEP_CHECKER_CHECK_H_

#include <string>
#include <string_view>
#include <vector>

#include "checker/history.h"
#include "checker/history_parse.h"
#include "checker/properties.h"
#include "checker/result.h"

namespace lockstep::checker {

// The seven property names, in report order.
const std::vector<std::string>& property_names();

// Runs the properties chosen in `options` (all by default) on `history`.
// REQUIRES: every name in options.properties is one of property_names().
CheckResult check_history(const History& history, const CheckOptions& options = {});

// The exec events of each operation (index into History::ops → indices into History::execs),
// for checkers that read the server side; empty inner vectors for ops without execs.
std::vector<std::vector<uint32_t>> execs_by_op(const History& history);

// True when `exec` ran the command `name` (given in upper case; the log's case does not matter).
bool command_is(const History& history, const Exec& exec, std::string_view name);

// True when `exec` granted its operation's lock on its node: an acquire script that replied nil
// (Redisson's convention) or {-1, token} (the fenced lock), or a SET/SETNX that set the key.
bool exec_granted(const History& history, const Exec& exec);

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_CHECK_H_
