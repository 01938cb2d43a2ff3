// Recorder: the typed door through which the simulation writes its history.
//
// One method per event type of docs/history-format.md, each writing exactly the fields that page
// names, in a fixed order. The recorder assigns operation ids. A recorder without a writer
// records nothing (benchmarks that measure the simulation alone).
#ifndef LOCKSTEP_SIM_HISTORY_RECORDER_H_
#define LOCKSTEP_SIM_HISTORY_RECORDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/time.h"
#include "sim/history/events.h"
#include "sim/history/writer.h"
#include "sim/redis/node.h"
#include "sim/redis/reply.h"

namespace lockstep::history {

struct Invoke {
  std::string_view thread;
  std::string_view owner;
  std::string_view lock;
  OpKind op = OpKind::kLock;
  LockMode mode = LockMode::kExclusive;
  int64_t lease_ms = kAbsent;
  int64_t wait_ms = kAbsent;
  int64_t watchdog_ms = kAbsent;
  bool no_lease = false;  // no lease at all: "lease_ms": null (the key never expires by itself)
};

struct Completion {
  Outcome outcome = Outcome::kOk;
  int8_t acquired = -1;  // -1 absent, 0 false, 1 true
  int8_t released = -1;
  int8_t renewed = -1;
  int64_t count = kAbsent;
  int64_t token = kAbsent;
  int64_t validity_ms = kAbsent;
  std::string_view error;  // written when outcome is fail or unknown and non-empty
};

struct Exec {
  std::string_view node;
  uint64_t seq = 0;
  int64_t local_ms = 0;
  std::string_view conn;
  std::span<const std::string> argv;  // the command as sent
  const char* script = nullptr;       // name, for EVAL/EVALSHA
  int64_t op = -1;
  const redis::Reply* reply = nullptr;  // null while a reply is pending (not recorded then)
  // The command blocked its connection (a BLPOP with nothing to pop): recorded when it blocks,
  // as "blocked": true without a reply; its answer, when it comes, is recorded as an exec again.
  bool blocked = false;
};

// How an exec event writes a command's argv: EVAL and EVALSHA as `keys` (numkeys of them, as far
// as they go) and `args` (ARGV); any other command as `args` (everything after its name).
struct ExecArgs {
  bool script = false;
  std::span<const std::string> keys;  // script commands only
  std::span<const std::string> args;
};
ExecArgs split_exec_args(std::span<const std::string> argv);
// The command's name as an exec event writes it (ASCII letters upper-cased), into `out`.
// REQUIRES: !argv.empty().
void exec_command(std::span<const std::string> argv, std::string& out);

// Told of every operation as it is invoked and completed, recorded or not (event-triggered
// faults watch them).
class OpListener {
 public:
  virtual ~OpListener() = default;
  virtual void op_invoked(int64_t id, const Invoke& e) = 0;
  virtual void op_completed(int64_t id, const Completion& c) = 0;
};

// Where a recorder's events go instead of a Writer's text: a run that checks its own history
// hands them to the checkers as they happen (harness/scenario/direct_history.h), with nothing
// written or parsed. The frequent events come typed, exactly as the recorder was given them; the
// header and the rare events (data_loss, node, fault, end) come as the JSON line a Writer would
// have written. Either way the receiver must read them as the text's reader would.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void header(std::string_view json) = 0;
  virtual void line(TimeUs t, std::string_view json) = 0;
  virtual void invoke(TimeUs t, int64_t id, const Invoke& e) = 0;
  virtual void complete(TimeUs t, int64_t id, const Completion& c) = 0;
  virtual void hold_begin(TimeUs t, std::string_view thread, std::string_view owner,
                          std::string_view lock, LockMode mode, int64_t op, int64_t token) = 0;
  virtual void hold_end(TimeUs t, std::string_view thread, std::string_view lock, HoldEnd reason,
                        LockMode mode) = 0;
  virtual void write(TimeUs t, std::string_view thread, std::string_view owner,
                     std::string_view lock, std::string_view resource, int64_t token, bool fenced,
                     bool accepted) = 0;
  virtual void exec(TimeUs t, const Exec& e) = 0;
  virtual void expire(TimeUs t, std::string_view node, std::string_view key, int64_t local_ms) = 0;
  virtual void publish(TimeUs t, std::string_view node, std::string_view channel,
                       std::string_view message, int64_t receivers) = 0;
  virtual void deliver(TimeUs t, std::string_view thread, std::string_view channel,
                       std::string_view message) = 0;
  virtual void state(TimeUs t, std::string_view node, uint64_t seq, std::string_view key,
                     const std::optional<redis::KeyDump>& value) = 0;
};

