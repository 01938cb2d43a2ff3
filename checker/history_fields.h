// The fields of one history event line, as the history reader parses them from text and as a
// run that checks its own history hands them over directly (harness/scenario/direct_history.h).
// HistoryBuilder (history_builder.h) turns them into records.
#ifndef LOCKSTEP_CHECKER_HISTORY_FIELDS_H_
#define LOCKSTEP_CHECKER_HISTORY_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/history.h"

namespace lockstep::checker::fields {

// Bit per field, so a handler can ask "was it present".
enum Field : uint64_t {
  kT = 1ull << 0, kType = 1ull << 1, kId = 1ull << 2, kThread = 1ull << 3, kOwner = 1ull << 4,
  kLock = 1ull << 5, kOpStr = 1ull << 6, kOpInt = 1ull << 7, kMode = 1ull << 8,
  kLease = 1ull << 9, kWait = 1ull << 10, kWatchdog = 1ull << 11, kOutcome = 1ull << 12,
  kAcquired = 1ull << 13, kReleased = 1ull << 14, kRenewed = 1ull << 15, kCount = 1ull << 16,
  kToken = 1ull << 17, kValidity = 1ull << 18, kError = 1ull << 19, kReason = 1ull << 20,
  kResource = 1ull << 21, kFenced = 1ull << 22, kAccepted = 1ull << 23, kNode = 1ull << 24,
  kSeq = 1ull << 25, kLocal = 1ull << 26, kConn = 1ull << 27, kCommand = 1ull << 28,
  kScript = 1ull << 29, kKeys = 1ull << 30, kReply = 1ull << 31, kKey = 1ull << 32,
  kChannel = 1ull << 33, kMessage = 1ull << 34, kReceivers = 1ull << 35, kValue = 1ull << 36,
  kEvent = 1ull << 37, kFault = 1ull << 38, kKind = 1ull << 39, kTarget = 1ull << 40,
  kPhase = 1ull << 41, kParams = 1ull << 42, kComplete = 1ull << 43, kFirstArg = 1ull << 44,
  kBlocked = 1ull << 45,
};

// The fields of one event line. Views point into the caller's buffers: valid for this line only.
struct LineFields {
  uint64_t present = 0;
  int64_t t = 0, id = 0, op_int = 0, lease_ms = 0, wait_ms = 0, watchdog_ms = 0, count = 0;
  int64_t token = 0, validity_ms = 0, seq = 0, local_ms = 0, receivers = 0, fault = 0;
  bool acquired = false, released = false, renewed = false, fenced = false, accepted = false;
  bool complete = false, value_null = false, blocked = false;
  std::string_view type, thread, owner, lock, op_str, mode, outcome, error, reason, resource;
  std::string_view node, conn, command, script, key, channel, message, event, kind, target, phase;
  std::string_view value_type;
  int64_t value_expire_at_ms = -1;  // state: the key's expiry (node-local ms), -1 none
  ReplyKind reply = ReplyKind::kNil;
  int64_t reply_int = 0;
  std::vector<std::string_view> keys;
  std::string_view first_arg;  // exec: args[0] when it is a string (a plain command's key)
  std::vector<std::string_view> members, values;
  std::vector<std::pair<std::string_view, int64_t>> params;
  std::string message_buf;  // integer messages rendered as text

  bool has(uint64_t bits) const { return (present & bits) == bits; }
  void reset() {
    present = 0;
    keys.clear();
    members.clear();
    values.clear();
    params.clear();
    value_null = false;
    value_type = {};
    value_expire_at_ms = -1;
  }
};

}  // namespace lockstep::checker::fields

#endif  // LOCKSTEP_CHECKER_HISTORY_FIELDS_H_
