// The seven properties of docs/checker.md, one checker per file, each a pure function of the
// history. check_history (check.h) runs them; tests and tools may call one directly.
#ifndef LOCKSTEP_CHECKER_PROPERTIES_H_
#define LOCKSTEP_CHECKER_PROPERTIES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checker/history.h"
#include "checker/result.h"

namespace lockstep::checker {

struct CheckOptions {
  // The linearizability search gives up (verdict unknown) after trying this many transitions
  // (states explored) on one lock: about a second of CPU.
  int64_t search_budget = 20'000'000;
  // Properties to run, by name; empty runs all seven.
  std::vector<std::string> properties;
  // Verify the per-node execution order first, when the history logged it (docs/checker.md).
  bool use_exec_order = true;
  // How long after its invoke an operation with an unknown outcome may still take effect; -1 is
  // unbounded (the format's rule: a request may be delivered arbitrarily late). A bound makes the
  // check stronger for systems whose connections are known to give up (e.g. closed on timeout).
  int64_t unknown_window_ms = -1;
  // Refute a lock's history at once where a grant falls inside a hold the history proves lasted
  // (docs/checker.md, "Certain holds"), before any search. Off only in tests that compare the
  // search's verdict with it.
  bool certain_holds = true;
  // Properties checked at once, each on a thread of its own (they only read the history). The
  // result is the same whatever the number; more threads finish sooner and use more memory at
  // the peak (each property's own working set at the same time).
  int threads = 1;
  // Judge one lock only, by name: mutual_exclusion and linearizability look at no other lock's
  // holds and operations (the other properties are unchanged). Empty judges every lock. A replay
  // that proves a cause asks whether the same lock's violation happens again (counterfactual.h).
  std::string lock;
  // Judge only the overlaps of these threads' holds (mutual_exclusion; with `lock`, on that lock):
  // a violation's two holders, so that a replay asks whether the same two overlap again. Empty:
  // every hold.
  std::vector<std::string> holders;
  // Called as each property is done, with how many are done of how many: for a progress line.
  // Calls come one at a time, from the threads that checked them.
  std::function<void(size_t done, size_t total)> on_property_done;
};

PropertyResult check_mutual_exclusion(const History& history, const CheckOptions& options);
PropertyResult check_linearizability(const History& history, const CheckOptions& options);
PropertyResult check_fairness(const History& history, const CheckOptions& options);
PropertyResult check_quorum(const History& history, const CheckOptions& options);
PropertyResult check_liveness(const History& history, const CheckOptions& options);
PropertyResult check_fencing(const History& history, const CheckOptions& options);
PropertyResult check_script_invariants(const History& history, const CheckOptions& options);

// Helpers shared by the checkers.
// Indices of `items` grouped by lock, locks in order of first appearance (Sym order).
template <typename T>
std::vector<std::pair<Sym, std::vector<uint32_t>>> group_by_lock(const Column<T>& items);
// True when a fail outcome's error says the call timed out (so it may have taken effect).
bool is_timeout_error(const History& history, const Operation& op);
// A result with `verdict` and `reason`.
PropertyResult make_result(std::string name, Verdict verdict, std::string reason);

}  // namespace lockstep::checker

#include "checker/properties_inl.h"

#endif  // LOCKSTEP_CHECKER_PROPERTIES_H_
