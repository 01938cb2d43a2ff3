// RapidCheck generators of command sequences for the differential test.
//
// A sequence is a list of Steps, each one command on one of two client connections (two, so
// that pub/sub messages published on one reach a subscriber on the other). The alphabets of
// keys, fields and members are tiny on purpose, so that commands collide on the same keys and
// meet wrong types; arguments are drawn from lists of edge cases (non-integers, overflow,
// floats, inf/nan, huge values, empty strings; TTLs of 0, negative, past absolute times) and a
// step sometimes loses or gains an argument (wrong arity). The lock scripts of the seed
// documents run with random arguments, through EVAL or EVALSHA, and random small Lua scripts
// exercise every rule of the Lua <-> RESP reply conversion. HELLO steps switch a connection
// between RESP2 and RESP3 mid-sequence (also while subscribed), with its options and errors.
//
// Timing-sensitive values are avoided by construction: relative TTLs are either <= 0 (deleted
// at once, deterministic) or >= 10 s (never expire during a sequence), so both servers see the
// same keys; absolute times are placeholders ($PAST_MS, $FUTURE_MS, $FUTURE_S) replaced with
// the same value for both servers just before the step runs.
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_COMMAND_GEN_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_COMMAND_GEN_H_

#include <rapidcheck.h>

#include <string>
#include <vector>

namespace lockstep::differential {

// How a step's replies are compared (see compare.h).
enum class CompareRule {
  kExact,
  kTtl,         // integers may differ by kTtlToleranceMs (PTTL, scripts returning PTTLs)
  kTtlSeconds,  // integers may differ by 1 (TTL: whole seconds, rounded)
  kUnordered,   // KEYS, SMEMBERS, HKEYS, HVALS: a multiset when Redis leaves the order open
  kUnorderedPairs,  // HGETALL: a multiset of field/value pairs when the order is open
  kTime,       // TIME: two integer bulks, seconds within the tolerance
  kUnsubscribeAll,  // UNSUBSCRIBE with no channel: the channels come in hash-table order
  kHello,      // HELLO: the connection ids differ (each server numbers its own clients)
  kScan,       // SCAN, SSCAN: [cursor, elements]: finished scans as multisets (see scan_like)
  kScanPairs,  // HSCAN, ZSCAN: the same with field/value (member/score) pairs
  kRandomPick,  // SPOP, SRANDMEMBER, RANDOMKEY: the same shape (types, lengths); bulks may differ
  kClientInfo,  // CLIENT INFO/LIST: per line, the fields that do not depend on sockets and times
  kFunctionList,  // FUNCTION LIST: libraries, and each library's functions, in any order
};

struct Step {
  int conn = 0;  // 0 or 1
  std::vector<std::string> argv;
  CompareRule rule = CompareRule::kExact;
  // Commands sent right after argv in the same pipeline, before the barrier (a MULTI ... EXEC
  // block: inside MULTI the barrier's PING would be queued). Compared by `rule` too.
  std::vector<std::vector<std::string>> then;
};

// Which families a sequence draws from.
enum class Family { kEverything, kKeysAndStrings, kCollections, kScripts, kSeedScripts, kPubSub, kFunctions };

rc::Gen<std::vector<Step>> gen_sequence(Family family);

// The step as a command line ("conn1> SET a 1"), arguments quoted where needed.
std::string show_step(const Step& step);

// Replaces the time placeholders in `arg` using `now_ms` (Unix ms).
std::string resolve_placeholders(const std::string& arg, int64_t now_ms);

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_COMMAND_GEN_H_
