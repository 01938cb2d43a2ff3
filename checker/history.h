// A recorded history, held compactly in memory for the checkers.
//
// A History is what one run recorded (docs/history-format.md): lock operations (an invoke merged
// with its complete), holds, resource writes, the server side (script executions, expiries, data
// loss, pub/sub, key states, node lifecycle) and faults. Strings that repeat millions of times
// (threads, owners, lock names, nodes) are interned into a SymbolTable and stored as 32-bit ids,
// so a 1,000,000-operation history fits in a few hundred megabytes.
//
// Histories come from parse_history_file (a JSONL file) or parse_history_text (the same bytes in
// memory, e.g. what a recorder just produced): see history_parse.h.
#ifndef LOCKSTEP_CHECKER_HISTORY_H_
#define LOCKSTEP_CHECKER_HISTORY_H_

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/column.h"
#include "sim/core/fault_kind.h"
#include "sim/core/time.h"

namespace lockstep::checker {

// Interned string id. kNoSym stands for an absent field.
using Sym = uint32_t;
constexpr Sym kNoSym = 0;

// Maps strings to dense ids and back. Id 0 is the empty string and means "absent".
class SymbolTable {
 public:
  SymbolTable();
  // Not copyable: views_ point into names_ (a copy's would point into the original's). Moving
  // keeps every string where it is.
  SymbolTable(const SymbolTable&) = delete;
  SymbolTable& operator=(const SymbolTable&) = delete;
  SymbolTable(SymbolTable&&) = default;
  SymbolTable& operator=(SymbolTable&&) = default;
  // Returns the id of `text`, adding it if new.
  Sym intern(std::string_view text);
  // Returns the id of `text` or kNoSym when it was never interned.
  Sym find(std::string_view text) const;
  // REQUIRES: sym < size().
  std::string_view name(Sym sym) const;
  size_t size() const { return names_.size(); }

 private:
  // Open addressing (linear probing) over ids; a deque never moves its strings, so the views in
  // views_ stay valid. Faster than std::unordered_map on the reader's hot path.
  size_t slot_of(std::string_view text, uint64_t hash) const;
  void grow();
  std::deque<std::string> names_;
  std::vector<std::string_view> views_;
  std::vector<uint64_t> hashes_;
  std::vector<Sym> slots_;  // kNoSym: empty
};

enum class LockKind : uint8_t { kReentrant, kRwlock, kSimple, kRedlock };
// OpKind, Mode and Outcome are stored in bit-fields of Operation (3, 2 and 2 bits).
enum class OpKind : uint8_t { kLock, kTryLock, kUnlock, kForceUnlock, kRenew };
enum class Mode : uint8_t { kExclusive, kRead, kWrite };
// kUnknown: the client could not know (reply lost, timed out, never completed).
enum class Outcome : uint8_t { kOk, kFail, kUnknown };
// An optional boolean result field.
enum class Tri : int8_t { kAbsent = -1, kFalse = 0, kTrue = 1 };

constexpr int64_t kAbsent = INT64_MIN;  // marker for absent integer fields
// Operation::lease_ms of a grant with no lease at all (`"lease_ms": null`): it never expires by
// itself. Its effective lease is long enough to outlast any history, short enough to add to.
constexpr int64_t kNoLeaseMs = INT64_MIN + 1;
// Header grant_replies: a script that never grants ("never").
constexpr int64_t kNeverGrants = INT64_MIN + 2;
constexpr int64_t kNoLeaseUs = int64_t{1} << 52;

const char* lock_kind_name(LockKind kind);
const char* op_kind_name(OpKind kind);
const char* mode_name(Mode mode);
const char* outcome_name(Outcome outcome);

// The header line.
struct HistoryHeader {
  int version = 1;
  LockKind lock_kind = LockKind::kReentrant;
  std::string algorithm;
  std::string scenario;
  int64_t seed = kAbsent;
  std::vector<std::string> nodes;
  int64_t quorum = kAbsent;              // default len(nodes)/2+1
  int64_t drift_tolerance_us = 0;
  int64_t liveness_bound_ms = kAbsent;   // absent: no liveness check
  bool fair = false;
  int64_t thread_wait_ms = kAbsent;
  // RedLock grants by script (docs/history-format.md): the script's name and the integer reply
  // that means "this node granted the lock" (kAbsent: a nil reply does; kNeverGrants: the script
  // never grants, e.g. a release after a failed attempt). Absent (has_grant_replies false): a
  // script's nil reply is a grant (Redisson's convention).
  bool has_grant_replies = false;
  std::map<std::string, int64_t, std::less<>> grant_replies;

