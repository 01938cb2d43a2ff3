#include "harness/scenario/direct_history.h"

#include <utility>

#include "sim/core/assert.h"
#include "sim/history/json_text.h"
#include "sim/redis/reply.h"

namespace lockstep::scenario {
namespace {

namespace F = checker::fields;
using checker::ReplyKind;
using redis::Reply;

// Bytes of an event line besides its strings and replies: the keys, punctuation and numbers.
constexpr uint64_t kEventBytes = 512;
// Each string's quotes and separator; each byte becomes at most 6 (\u00XX).
constexpr uint64_t kStringBytes = 8;
constexpr uint64_t kEscapedBytes = 6;

// At least the length of history::append_reply_json(r). REQUIRES: redis::is_resp2(r).
uint64_t reply_bytes(const Reply& r) {
  uint64_t n = kStringBytes + 24 + kEscapedBytes * r.str.size();
  for (const Reply& e : r.elements) n += reply_bytes(e) + 2;
  return n;
}

// What the reader makes of the reply's JSON (checker/history_line.cc, get_reply).
// REQUIRES: redis::is_resp2(r).
void reply_fields(const Reply& r, F::LineFields& f) {
  f.reply_int = 0;
  switch (r.type) {
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      f.reply = ReplyKind::kNil;
      return;
    case Reply::Type::kInteger:
      f.reply = ReplyKind::kInt;
      f.reply_int = r.integer;
      return;
    case Reply::Type::kBulk:
      f.reply = ReplyKind::kString;
      return;
    case Reply::Type::kStatus:
      f.reply = ReplyKind::kStatus;
      return;
    case Reply::Type::kError:
      // Reading back changes no ASCII prefix.
      f.reply = r.str.starts_with("NOSCRIPT") ? ReplyKind::kNoScript : ReplyKind::kError;
      return;
    case Reply::Type::kArray:
      // The first element, when an integer, is kept (a fenced lock's {-1, token}).
      f.reply = ReplyKind::kArray;
      if (!r.elements.empty() && r.elements[0].type == Reply::Type::kInteger) f.reply_int = r.elements[0].integer;
      return;
    default:
      LS_ASSERT(false);
  }
}

}  // namespace

DirectHistory::DirectHistory(std::string source) : source_(source), builder_(std::move(source)) {}

void DirectHistory::fail(const Status& s) {
  LS_ASSERT(!s.ok());
  if (!status_.ok()) return;
  status_ = Status::error(source_ + ":" + std::to_string(builder_.line) + ": " + s.message());
}

bool DirectHistory::next_line() {
  if (!status_.ok()) return false;
  if (builder_.line == UINT32_MAX) {
    status_ = Status::error(source_ + ":" + std::to_string(builder_.line) + ": too many lines");
    return false;
  }
  ++builder_.line;
  return true;
}

void DirectHistory::header(std::string_view json) {
  LS_ASSERT(!have_header_);
  have_header_ = true;
  bytes_bound_ += json.size() + 1;
  if (!next_line()) return;
  if (Status s = builder_.header(json); !s.ok()) fail(s);
}

void DirectHistory::line(TimeUs t, std::string_view json) {
  LS_ASSERT(have_header_);
  (void)t;  // the line says its time
  bytes_bound_ += json.size() + 1;
  if (!next_line()) return;
  if (Status s = builder_.event_line(json); !s.ok()) fail(s);
}

bool DirectHistory::begin(TimeUs t, std::string_view type) {
  LS_ASSERT(have_header_);
  bytes_bound_ += kEventBytes;
  if (!status_.ok()) return false;
  scratch_.clear();
  fields_.reset();
  fields_.present = F::kT | F::kType;
  fields_.t = t;
  fields_.type = type;
  return true;
}

void DirectHistory::done() {
  if (!next_line()) return;
  if (Status s = builder_.event(fields_); !s.ok()) fail(s);
}

void DirectHistory::count(std::string_view text) { bytes_bound_ += kStringBytes + kEscapedBytes * text.size(); }

std::string_view DirectHistory::str(std::string_view text) {
  count(text);
  std::string read_back;
  if (!history::json_read_back(text, read_back)) return text;
  scratch_.push_back(std::move(read_back));
  return scratch_.back();
}

void DirectHistory::str(uint64_t bit, std::string_view& field, std::string_view text) {
  fields_.present |= bit;
  field = str(text);
}

void DirectHistory::num(uint64_t bit, int64_t& field, int64_t value) {
  fields_.present |= bit;
  field = value;
}

void DirectHistory::maybe_num(uint64_t bit, int64_t& field, int64_t value) {
  if (value != history::kAbsent) num(bit, field, value);
}

void DirectHistory::flag(uint64_t bit, bool& field, int8_t value) {
  if (value < 0) return;
  fields_.present |= bit;
  field = value == 1;
}

// Each handler below sets the fields history::Recorder writes for the event, as the reader
// parses them (checker/history_line.cc).

void DirectHistory::invoke(TimeUs t, int64_t id, const history::Invoke& e) {
  if (!begin(t, "invoke")) return;
  F::LineFields& f = fields_;
  num(F::kId, f.id, id);
  str(F::kThread, f.thread, e.thread);
  str(F::kOwner, f.owner, e.owner);
  str(F::kLock, f.lock, e.lock);
  str(F::kOpStr, f.op_str, history::to_string(e.op));
  str(F::kMode, f.mode, history::to_string(e.mode));
  if (e.no_lease) {
    num(F::kLease, f.lease_ms, checker::kNoLeaseMs);  // "lease_ms": null
  } else {
    maybe_num(F::kLease, f.lease_ms, e.lease_ms);
  }
  maybe_num(F::kWait, f.wait_ms, e.wait_ms);
  maybe_num(F::kWatchdog, f.watchdog_ms, e.watchdog_ms);
  done();
}

void DirectHistory::complete(TimeUs t, int64_t id, const history::Completion& c) {
  if (!begin(t, "complete")) return;
  F::LineFields& f = fields_;
  num(F::kId, f.id, id);
  str(F::kOutcome, f.outcome, history::to_string(c.outcome));
  flag(F::kAcquired, f.acquired, c.acquired);
  flag(F::kReleased, f.released, c.released);
  flag(F::kRenewed, f.renewed, c.renewed);
  maybe_num(F::kCount, f.count, c.count);
  maybe_num(F::kToken, f.token, c.token);
  maybe_num(F::kValidity, f.validity_ms, c.validity_ms);
  if (c.outcome != history::Outcome::kOk && !c.error.empty()) str(F::kError, f.error, c.error);
  done();
}

void DirectHistory::hold_begin(TimeUs t, std::string_view thread, std::string_view owner,
                               std::string_view lock, history::LockMode mode, int64_t op,
                               int64_t token) {
  if (!begin(t, "hold_begin")) return;
  F::LineFields& f = fields_;
  str(F::kThread, f.thread, thread);
  str(F::kOwner, f.owner, owner);
  str(F::kLock, f.lock, lock);
  str(F::kMode, f.mode, history::to_string(mode));
  num(F::kOpInt, f.op_int, op);
  maybe_num(F::kToken, f.token, token);
  done();
}

void DirectHistory::hold_end(TimeUs t, std::string_view thread, std::string_view lock,
                             history::HoldEnd reason, history::LockMode mode) {
  if (!begin(t, "hold_end")) return;
  F::LineFields& f = fields_;
  str(F::kThread, f.thread, thread);
  str(F::kLock, f.lock, lock);
  if (mode != history::LockMode::kExclusive) str(F::kMode, f.mode, history::to_string(mode));
  str(F::kReason, f.reason, history::to_string(reason));
  done();
}

void DirectHistory::write(TimeUs t, std::string_view thread, std::string_view owner,
                          std::string_view lock, std::string_view resource, int64_t token,
                          bool fenced, bool accepted) {
  if (!begin(t, "write")) return;
  F::LineFields& f = fields_;
  str(F::kThread, f.thread, thread);
  str(F::kOwner, f.owner, owner);
  str(F::kLock, f.lock, lock);
  str(F::kResource, f.resource, resource);
  maybe_num(F::kToken, f.token, token);
  flag(F::kFenced, f.fenced, fenced ? 1 : 0);
  flag(F::kAccepted, f.accepted, accepted ? 1 : 0);
  done();
}

void DirectHistory::exec(TimeUs t, const history::Exec& e) {
  if (!begin(t, "exec")) return;
  F::LineFields& f = fields_;
  str(F::kNode, f.node, e.node);
  num(F::kSeq, f.seq, static_cast<int64_t>(e.seq));
  num(F::kLocal, f.local_ms, e.local_ms);
  str(F::kConn, f.conn, e.conn);
  history::exec_command(e.argv, command_);
  str(F::kCommand, f.command, command_);
  const history::ExecArgs split = history::split_exec_args(e.argv);
  if (split.script && e.script != nullptr) str(F::kScript, f.script, e.script);
  if (e.op > 0) num(F::kOpInt, f.op_int, e.op);
  if (split.script) {
    f.present |= F::kKeys;
    for (const std::string& key : split.keys) f.keys.push_back(str(key));
  }
  // Of `args`, the reader keeps the first (a plain command's key); the rest only count.
  if (!split.args.empty()) {
    f.present |= F::kFirstArg;
    f.first_arg = str(split.args[0]);
    for (const std::string& arg : split.args.subspan(1)) count(arg);
  }
  if (e.blocked) {
    flag(F::kBlocked, f.blocked, 1);
    done();
    return;
  }
  f.present |= F::kReply;
  if (e.reply != nullptr) {
    // The history writes a RESP3 reply as a RESP2 client reads it (append_reply_json).
    std::optional<Reply> resp2;
    if (!redis::is_resp2(*e.reply)) resp2 = redis::to_resp2(*e.reply);
    const Reply& reply = resp2.has_value() ? *resp2 : *e.reply;
    bytes_bound_ += reply_bytes(reply);
    reply_fields(reply, f);
  } else {
    f.reply = ReplyKind::kNil;  // "reply": null
    f.reply_int = 0;
  }
  done();
}

void DirectHistory::expire(TimeUs t, std::string_view node, std::string_view key,
                           int64_t local_ms) {
  if (!begin(t, "expire")) return;
  F::LineFields& f = fields_;
  str(F::kNode, f.node, node);
  str(F::kKey, f.key, key);
  num(F::kLocal, f.local_ms, local_ms);
  done();
}

void DirectHistory::publish(TimeUs t, std::string_view node, std::string_view channel,
                            std::string_view message, int64_t receivers) {
  if (!begin(t, "publish")) return;
  F::LineFields& f = fields_;
  str(F::kNode, f.node, node);
  str(F::kChannel, f.channel, channel);
  str(F::kMessage, f.message, message);
  num(F::kReceivers, f.receivers, receivers);
  done();
}

void DirectHistory::deliver(TimeUs t, std::string_view thread, std::string_view channel,
                            std::string_view message) {
  if (!begin(t, "deliver")) return;
  F::LineFields& f = fields_;
  str(F::kThread, f.thread, thread);
  str(F::kChannel, f.channel, channel);
  str(F::kMessage, f.message, message);
  done();
}

void DirectHistory::state(TimeUs t, std::string_view node, uint64_t seq, std::string_view key,
                          const std::optional<redis::KeyDump>& value) {
  if (!begin(t, "state")) return;
  F::LineFields& f = fields_;
  str(F::kNode, f.node, node);
  num(F::kSeq, f.seq, static_cast<int64_t>(seq));
  str(F::kKey, f.key, key);
  f.present |= F::kValue;
  if (!value.has_value()) {
    f.value_null = true;
  } else {
    f.value_type = str(value->type);
    for (const std::string& s : value->strings) f.members.push_back(str(s));
    f.value_expire_at_ms = value->expire_at_ms;
  }
  done();
}

Result<checker::History> DirectHistory::finish() {
  if (!have_header_) return Status::error(source_ + ": empty history (expected a header line)");
  if (!status_.ok()) return status_;
  if (Status s = builder_.finish(); !s.ok()) {
    return Status::error(source_ + ":" + std::to_string(builder_.line) + ": " + s.message());
  }
  return builder_.take();
}

}  // namespace lockstep::scenario
