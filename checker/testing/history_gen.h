// Generator of random LEGAL lock histories, and of single injected faults, for the checker's
// soundness properties and for benchmark B3.
//
// It simulates a correct lock service in a few lines of state per lock — grants only when the
// lock is free (or reentrant), leases that expire only after they elapsed, watchdog renewals,
// FIFO queues for the fair lock, increasing fencing tokens, read/write rules — with random
// network delays, hold and think times, reentrancy and unknown outcomes (a lost request never
// executes; a lost reply executed, and the client does not know). It writes the history as
// JSONL text in the format of docs/history-format.md, so tests go through the real reader.
//
// Every random draw comes from lockstep::Rng: a (options, seed) pair always gives the same bytes.
#ifndef LOCKSTEP_CHECKER_TESTING_HISTORY_GEN_H_
#define LOCKSTEP_CHECKER_TESTING_HISTORY_GEN_H_

#include <cstdint>
#include <string>

#include "checker/history.h"

namespace lockstep::checker::testing {

// A single fault to inject into an otherwise legal history.
enum class Inject : uint8_t {
  kNone,
  kOverlap,          // a second owner acquires and holds while the first still holds
  kTokenRegression,  // a fenced resource accepts a lower token
  kFifoInversion,    // a fair lock grants a newcomer while an earlier waiter is still waiting
  kQuorumShortfall,  // a RedLock acquisition is declared after most of its keys were lost
  kStuckLock,        // a waiter waits past the liveness bound on a lock nobody holds
  kEarlyLapse,       // a holder loses its lock (renewal fails) before its lease elapsed
};

const char* inject_name(Inject inject);

struct GenOptions {
  LockKind kind = LockKind::kReentrant;
  bool fair = false;
  bool fenced = false;        // tokens on grants, writes to a fenced resource
  bool redlock = false;       // acquisitions over `nodes` nodes (kind should be kRedlock)
  int nodes = 1;
  int threads = 4;            // threads, spread over clients of `threads_per_client`
  int threads_per_client = 1;
  int locks = 1;
  int64_t ops = 200;          // stop after this many operations were invoked
  int64_t lease_ms = -1;      // -1: watchdog
  int64_t watchdog_ms = 30000;
  int64_t hold_min_ms = 10, hold_max_ms = 100;
  int64_t think_min_ms = 0, think_max_ms = 100;
  int64_t net_min_us = 100, net_max_us = 2000;
  uint32_t reentry_ppm = 100000;   // chance a holder reenters once more
  uint32_t unknown_ppm = 0;        // chance an operation's request or reply is lost
  uint32_t try_lock_ppm = 0;       // chance an acquisition is a tryLock(wait 0)
  uint32_t read_ppm = 500000;      // rwlock: chance an acquisition is a read
  bool execs = true;               // record exec events (with op ids)
  bool holds = true;
  Inject inject = Inject::kNone;
  int64_t liveness_bound_ms = 45000;
};

// Generates the history of `options` under `seed` as JSONL text.
std::string generate_history(const GenOptions& options, uint64_t seed);

}  // namespace lockstep::checker::testing

#endif  // LOCKSTEP_CHECKER_TESTING_HISTORY_GEN_H_