  // A lock over several independent masters (RedLock): the header says `quorum`, the lock kind
  // is `redlock`, or the algorithm's name starts with "redlock".
  bool quorum_lock() const;
};

// One lock call: an invoke merged with its complete (if any). A 1,000,000-operation history holds
// a million of these: the fields are ordered by size and the four small enums share one byte, so
// that a record takes 96 bytes (104 with each enum in a byte of its own).
struct Operation {
  int64_t id = 0;
  TimeUs invoke_t = 0;
  TimeUs complete_t = kTimeNever;  // kTimeNever when it never completed
  int64_t token = kAbsent;
  int64_t lease_ms = -1;            // -1: watchdog; kNoLeaseMs: none
  int64_t watchdog_ms = 30000;
  int64_t wait_ms = -1;             // -1: unbounded
  int64_t validity_ms = kAbsent;
  Sym thread = kNoSym;
  Sym owner = kNoSym;
  Sym lock = kNoSym;
  Sym error = kNoSym;
  int32_t count = -1;               // hold count after, -1 absent
  uint32_t invoke_line = 0;
  uint32_t complete_line = 0;
  Tri acquired = Tri::kAbsent;
  Tri released = Tri::kAbsent;
  Tri renewed = Tri::kAbsent;
  // Bit-fields of unsigned enums only: a bit-field of Tri (signed) reads back differently
  // between compilers.
  OpKind kind : 3 = OpKind::kLock;
  Mode mode : 2 = Mode::kExclusive;
  Outcome outcome : 2 = Outcome::kUnknown;
  bool completed : 1 = false;

  // The lease the server set for an acquire or renewal, in microseconds.
  int64_t effective_lease_us() const {
    if (lease_ms == kNoLeaseMs) return kNoLeaseUs;
    return (lease_ms >= 0 ? lease_ms : watchdog_ms) * kUsPerMs;
  }
  bool is_acquire() const { return kind == OpKind::kLock || kind == OpKind::kTryLock; }
};
static_assert(sizeof(Operation) <= 96, "Operation grew: see the comment above it");

// An interval in which a thread believed it held a lock.
struct Hold {
  Sym thread = kNoSym;
  Sym owner = kNoSym;
  Sym lock = kNoSym;
  Sym end_reason = kNoSym;   // unlock, crash, lost, end; kNoSym while open
  Mode mode = Mode::kExclusive;
  int64_t op_id = kAbsent;
  int64_t token = kAbsent;
  TimeUs begin_t = 0;
  TimeUs end_t = kTimeNever;  // kTimeNever when the history ends while it is held
  uint32_t begin_line = 0;
  uint32_t end_line = 0;
};

struct Write {
  TimeUs t = 0;
  Sym thread = kNoSym, owner = kNoSym, lock = kNoSym, resource = kNoSym;
  int64_t token = kAbsent;
  bool fenced = false;
  bool accepted = true;
  uint32_t line = 0;
};

// kNoScript: the error NOSCRIPT, an EVALSHA the node answered without running anything.
enum class ReplyKind : uint8_t { kNil, kInt, kString, kArray, kStatus, kError, kNoScript, kOther };

struct Exec {
  TimeUs t = 0;
  Sym node = kNoSym, conn = kNoSym, command = kNoSym, script = kNoSym;
  int64_t seq = 0;
  int64_t local_ms = kAbsent;
  int64_t op_id = kAbsent;
  uint32_t keys_begin = 0, keys_count = 0;  // range in History::key_pool
  int64_t reply_int = 0;
  uint32_t line = 0;
  ReplyKind reply = ReplyKind::kNil;

  bool operator==(const Exec&) const = default;
};

// The script runs of a history: an append-only sequence of Exec. A history may log tens of
// millions of runs (B2's full size: 14 M); past the first kPackAfter runs they are stored in
// 40 bytes each instead of sizeof(Exec) (72). Most of an Exec repeats from run to run: its node,
// connection, command, script, reply kind and number of keys are stored once as a "shape" and
// referred to by id; the sequence number, the operation id and the node-local time (as an offset
// from the true time) take 32 bits each. A value that does not fit its 32 bits is kept exactly in
// a side list, so every run reads back as it was stored. A small history (an exploration's seed:
// a few thousand runs) keeps plain records, which cost nothing to read.
//
//   ExecColumn execs;
//   execs.push_back(e);
//   Exec x = execs[i];                 // decoded: equal to what was pushed
//   for (const Exec& x : execs) {}     // the iterator yields decoded copies
class ExecColumn {
 public:
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Exec;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Exec;

    const_iterator() = default;
    const_iterator(const ExecColumn* column, size_t index) : column_(column), index_(index) {}
    Exec operator*() const { return (*column_)[index_]; }
    const_iterator& operator++() { ++index_; return *this; }
    const_iterator operator++(int) { const_iterator old = *this; ++index_; return old; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.index_ == b.index_; }
    // The run's position in its column.
    size_t index() const { return index_; }

