// Causal explanations of violations (docs/checker.md, "Explanations").
//
// Given a conflict — a first owner that held (or believed it held) a lock and a second owner that
// acquired it while the first still believed so — the builder collects, from the history, the
// events that let the second in: pauses, crashes and clock jumps of the first holder's process,
// expiries of the lock's key on a node (with the node's local time), restarts and data loss,
// failovers, lost replies, failed renewals. It tells them as a short story in true time and names
// the first event that made the violation inevitable. The same facts go into a JSON object.
#ifndef LOCKSTEP_CHECKER_EXPLAIN_H_
#define LOCKSTEP_CHECKER_EXPLAIN_H_

#include <string>

#include "checker/history.h"
#include "checker/result.h"

namespace lockstep::checker {

// The two sides of a conflict on one lock.
struct Conflict {
  Sym lock = kNoSym;
  Sym first_thread = kNoSym;       // the earlier holder
  TimeUs first_begin = 0;          // when it started to hold
  TimeUs first_end = kTimeNever;   // when it stopped believing it held (kTimeNever: never)
  // first_end is where the first holder's lease ran out, not a belief: the history records no
  // holds, so nothing says what the holder believed.
  bool first_end_by_lease = false;
  Sym second_thread = kNoSym;      // the later acquirer; kNoSym: the first holder's own call
  TimeUs second_begin = 0;         // when its acquisition took effect or returned
  // The later acquirer's acquisition, when its hold names it (hold_begin's "op"): a live or
  // imported history records the hold a little after the call returned.
  int64_t second_op = kAbsent;
  // With no second acquirer: what found the first holder's lock gone, e.g. "c1/t0's unlock
  // (#5)"; the story then ends "…; c1/t0's unlock (#5) at 37.000 s found L gone".
  std::string loser_call;
  int64_t lease_ms = kAbsent;      // the first holder's lease, when known
  // The acquisition that began the first hold (its operation id), when known. Without it the
  // story takes the first holder's last acquisition of the lock that returned by first_begin.
  int64_t first_op = kAbsent;
  std::string what;                // optional: "held" phrase override, e.g. "held L (write)"
};

// Builds the story and the facts of `conflict` from `history`. The story covers the first
// holder's acquisition too (from its invoke): a fault between the server's grant and the client's
// hold_begin is part of it.
Explanation explain_conflict(const History& history, const Conflict& conflict);

// Appends the story of `conflict` to `explanation` (its text, and its facts as "story") when
// there is one to tell: a first holder that began no later than the second acquisition. Returns
// whether it did.
bool append_story(const History& history, const Conflict& conflict, Explanation* explanation);

// The acquisition that began a hold of `thread` on `lock` at `begin`: operation `op_id` when
// known (kAbsent: not), else the thread's last acquisition of the lock that returned by `begin`.
const Operation* hold_acquisition(const History& history, Sym thread, Sym lock, TimeUs begin, int64_t op_id);

// The lease in ms of the acquisition that began `hold` (hold_acquisition), for Conflict::lease_ms:
// kNoLeaseMs when it set none, kAbsent when no acquisition is found.
int64_t hold_lease_ms(const History& history, const Hold& hold);

// The latest time the lease `grant` (an acquisition) set can have lasted, by the calls' own times
// (for a history without the server's side, which records no expiry): from the latest return of
// a call of its owner that set or re-armed it (the grant, later acquisitions, renewals, partial
// unlocks) invoked by `until`, plus the header's clock tolerance. `at` is kTimeNever when the
// history cannot bound it: no lease, the grant never returned, a call of the owner whose outcome
// is unknown could have re-armed it at any later time, or an unlock released it (or did not say).
struct LeaseEnd {
  TimeUs at = kTimeNever;
  const Operation* last_rearm = nullptr;  // the call after the grant that set `at`, if any
};
LeaseEnd latest_lease_end(const History& history, const Operation& grant, TimeUs until);

// "lease of 1 s, set by its lock (#1) returning at 0.000 s, was never renewed and <verb> 1.000 s".
std::string lease_end_text(const History& history, const Operation& grant, const LeaseEnd& end, std::string_view verb);

// For a quorum lock (RedLock): why `acquisition`, which returned holding the lock, had fewer than a
// quorum of live grants when it declared success — "had 1 live grant(s) of 3 (quorum 2): its keys
// expired on node0 and node2 at 27.500 s; it declared success 16.499 s after its first grant (at
// 17.430 s)" — or "" when it had a quorum, the history cannot say, or the quorum property does
// not judge the history (checker/quorum.cc). `first_fault` (optional) gets the earliest fault the
// sentence names — a grant's death's (a node's clock jump, restart, crash or failover) or one
// under way before the declaration — or kAbsent: the story's first inevitable event.
std::string quorum_shortfall(const History& history, const Operation& acquisition, int64_t* first_fault = nullptr);

// The fault behind a node's lifecycle event, loss of data or crash at `t`: the latest crash,
// restart or failover of `node` begun by then (a crash's restart comes at its end), else a
// failover at `t` of another node (the replica it promoted lost what had not reached it). kAbsent
// when the history names none.
int64_t fault_behind(const History& history, Sym node, TimeUs t);

// A call as explanations name it: "c1/t0's unlock (#5)".
std::string call_name(const History& history, const Operation& op);

// Appends sentence `more` to `text`, with exactly one full stop between them.
void append_sentence(std::string* text, std::string_view more);

// The first `crash` fault of `thread`'s client (the process dies: its threads stop waiting), or
// nullptr when it never crashed.
const FaultEvent* client_crash(const History& history, Sym thread);

// The latest data loss of `key` on `node` by `t` (a restart, a failover), or nullptr.
const DataLoss* latest_loss(const History& history, Sym node, Sym key, TimeUs t);

// A lock's key that came back: the latest loss of `node`'s writes to `lock`'s key (a failover to a
// replica that had not seen the release, a restart from an old snapshot) at or before `t`, after
// which no run on the node granted the lock or deleted the key, and the key did not expire. Null
// when the history records none, or when that loss came before line `after_line`. A grant to
// `reentering_owner` (re-entering the hold the loss brought back) does not count as a new write.
// Its text: "node1 lost its latest writes to L at 37.349 s (failover), which brought back an
// older value".
const DataLoss* key_brought_back(const History& history, Sym node, Sym lock, TimeUs t, uint32_t after_line = 0,
                                 Sym reentering_owner = kNoSym);
std::string key_brought_back_text(const History& history, const DataLoss& loss, Sym lock);

// True when the key `key` belongs to lock `lock`: the lock's own key or a key naming it in a
// Redis hash tag ({L}) or as a prefix (L:...).
bool key_of_lock(std::string_view key, std::string_view lock);

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_EXPLAIN_H_
