#include "sim/history/recorder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "sim/core/assert.h"
#include "sim/history/json_text.h"

namespace lockstep::history {
namespace {

void maybe_bool(Writer& w, const Writer::Key& key, int8_t v) {
  if (v >= 0) w.boolean(key, v == 1);
}

void maybe_num(Writer& w, const Writer::Key& key, int64_t v) {
  if (v != kAbsent) w.num(key, v);
}

bool is_script_command(std::string_view cmd) {
  auto eq = [&](std::string_view want) {
    return cmd.size() == want.size() &&
           std::equal(cmd.begin(), cmd.end(), want.begin(), [](char a, char b) {
             return std::toupper(static_cast<unsigned char>(a)) == b;
           });
  };
  return eq("EVAL") || eq("EVALSHA");
}

// numkeys of an EVAL/EVALSHA argv, clamped to what is there (bad input gets Redis's error reply
// from the node; the history still records what was sent).
size_t script_numkeys(std::span<const std::string> argv) {
  if (argv.size() < 3) return 0;
  char* end = nullptr;
  const long long n = std::strtoll(argv[2].c_str(), &end, 10);
  if (end == argv[2].c_str() || *end != '\0' || n < 0) return 0;
  return std::min(static_cast<size_t>(n), argv.size() - 3);
}

}  // namespace

ExecArgs split_exec_args(std::span<const std::string> argv) {
  LS_ASSERT(!argv.empty());
  ExecArgs out;
  out.script = is_script_command(argv[0]);
  if (!out.script) {
    out.args = argv.subspan(1);
    return out;
  }
  const size_t n = script_numkeys(argv);
  out.keys = argv.subspan(std::min<size_t>(3, argv.size()), n);
  out.args = argv.subspan(std::min<size_t>(3 + n, argv.size()));
  return out;
}

void exec_command(std::span<const std::string> argv, std::string& out) {
  LS_ASSERT(!argv.empty());
  out.assign(argv[0]);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');  // std::toupper in the C locale
  }
}

void append_reply_json(std::string& out, const redis::Reply& r) {
  using T = redis::Reply::Type;
  switch (r.type) {
    case T::kNil:
    case T::kNilArray:
      out += "null";
      return;
    case T::kInteger:
      append_json_int(out, r.integer);
      return;
    case T::kBulk:
      append_json_string(out, r.str);
      return;
    case T::kStatus:
      out += "{\"ok\": ";
      append_json_string(out, r.str);
      out += '}';
      return;
    case T::kError:
      out += "{\"err\": ";
      append_json_string(out, r.str);
      out += '}';
      return;
    case T::kArray:
      out += '[';
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i > 0) out += ", ";
        append_reply_json(out, r.elements[i]);
      }
      out += ']';
      return;
    case T::kMap:
    case T::kSet:
    case T::kDouble:
    case T::kBool:
    case T::kVerbatim:
    case T::kBigNumber:
    case T::kPush:
      // The simulator's nodes reply in RESP2 shapes (NodeConfig::typed_replies is off); a typed
      // reply is recorded as a RESP2 client would read it.
      append_reply_json(out, redis::to_resp2(r));
      return;
  }
  LS_ASSERT(false);
}

void append_key_json(std::string& out, const std::optional<redis::KeyDump>& value) {
  if (!value.has_value()) {
    out += "null";
    return;
  }
  out += "{\"type\": ";
  append_json_string(out, value->type);
  out += ", \"strings\": [";
  for (size_t i = 0; i < value->strings.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, value->strings[i]);
  }
  out += "], \"expire_at_ms\": ";
  append_json_int(out, value->expire_at_ms);
  out += '}';
}

Recorder::Recorder(EventSink* sink) : sink_(sink) { LS_ASSERT(sink != nullptr); }
Recorder::~Recorder() = default;

Writer* Recorder::line_writer() {
  if (writer_ != nullptr) return writer_;
  if (sink_ == nullptr) return nullptr;
  if (scratch_ == nullptr) scratch_ = std::make_unique<Writer>(Writer::Mode::kMemory);
  return scratch_.get();
}

std::string_view Recorder::scratch_line() {
  std::string_view text = scratch_->text();
  LS_ASSERT(!text.empty() && text.back() == '\n');
  text.remove_suffix(1);
  return text;
}

void Recorder::line_done(TimeUs t) {
  if (sink_ == nullptr) return;
  sink_->line(t, scratch_line());
  scratch_->clear();
}

void Recorder::header_done() {
  if (sink_ == nullptr) return;
  sink_->header(scratch_line());
  scratch_->clear();
}

int64_t Recorder::invoke(TimeUs t, const Invoke& e) {
  const int64_t id = next_op_++;
  LS_ASSERT(id > 0);
  if (listener_ != nullptr) listener_->op_invoked(id, e);
  if (sink_ != nullptr) {
    sink_->invoke(t, id, e);
    return id;
  }
  if (writer_ == nullptr) return id;
  Writer& w = writer_->begin(t, "invoke");
  w.num("id", id).str("thread", e.thread).str("owner", e.owner).str("lock", e.lock);
  w.str("op", to_string(e.op)).str("mode", to_string(e.mode));
  if (e.no_lease) {
    w.null("lease_ms");
  } else {
    maybe_num(w, "lease_ms", e.lease_ms);
  }
  maybe_num(w, "wait_ms", e.wait_ms);
  maybe_num(w, "watchdog_ms", e.watchdog_ms);
  w.end();
  return id;
}

