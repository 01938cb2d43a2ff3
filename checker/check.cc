#include "checker/check.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "sim/core/assert.h"

namespace lockstep::checker {

const std::vector<std::string>& property_names() {
  static const std::vector<std::string> names = {
      "mutual_exclusion", "linearizability", "fairness",         "quorum",
      "liveness",         "fencing",         "script_invariants"};
  return names;
}

PropertyResult make_result(std::string name, Verdict verdict, std::string reason) {
  PropertyResult r;
  r.name = std::move(name);
  r.verdict = verdict;
  r.reason = std::move(reason);
  return r;
}

bool is_timeout_error(const History& history, const Operation& op) {
  if (op.outcome != Outcome::kFail || op.error == kNoSym) return false;
  std::string text(history.str(op.error));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("timeout") != std::string::npos || text.find("timed out") != std::string::npos;
}

ExecsByOp::ExecsByOp(const History& history) : first_(history.ops.size() + 1, 0) {
  // A counting sort: count each operation's runs, turn the counts into starts, then place. The
  // runs' operations are looked up twice rather than kept (4 bytes a run: 56 MB at B2's size).
  auto op_of = [&](size_t run) -> int64_t {
    const Exec e = history.execs[run];
    return e.op_id == kAbsent || is_replica_wait(history, e) ? -1 : history.op_index(e.op_id);
  };
  for (size_t i = 0; i < history.execs.size(); ++i) {
    if (const int64_t index = op_of(i); index >= 0) ++first_[index + 1];
  }
  for (size_t i = 1; i < first_.size(); ++i) first_[i] += first_[i - 1];
  runs_.resize(first_.back());
  std::vector<uint32_t> next(first_.begin(), first_.end() - 1);
  for (size_t i = 0; i < history.execs.size(); ++i) {
    if (const int64_t index = op_of(i); index >= 0) runs_[next[index]++] = static_cast<uint32_t>(i);
  }
}

ExecsByOp execs_by_op(const History& history) { return ExecsByOp(history); }

namespace {
// The index check_history lends to the properties it runs, on each of their threads.
thread_local const History* shared_history = nullptr;
thread_local const ExecsByOp* shared_runs = nullptr;
}  // namespace

const ExecsByOp& execs_by_op(const History& history, ExecsByOp& own) {
  if (shared_history == &history) return *shared_runs;
  own = ExecsByOp(history);
  return own;
}

namespace {

// `command` is `name` (given in upper case), whatever the log's case.
bool name_is(std::string_view command, std::string_view name) {
  return command.size() == name.size() &&
         std::equal(command.begin(), command.end(), name.begin(),
                    [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; });
}

}  // namespace

bool command_is(const History& history, const Exec& exec, std::string_view name) {
  return name_is(history.str(exec.command), name);
}

bool is_replica_wait(const History& history, const Exec& exec) {
  return command_is(history, exec, "WAIT") || command_is(history, exec, "WAITAOF");
}

namespace {

GrantRule::Command command_rule(std::string_view command) {
  if (name_is(command, "SET") || name_is(command, "SETNX")) return GrantRule::Command::kSetLike;
  for (std::string_view script : {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"}) {
    if (name_is(command, script)) return GrantRule::Command::kScript;
  }
  return GrantRule::Command::kOther;
}

void script_rule(const HistoryHeader& header, std::string_view script, GrantRule& rule) {
  using S = GrantRule::Script;
  rule.value = 0;
  if (header.has_grant_replies) {
    const auto it = header.grant_replies.find(script);
    if (it == header.grant_replies.end()) {
      rule.script = S::kUnreadable;
    } else if (it->second == kNeverGrants) {
      rule.script = S::kNever;
    } else if (it->second == kAbsent) {
      rule.script = S::kNil;
    } else {
      rule.script = S::kInt;
      rule.value = it->second;
    }
    return;
  }
  if (script.find("failed") != std::string_view::npos) {
    rule.script = S::kNever;
  } else if (script.find("acquire") == std::string_view::npos) {
    rule.script = S::kUnreadable;
  } else {
    rule.script = S::kAcquire;
  }
}

RunGrant apply(GrantRule::Command command, const GrantRule* script, const Exec& exec) {
  const auto yes_if = [](bool granted) { return granted ? RunGrant::kYes : RunGrant::kNo; };
  if (command == GrantRule::Command::kSetLike) {
    return yes_if(exec.reply == ReplyKind::kStatus || (exec.reply == ReplyKind::kInt && exec.reply_int == 1));
  }
  if (script == nullptr) {
    // A script run the log does not name is unreadable; any other command grants nothing.
    return command == GrantRule::Command::kScript ? RunGrant::kUnreadable : RunGrant::kNo;
  }
  switch (script->script) {
    case GrantRule::Script::kUnreadable: return RunGrant::kUnreadable;
    case GrantRule::Script::kNever: return RunGrant::kNo;
    case GrantRule::Script::kNil: return yes_if(exec.reply == ReplyKind::kNil);
    case GrantRule::Script::kInt: return yes_if(exec.reply == ReplyKind::kInt && exec.reply_int == script->value);
    case GrantRule::Script::kAcquire:
      return yes_if(exec.reply == ReplyKind::kNil || (exec.reply == ReplyKind::kArray && exec.reply_int == -1));
  }
  LS_ASSERT(false);
  return RunGrant::kUnreadable;
}

}  // namespace

RunGrant run_grant(const History& history, const Exec& exec) {
  const std::vector<GrantRule>& rules = history.grant_rules;
  if (exec.command < rules.size() && (exec.script == kNoSym || exec.script < rules.size())) {
    return apply(rules[exec.command].command, exec.script == kNoSym ? nullptr : &rules[exec.script], exec);
  }
  GrantRule script;
  if (exec.script != kNoSym) script_rule(history.header, history.str(exec.script), script);
  return apply(command_rule(history.str(exec.command)), exec.script == kNoSym ? nullptr : &script, exec);
}

void prepare_grant_rules(History& history) {
  history.grant_rules.assign(history.syms.size(), GrantRule{});
  for (Sym sym = 0; sym < history.grant_rules.size(); ++sym) {
    GrantRule& rule = history.grant_rules[sym];
    rule.command = command_rule(history.str(sym));
    script_rule(history.header, history.str(sym), rule);
  }
}

bool exec_granted(const History& history, const Exec& exec) { return run_grant(history, exec) == RunGrant::kYes; }

CheckResult check_history(const History& history, const CheckOptions& options) {
  using Fn = PropertyResult (*)(const History&, const CheckOptions&);
  static const Fn fns[] = {check_mutual_exclusion, check_linearizability, check_fairness,
                           check_quorum,           check_liveness,        check_fencing,
                           check_script_invariants};
  const std::vector<std::string>& names = property_names();
  for (const std::string& n : options.properties) {
    LS_ASSERT(std::find(names.begin(), names.end(), n) != names.end());
  }
  std::vector<size_t> chosen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (options.properties.empty() ||
        std::find(options.properties.begin(), options.properties.end(), names[i]) != options.properties.end()) {
      chosen.push_back(i);
    }
  }
  CheckResult result;
  result.source = history.source;
  result.properties.resize(chosen.size());
  // Workers take the properties in this order, the usually longest first (linearizability's
  // search, liveness's spans), so the last one to start is a short one. Each result goes to its
  // property's place: the order of the results never depends on the threads.
  std::vector<size_t> order(chosen.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  auto cost_rank = [&](size_t k) {
    const std::string& n = names[chosen[k]];
    return n == "linearizability" ? 0 : n == "liveness" ? 1 : n == "mutual_exclusion" ? 2 : 3;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost_rank(a) < cost_rank(b); });
  // Four properties index each operation's runs: with two or more of them, one index is built
  // here and lent to all (about 10 MB and a pass over the runs each at B3's size).
  const size_t indexing = static_cast<size_t>(std::count_if(chosen.begin(), chosen.end(), [&](size_t i) {
    return names[i] == "linearizability" || names[i] == "fairness" || names[i] == "quorum" || names[i] == "liveness";
  }));
  std::optional<ExecsByOp> runs;
  if (indexing >= 2 && !history.execs.empty()) runs.emplace(history);
  std::atomic<size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;
  std::mutex done_mutex;
  size_t done = 0;
  auto work = [&] {
    shared_history = runs ? &history : nullptr;
    shared_runs = runs ? &*runs : nullptr;
    for (size_t n = next++; n < order.size(); n = next++) {
      const size_t k = order[n];
      try {
        result.properties[k] = fns[chosen[k]](history, options);
        if (options.on_property_done) {
          std::lock_guard<std::mutex> lock(done_mutex);
          options.on_property_done(++done, order.size());
        }
      } catch (...) {  // out of memory: raised again on the calling thread
        std::lock_guard<std::mutex> lock(failed_mutex);
        if (!failed) failed = std::current_exception();
        next = order.size();
      }
    }
  };
  const size_t threads = std::min<size_t>(static_cast<size_t>(std::max(1, options.threads)), order.size());
  std::vector<std::thread> helpers;
  helpers.reserve(threads);
  for (size_t t = 1; t < threads; ++t) {
    // A thread the system will not give (an address-space limit: its stack is 8 MiB) means fewer
    // threads, not a crash: the results do not depend on how many there are.
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : helpers) t.join();
  shared_history = nullptr;
  shared_runs = nullptr;
  if (failed) std::rethrow_exception(failed);
  for (size_t k = 0; k < chosen.size(); ++k) LS_ASSERT(result.properties[k].name == names[chosen[k]]);
  return result;
}

}  // namespace lockstep::checker
