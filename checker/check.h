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

#include <span>
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

// The exec events of each operation, for checkers that read the server side: execs_of[i] are the
// indices into History::execs of ops[i]'s runs, in history order (empty for an op without runs).
// A WAIT (WAITAOF) the client sent after a run is not a run: it waits for replicas and changes
// nothing, and taken as the call's last run it would place the call after its own effect
// (Redisson's sync_replicas sends one after every script: is_replica_wait).
// Two flat arrays (8 bytes per operation and run), not a vector per operation.
class ExecsByOp {
 public:
  ExecsByOp() = default;
  explicit ExecsByOp(const History& history);
  // No operations at all (a default-constructed index: the history logged no runs).
  bool empty() const { return first_.empty(); }
  // True when some operation has a run.
  bool any_runs() const { return !runs_.empty(); }
  // REQUIRES: op < the history's ops.size().
  std::span<const uint32_t> operator[](size_t op) const {
    return std::span<const uint32_t>(runs_).subspan(first_[op], first_[op + 1] - first_[op]);
  }

 private:
  std::vector<uint32_t> first_;  // ops + 1 entries: op i's runs are runs_[first_[i], first_[i + 1])
  std::vector<uint32_t> runs_;
};
ExecsByOp execs_by_op(const History& history);
// The same index for a property: the one check_history built once for all the properties it
// runs at once (their threads share it, read only), else a new one built into `own`.
const ExecsByOp& execs_by_op(const History& history, ExecsByOp& own);

// True when `exec` ran the command `name` (given in upper case; the log's case does not matter).
bool command_is(const History& history, const Exec& exec, std::string_view name);

// True when `exec` is a WAIT or WAITAOF: an acknowledgement from the replicas, not a run of its call.
bool is_replica_wait(const History& history, const Exec& exec);

// Whether a run granted its operation's lock on its node, as far as the history says:
//  - a SET/SETNX by its reply (OK, or 1);
//  - a script the header's grant_replies names, by the reply it names there;
//  - without grant_replies, a script named *acquire* by Redisson's convention: nil, or
//    {-1, token} (the fenced lock), grants; a script named *failed* (the clean-up after a
//    failed attempt) never does;
//  - any command that runs no script: no grant.
// Any other script run, or one the log does not name, is unreadable: its reply says nothing the
// checker can trust (a script of another tool's log, of a Lua algorithm, that answers in its own
// way).
enum class RunGrant : uint8_t { kNo, kYes, kUnreadable };
RunGrant run_grant(const History& history, const Exec& exec);

// run_grant(...) == kYes.
bool exec_granted(const History& history, const Exec& exec);

// Whether `x`, a run after `grant` (a grant to the RedLock acquisition `op`), is the release a
// failed attempt of `op` sent before it declared success: a RedLock that misses its quorum gives
// back what it got, then tries again (checker/quorum.cc says what qualifies).
bool own_release(const History& h, const Operation& op, const Exec& grant, const Exec& x);

// Fills history.grant_rules for every symbol, from the names and the header's grant_replies
// (HistoryBuilder::finish does; run_grant gives the same answers with or without them).
void prepare_grant_rules(History& history);

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_CHECK_H_
