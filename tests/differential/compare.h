// How the differential test decides that the model's reply and Redis's reply are the same.
//
// Exact equality (type, value, and for arrays order and length), except:
//  (a) TTLs depend on real elapsed time, and the two servers run each step a fraction of a
//      millisecond apart: for PTTL and the lock scripts that return a PTTL, integers may differ
//      by at most kTtlToleranceMs; for TTL by at most 1 (whole seconds, rounded). Negative
//      values (-1 no TTL, -2 no key) must match exactly.
//  (b) Where Redis leaves the order unspecified — KEYS; SMEMBERS of a set not encoded as an
//      intset; HKEYS/HVALS/HGETALL of a hash no longer encoded as a listpack (the runner asks
//      the real server with OBJECT ENCODING) — arrays are compared as multisets (HGETALL as a
//      multiset of field/value pairs). Small hashes and integer sets are compared in order.
//  (c) TIME: both replies are two integer bulks and the seconds differ by at most 2.
//  (d) UNSUBSCRIBE with no channel: Redis walks the client's channels in hash-table order, so
//      the channel names are compared as a multiset; the remaining-count of each reply, in
//      order, must match exactly.
//  (e) The "pmessage" deliveries of one PUBLISH to one connection (several of its patterns
//      match) come in the order of Redis's pattern hash table: each run of consecutive
//      pmessages is compared as a multiset. "message" before "pmessage" stays checked.
//  (f) HELLO: the value after "id" (the connection's id, which each server numbers its own
//      way) is not compared; everything else is.
//  (g) SPOP, SRANDMEMBER, RANDOMKEY draw at random: replies must have the same shape (types,
//      aggregate lengths, integers and errors exactly); the bulk strings drawn may differ. The
//      generator follows an SPOP with SCARD (exact) and DEL, so both servers continue alike.
//  (h) CLIENT INFO / CLIENT LIST: the same number of lines, and in each line the fields that do
//      not depend on sockets, buffers and times (name, flags, db, sub, psub, ssub, multi,
//      argv-mem, cmd, user, redir, resp) equal; id, addresses, fd, age, idle and the buffer
//      sizes are not compared.
//  (i) FUNCTION LIST: Redis lists libraries and each library's functions in its dicts' orders:
//      both are compared as multisets (each function's fields, flags included, exactly).
// The rules apply alike to RESP2 arrays and to RESP3's maps, sets and pushes; the types
// themselves must always match.
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_COMPARE_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_COMPARE_H_

#include <cstdint>
#include <vector>

#include "sim/redis/reply.h"
#include "tests/differential/command_gen.h"

namespace lockstep::differential {

inline constexpr int64_t kTtlToleranceMs = 250;

bool replies_match(const redis::Reply& model, const redis::Reply& real, CompareRule rule);

// For rules that look at a step's replies together (kUnsubscribeAll); other rules compare
// pairwise with replies_match.
bool transcripts_match(const std::vector<redis::Reply>& model, const std::vector<redis::Reply>& real,
                       CompareRule rule);

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_COMPARE_H_