void Recorder::complete(TimeUs t, int64_t id, const Completion& c) {
  LS_ASSERT(id > 0 && id < next_op_);
  if (listener_ != nullptr) listener_->op_completed(id, c);
  if (sink_ != nullptr) return sink_->complete(t, id, c);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "complete");
  w.num("id", id).str("outcome", to_string(c.outcome));
  maybe_bool(w, "acquired", c.acquired);
  maybe_bool(w, "released", c.released);
  maybe_bool(w, "renewed", c.renewed);
  maybe_num(w, "count", c.count);
  maybe_num(w, "token", c.token);
  maybe_num(w, "validity_ms", c.validity_ms);
  if (c.outcome != Outcome::kOk && !c.error.empty()) w.str("error", c.error);
  w.end();
}

void Recorder::hold_begin(TimeUs t, std::string_view thread, std::string_view owner,
                          std::string_view lock, LockMode mode, int64_t op, int64_t token) {
  if (sink_ != nullptr) return sink_->hold_begin(t, thread, owner, lock, mode, op, token);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "hold_begin");
  w.str("thread", thread).str("owner", owner).str("lock", lock).str("mode", to_string(mode));
  w.num("op", op);
  maybe_num(w, "token", token);
  w.end();
}

void Recorder::hold_end(TimeUs t, std::string_view thread, std::string_view lock,
                        HoldEnd reason, LockMode mode) {
  if (sink_ != nullptr) return sink_->hold_end(t, thread, lock, reason, mode);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "hold_end");
  w.str("thread", thread).str("lock", lock);
  if (mode != LockMode::kExclusive) w.str("mode", to_string(mode));
  w.str("reason", to_string(reason)).end();
}

void Recorder::write(TimeUs t, std::string_view thread, std::string_view owner,
                     std::string_view lock, std::string_view resource, int64_t token,
                     bool fenced, bool accepted) {
  if (sink_ != nullptr) return sink_->write(t, thread, owner, lock, resource, token, fenced, accepted);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "write");
  w.str("thread", thread).str("owner", owner).str("lock", lock).str("resource", resource);
  maybe_num(w, "token", token);
  w.boolean("fenced", fenced).boolean("accepted", accepted).end();
}

void Recorder::exec(TimeUs t, const Exec& e) {
  LS_ASSERT(!e.argv.empty());
  if (sink_ != nullptr) return sink_->exec(t, e);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "exec");
  w.str("node", e.node).num("seq", static_cast<int64_t>(e.seq)).num("local_ms", e.local_ms);
  std::string command;
  exec_command(e.argv, command);
  w.str("conn", e.conn).str("command", command);
  const ExecArgs split = split_exec_args(e.argv);
  if (split.script && e.script != nullptr) w.str("script", e.script);
  if (e.op > 0) w.num("op", e.op);
  if (split.script) w.strings("keys", split.keys);
  w.strings("args", split.args);
  if (e.blocked) {
    w.boolean("blocked", true).end();
    return;
  }
  std::string& out = w.value("reply");
  if (e.reply != nullptr) {
    append_reply_json(out, *e.reply);
  } else {
    out += "null";
  }
  w.end();
}

void Recorder::expire(TimeUs t, std::string_view node, std::string_view key, int64_t local_ms) {
  if (sink_ != nullptr) return sink_->expire(t, node, key, local_ms);
  if (writer_ == nullptr) return;
  writer_->begin(t, "expire").str("node", node).str("key", key).num("local_ms", local_ms).end();
}

void Recorder::data_loss(TimeUs t, std::string_view node, std::string_view reason,
                         std::span<const std::string> keys) {
  Writer* w = line_writer();
  if (w == nullptr) return;
  w->begin(t, "data_loss").str("node", node).str("reason", reason).strings("keys", keys).end();
  line_done(t);
}

void Recorder::publish(TimeUs t, std::string_view node, std::string_view channel,
                       std::string_view message, int64_t receivers) {
  if (sink_ != nullptr) return sink_->publish(t, node, channel, message, receivers);
  if (writer_ == nullptr) return;
  writer_->begin(t, "publish")
      .str("node", node)
      .str("channel", channel)
      .str("message", message)
      .num("receivers", receivers)
      .end();
}

void Recorder::deliver(TimeUs t, std::string_view thread, std::string_view channel,
                       std::string_view message) {
  if (sink_ != nullptr) return sink_->deliver(t, thread, channel, message);
  if (writer_ == nullptr) return;
  writer_->begin(t, "deliver").str("thread", thread).str("channel", channel).str("message", message).end();
}

void Recorder::state(TimeUs t, std::string_view node, uint64_t seq, std::string_view key,
                     const std::optional<redis::KeyDump>& value) {
  if (sink_ != nullptr) return sink_->state(t, node, seq, key, value);
  if (writer_ == nullptr) return;
  Writer& w = writer_->begin(t, "state");
  w.str("node", node).num("seq", static_cast<int64_t>(seq)).str("key", key);
  append_key_json(w.value("value"), value);
  w.end();
}

void Recorder::node_event(TimeUs t, std::string_view node, std::string_view event) {
  Writer* w = line_writer();
  if (w == nullptr) return;
  w->begin(t, "node").str("node", node).str("event", event).end();
  line_done(t);
}

void Recorder::fault(TimeUs t, int64_t fault_id, std::string_view kind, std::string_view target,
                     std::string_view phase, std::string_view params_json) {
  LS_ASSERT(fault_id >= 0);
  Writer* line = line_writer();
  if (line == nullptr) return;
  Writer& w = line->begin(t, "fault");
  w.num("fault", fault_id).str("kind", kind).str("target", target).str("phase", phase);
  if (!params_json.empty()) w.value("params") += params_json;
  w.end();
  line_done(t);
}

void Recorder::end(TimeUs t, bool complete) {
  Writer* w = line_writer();
  if (w == nullptr) return;
  w->begin(t, "end").boolean("complete", complete).end();
  line_done(t);
}

}  // namespace lockstep::history