class Recorder {
 public:
  explicit Recorder(Writer* writer) : writer_(writer) {}
  explicit Recorder(EventSink* sink);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  void set_listener(OpListener* listener) { listener_ = listener; }

  bool enabled() const { return writer_ != nullptr || sink_ != nullptr; }
  // Where the header line goes: the text's writer, or one whose line header_done() hands to the
  // sink. Null when not recording. The header comes before any event.
  Writer* header_writer() { return line_writer(); }
  void header_done();
  // The text's writer; null when recording to a sink (or not at all).
  Writer* writer() const { return writer_; }

  // Returns the new operation's id (ids count from 1 even when not recording).
  int64_t invoke(TimeUs t, const Invoke& e);
  void complete(TimeUs t, int64_t id, const Completion& c);
  void hold_begin(TimeUs t, std::string_view thread, std::string_view owner,
                  std::string_view lock, LockMode mode, int64_t op, int64_t token);
  // `mode` is written for read and write holds only: a thread that holds a read-write lock in
  // both modes (write→read reentry) must say which hold ends (docs/history-format.md).
  void hold_end(TimeUs t, std::string_view thread, std::string_view lock, HoldEnd reason,
                LockMode mode = LockMode::kExclusive);
  void write(TimeUs t, std::string_view thread, std::string_view owner, std::string_view lock,
             std::string_view resource, int64_t token, bool fenced, bool accepted);
  void exec(TimeUs t, const Exec& e);
  void expire(TimeUs t, std::string_view node, std::string_view key, int64_t local_ms);
  void data_loss(TimeUs t, std::string_view node, std::string_view reason,
                 std::span<const std::string> keys);
  void publish(TimeUs t, std::string_view node, std::string_view channel,
               std::string_view message, int64_t receivers);
  void deliver(TimeUs t, std::string_view thread, std::string_view channel,
               std::string_view message);
  void state(TimeUs t, std::string_view node, uint64_t seq, std::string_view key,
             const std::optional<redis::KeyDump>& value);
  void node_event(TimeUs t, std::string_view node, std::string_view event);
  // `params_json` is a JSON object's text (or empty for none).
  void fault(TimeUs t, int64_t fault_id, std::string_view kind, std::string_view target,
             std::string_view phase, std::string_view params_json);
  void end(TimeUs t, bool complete);

  int64_t ops_invoked() const { return next_op_ - 1; }

 private:
  // The writer for a rare event's line: the text's, or with a sink a scratch one whose line
  // line_done() then hands over. Null when not recording.
  Writer* line_writer();
  void line_done(TimeUs t);
  // The scratch writer's one line, without its newline; cleared by the next line_writer() use.
  std::string_view scratch_line();

  Writer* writer_ = nullptr;
  EventSink* sink_ = nullptr;
  std::unique_ptr<Writer> scratch_;
  OpListener* listener_ = nullptr;
  int64_t next_op_ = 1;
};

// Appends a reply as history JSON: null for nil, numbers, strings, arrays, {"ok": ..} for a
// status, {"err": ..} for an error.
void append_reply_json(std::string& out, const redis::Reply& reply);
// Appends a key's value as history JSON ({"type", "strings", "expire_at_ms"}) or null.
void append_key_json(std::string& out, const std::optional<redis::KeyDump>& value);

}  // namespace lockstep::history

#endif  // LOCKSTEP_SIM_HISTORY_RECORDER_H_