   private:
    const ExecColumn* column_ = nullptr;
    size_t index_ = 0;
  };

  // Runs stored as plain records before the column packs them all.
  static constexpr size_t kPackAfter = 65'536;

  // `pack_after`: the number of runs kept plain (tests use 0 to pack from the start).
  ExecColumn() = default;
  explicit ExecColumn(size_t pack_after) : pack_after_(pack_after) {}
  size_t size() const { return packed() ? runs_.size() : plain_.size(); }
  bool empty() const { return size() == 0; }
  bool packed() const { return !runs_.empty(); }
  // REQUIRES: index < size(). Plain records are read in place (a caller reading one field loads
  // only that one); packed ones are decoded.
  Exec operator[](size_t index) const { return packed() ? unpack(index) : plain_[index]; }
  void push_back(const Exec& exec);
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size()); }
  // The number of distinct shapes stored (for tests and measurements).
  size_t shapes() const { return shapes_.size(); }

 private:
  struct Packed {
    TimeUs t = 0;
    int64_t reply_int = 0;
    uint32_t line = 0;
    uint32_t shape = 0;       // index into shapes_
    uint32_t keys_begin = 0;
    uint32_t seq = 0;         // kWide: in wide_seq_
    uint32_t op_id = 0;       // kNarrowAbsent: kAbsent; kWide: in wide_op_
    int32_t local_delta_ms = 0;  // local_ms − t / 1000; kDeltaAbsent: kAbsent; kDeltaWide: in wide_local_
  };
  struct Shape {
    Sym node = kNoSym, conn = kNoSym, command = kNoSym, script = kNoSym;
    uint32_t keys_count = 0;
    ReplyKind reply = ReplyKind::kNil;
    bool operator==(const Shape&) const = default;
  };
  struct ShapeHash {
    size_t operator()(const Shape& s) const;
  };
  static constexpr uint32_t kWide = UINT32_MAX;
  static constexpr uint32_t kNarrowAbsent = UINT32_MAX - 1;  // op_id only
  static constexpr int32_t kDeltaAbsent = INT32_MIN;
  static constexpr int32_t kDeltaWide = INT32_MIN + 1;
  // A value by run index; runs are appended in index order, so each list is sorted.
  using WideList = std::vector<std::pair<uint64_t, int64_t>>;
  static int64_t wide(const WideList& list, uint64_t index);

  void pack(const Exec& exec);
  Exec unpack(size_t index) const;

  size_t pack_after_ = kPackAfter;
  Column<Exec> plain_;  // until more than pack_after_ runs were pushed; then empty
  Column<Packed> runs_;
  std::vector<Shape> shapes_;
  std::unordered_map<Shape, uint32_t, ShapeHash> shape_ids_;  // lookup only, never iterated
  // The last shape (+ 1) of each connection, by its Sym: a connection's runs mostly repeat it.
  std::vector<uint32_t> last_shape_of_conn_;
  WideList wide_seq_, wide_op_, wide_local_;
};

struct Expire {
  TimeUs t = 0;
  Sym node = kNoSym, key = kNoSym;
  int64_t local_ms = kAbsent;
  uint32_t line = 0;
};

// A command that blocked its connection (a BLPOP waiting for a push), recorded when it blocked
// (an exec with "blocked": true and no reply). Its answer, if it came, is an exec of its own.
struct Blocked {
  TimeUs t = 0;
  Sym node = kNoSym, conn = kNoSym, command = kNoSym;
  int64_t op_id = kAbsent;
  uint32_t line = 0;
};

struct DataLoss {
  TimeUs t = 0;
  Sym node = kNoSym, reason = kNoSym;
  uint32_t keys_begin = 0, keys_count = 0;
  uint32_t line = 0;
};

// A key's value after a script ran. `members` holds list elements (in order), zset members (in
// score order), set members, or hash fields; `values` holds hash values / zset scores as text
// (parallel to members), empty for lists and sets.
struct StateRecord {
  TimeUs t = 0;
  Sym node = kNoSym, key = kNoSym, type = kNoSym;  // type kNoSym: the key does not exist
  int64_t seq = kAbsent;
  std::vector<Sym> members;
  std::vector<Sym> values;
  int64_t expire_at_ms = -1;  // the key's expiry in node-local ms; -1 none (or not recorded)
  uint32_t line = 0;
};

struct NodeEvent {
  TimeUs t = 0;
  Sym node = kNoSym, event = kNoSym;
  uint32_t line = 0;
};

enum class FaultPhase : uint8_t { kStart, kEnd, kInstant };

// One fault event. Numeric params are kept (duration_ms, jump_ms, ...), others dropped.
struct FaultEvent {
  TimeUs t = 0;
  int64_t fault = 0;
  Sym kind = kNoSym, target = kNoSym;
  std::optional<FaultKind> known;  // `kind` as one of lockstep's kinds (another tool's may be none)
  FaultPhase phase = FaultPhase::kInstant;
  std::vector<std::pair<Sym, int64_t>> params;
  uint32_t line = 0;

  bool is(FaultKind k) const { return known == k; }
  bool is_clock() const { return known.has_value() && is_clock_fault(*known); }

  // Returns the numeric parameter `name`, or kAbsent.
  int64_t param(const class SymbolTable& syms, std::string_view name) const;
};

// How a symbol reads as a run's command and as its script name, for run_grant (checker/check.h):
// worked out once per symbol (prepare_grant_rules) instead of by string compares on every run.
struct GrantRule {
  enum class Command : uint8_t { kOther, kSetLike, kScript };  // SET/SETNX; EVAL, FCALL and kin
  enum class Script : uint8_t { kUnreadable, kNever, kNil, kInt, kAcquire };
  int64_t value = 0;  // kInt: the reply that grants
  Command command = Command::kOther;
  Script script = Script::kUnreadable;
};

// The whole history. Vectors are in file order (non-decreasing t).
struct History {
  std::string source;  // file name or "<memory>", for messages
  HistoryHeader header;
  SymbolTable syms;
  Column<Operation> ops;
  Column<Hold> holds;
  std::vector<Write> writes;
  ExecColumn execs;
  std::vector<Expire> expires;
  std::vector<Blocked> blocked;  // not in `execs`: a blocked command has run without an effect yet
  std::vector<DataLoss> data_losses;
  // `publish` and `deliver` events are checked for their fields and counted, not kept: no
  // property reads them, and a herd of waiters logs millions (9 M of B2's 30 M lines).
  uint64_t publish_events = 0;
  uint64_t deliver_events = 0;
  std::vector<StateRecord> states;
  std::vector<NodeEvent> node_events;
  std::vector<FaultEvent> faults;
  std::vector<Sym> key_pool;
  bool complete = false;  // the footer was present with complete: true
  // The file ended inside its last line, which did not parse (a file cut short: a run killed
  // while writing, a full disk): that line's number, left out; 0 when none. Such a history has no
  // footer, so it is read as incomplete.
  uint32_t cut_line = 0;
  TimeUs end_t = 0;       // the footer's t, or the last event's t
  uint64_t lines = 0;

  // The index of the operation with `id` in ops, or -1.
  int64_t op_index(int64_t id) const;
  // Records that ops[index] has `id`. REQUIRES: id not yet recorded.
  void index_op(int64_t id, uint32_t index);
  std::string_view str(Sym sym) const { return syms.name(sym); }
  // The client (process) name of a thread "c1/t0" → "c1".
  std::string_view client_of(Sym thread) const;

  // id → index + 1 in ops (0: none) for small ids, the usual case (ids count from 1); larger or
  // negative ids go to op_by_id. Lookup only.
  std::vector<uint32_t> op_dense;
  std::unordered_map<int64_t, uint32_t> op_by_id;

  // Each symbol's GrantRule, by symbol (prepare_grant_rules, when the history is complete).
  // Symbols beyond its end, and a history never prepared, are read afresh by run_grant.
  std::vector<GrantRule> grant_rules;
};

// Whether the link fault `f` loses messages from process `from` to process `to`, read from its
// target as lockstep writes it: a partition's groups ("a,b | c"; one way "a -> c"), a drop's or
// delay's "all", a process, "a->b" or "a<->b". `surely`: only a partition or a drop of every
// message (rate_ppm 1000000) counts; else also a drop of some and a delay. Another tool's targets
// read as neither.
bool link_fault_cuts(const History& h, const FaultEvent& f, std::string_view from, std::string_view to, bool surely);

// How a clock_offset fault set its target's clock: "15000 ms ahead of true time", "20 ms behind
// true time", "to true time".
std::string clock_offset_phrase(int64_t offset_ms);

// Formats a true time in seconds with millisecond precision: "40.002 s".
std::string format_time(TimeUs t);

// format_time(t), with microseconds ("40.002417 s") when t differs from one of `others` but would
// read the same: for a sentence that says one time is after another.
std::string format_time_beside(TimeUs t, std::initializer_list<TimeUs> others);

// A call's span, "0.001 s → 0.002 s": both ends with microseconds when they read alike (a history
// of events microseconds apart), else at the millisecond.
std::string format_span(TimeUs invoke_t, TimeUs complete_t);

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_HISTORY_H_
