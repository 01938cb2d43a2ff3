#include "checker/report/timeline.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include "checker/history_line.h"
#include "checker/report/sampler.h"
#include "sim/core/assert.h"
#include "sim/core/fault_kind.h"

namespace lockstep::report {
namespace {

using json = nlohmann::json;
using checker::ReplyKind;
using checker::fields::LineFields;
namespace f = checker::fields;

// Interns strings; the index is the order of first appearance (deterministic).
class Strings {
 public:
  uint32_t id(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const auto id = static_cast<uint32_t>(list_.size());
    index_.emplace(std::string(s), id);
    list_.emplace_back(s);
    return id;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;  // lookups only; never iterated
  std::vector<std::string> list_;
};

struct Hold {
  uint32_t proc, lock;
  int64_t t0, t1;
  int mode;
  uint32_t end;
  int64_t token, op;
};

struct Op {
  uint32_t proc, lock, kind;
  int64_t t0, t1;
  uint32_t outcome;
  int result;  // acquired / released / renewed: 1, 0, or -1 when the reply says nothing
  int64_t id;
};

struct KeySpan {
  uint32_t proc, lock, key;
  int64_t t0, t1;
  uint32_t end;
  uint32_t holder;
};

struct Marker {
  uint32_t proc;
  int64_t t;
  uint32_t kind, label;
};

struct Exec {
  uint32_t proc;
  int64_t t;
  uint32_t cmd, conn;
  int64_t op;
};

struct Fault {
  int64_t id;
  uint32_t kind;
  std::string target;
  int64_t t0, t1;
  uint32_t params, phase;
};

// A grant on one node, waiting for its operation's hold_begin to become a key lifetime.
struct Grant {
  uint32_t node, key;
  int64_t t;
};

// Does this command's reply mean it took the lock on that node? Scripts (Redisson, RedLock)
// answer nil on success; SET NX answers +OK; SETNX answers 1. A line without a reply reads as nil.
bool granted(const LineFields& e, std::string_view command) {
  const ReplyKind reply = e.has(f::kReply) ? e.reply : ReplyKind::kNil;
  if (command == "EVAL" || command == "EVALSHA") return reply == ReplyKind::kNil;
  if (command == "SET") return reply == ReplyKind::kStatus;
  if (command == "SETNX") return reply == ReplyKind::kInt && e.reply_int == 1;
  return false;
}

// The key an exec acted on: its KEYS[1] for scripts, else the first argument of key commands.
std::string_view exec_key(const LineFields& e, std::string_view command) {
  if (!e.keys.empty()) return e.keys[0];
  static constexpr std::string_view kNoKey[] = {"PUBLISH", "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE",
                                                "WAIT",    "PING",      "SCRIPT",      "INFO",       "ECHO",
                                                "SELECT",  "CLIENT",    "EVAL",        "EVALSHA"};
  for (std::string_view c : kNoKey) {
    if (command == c) return {};
  }
  return e.has(f::kFirstArg) ? e.first_arg : std::string_view();
}

int mode_code(std::string_view m) { return m == "read" ? 1 : m == "write" ? 2 : 0; }

int64_t num(const json& j, const char* key, int64_t dflt) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : dflt;
}

// A field of the line when present, else `dflt`.
int64_t num(const LineFields& e, uint64_t field, int64_t value, int64_t dflt) { return e.has(field) ? value : dflt; }
// A text field of the line when present, else empty (the fields keep the previous line's views).
std::string_view str(const LineFields& e, uint64_t field, std::string_view value) { return e.has(field) ? value : std::string_view(); }

class Builder {
 public:
  Builder(const std::vector<ViolationMark>& violations, const TimelineLimits& limits)
      : violations_(violations),
        limits_(limits),
        windows_(make_windows(violations)),
        holds_(limits.holds, windows_),
        ops_(limits.ops, windows_),
        keys_(limits.keys, windows_),
        markers_(limits.markers, windows_),
        execs_(limits.execs, windows_),
        faults_(limits.faults, windows_) {}

  void header(const json& h) {
    if (h.contains("nodes") && h["nodes"].is_array()) {
      for (const json& n : h["nodes"]) {
        if (n.is_string()) node_proc(n.get<std::string>());
      }
    }
    header_ = h;
  }

  // One event line: its fields, and its text (a fault's parameters are shown as the line has them).
  void event(const LineFields& e, std::string_view line) {
    const int64_t t = num(e, f::kT, e.t, last_t_);
    last_t_ = std::max(last_t_, t);
    const std::string_view type = str(e, f::kType, e.type);
    if (type == "invoke") return invoke(e, t);
    if (type == "complete") return complete(e, t);
    if (type == "hold_begin") return hold_begin(e, t);
    if (type == "hold_end") return hold_end(e, t);
    if (type == "exec") return exec(e, t);
    if (type == "expire") return expire(e, t);
    if (type == "data_loss") return data_loss(e, t);
    if (type == "node") {
      const std::string node(str(e, f::kNode, e.node)), what(str(e, f::kEvent, e.event));
      return marker(node_proc(node), t, "node " + what, node + " " + what);
    }
    if (type == "write") return write(e, t);
    if (type == "fault") return fault(e, t, line);
    if (type == "end") {
      complete_ = e.has(f::kComplete) && e.complete;
      t_end_ = t;
    }
  }

  json finish(bool cut_short) {
    if (t_end_ < 0) t_end_ = std::max<int64_t>(last_t_, num(header_, "duration_ms", 0) * 1000);
    close_open();
    std::vector<int64_t> rows = assign_rows();
    json out;
    out["version"] = 1;
    out["t_end"] = t_end_;
    out["complete"] = complete_ && !cut_short;
    out["rows"] = rows_json_;
    out["locks"] = locks_.list();
    out["holds"] = holds_json(rows);
    out["ops"] = ops_json(rows);
    out["keys"] = keys_json(rows);
    out["markers"] = markers_json(rows);
    out["execs"] = execs_json(rows);
    out["faults"] = faults_json();
    out["violations"] = violations_json();
    out["strs"] = strs_.list();
    out["counts"] = {{"holds", {holds_.kept(), holds_.total()}}, {"ops", {ops_.kept(), ops_.total()}},
                     {"keys", {keys_.kept(), keys_.total()}},    {"markers", {markers_.kept(), markers_.total()}},
                     {"execs", {execs_.kept(), execs_.total()}}, {"faults", {faults_.kept(), faults_.total()}}};
    out["cut_short"] = cut_short;
    return out;
  }

 private:
  static std::vector<TimeWindow> make_windows(const std::vector<ViolationMark>& v) {
    std::vector<TimeWindow> w;
    for (const ViolationMark& m : v) {
      // A margin either side, so the lead-up (the pause, the expiry) is kept too.
      const int64_t span = std::max<int64_t>(m.t1_us - m.t0_us, 1000);
      w.push_back({m.t0_us - span, m.t1_us + span});
    }
    return w;
  }

  uint32_t proc(std::string_view name) { return procs_.id(name); }
  uint32_t node_proc(std::string_view name) {
    const uint32_t p = proc(name);
    if (p >= is_node_.size()) is_node_.resize(p + 1, false);
    is_node_[p] = true;
    return p;
  }
  uint32_t thread_proc(std::string_view name) {
    const uint32_t p = proc(name);
    if (p >= is_thread_.size()) is_thread_.resize(p + 1, false);
    is_thread_[p] = true;
    return p;
  }

  void invoke(const LineFields& e, int64_t t) {
    const int64_t id = num(e, f::kId, e.id, -1);
    Op op{thread_proc(str(e, f::kThread, e.thread)), locks_.id(str(e, f::kLock, e.lock)), strs_.id(str(e, f::kOpStr, e.op_str)), t, -1, strs_.id("pending"), -1, id};
    open_ops_[id] = op;
  }

  void complete(const LineFields& e, int64_t t) {
    const int64_t id = num(e, f::kId, e.id, -1);
    auto it = open_ops_.find(id);
    if (it == open_ops_.end()) return;
    Op op = it->second;
    open_ops_.erase(it);
    op.t1 = t;
    op.outcome = strs_.id(str(e, f::kOutcome, e.outcome));
    if (e.has(f::kAcquired)) op.result = e.acquired ? 1 : 0;
    if (e.has(f::kReleased)) op.result = e.released ? 1 : 0;
    if (e.has(f::kRenewed)) op.result = e.renewed ? 1 : 0;
    if (op.result != 1) grants_.erase(id);
    ops_.add(op, op.t0, op.t1);
  }

  void hold_begin(const LineFields& e, int64_t t) {
    const uint32_t thread = thread_proc(str(e, f::kThread, e.thread));
    const uint32_t lock = locks_.id(str(e, f::kLock, e.lock));
    const int64_t op = num(e, f::kOpInt, e.op_int, -1);
    open_holds_[{thread, lock}] = Hold{thread, lock, t, -1, mode_code(str(e, f::kMode, e.mode)), 0, num(e, f::kToken, e.token, -1), op};
    auto g = grants_.find(op);
    if (g == grants_.end()) return;
    for (const Grant& gr : g->second) {
      const std::pair<uint32_t, uint32_t> k{gr.node, gr.key};
      auto open = open_keys_.find(k);
      if (open != open_keys_.end()) end_key(open, gr.t, "replaced");
      open_keys_[k] = KeySpan{gr.node, lock, gr.key, gr.t, -1, 0, thread};
    }
    grants_.erase(g);
  }

  void hold_end(const LineFields& e, int64_t t) {
    const uint32_t thread = thread_proc(str(e, f::kThread, e.thread));
    const uint32_t lock = locks_.id(str(e, f::kLock, e.lock));
    auto it = open_holds_.find({thread, lock});
    if (it == open_holds_.end()) return;
    Hold h = it->second;
    open_holds_.erase(it);
    h.t1 = t;
    h.end = strs_.id(str(e, f::kReason, e.reason));
    holds_.add(h, h.t0, h.t1);
  }

  void exec(const LineFields& e, int64_t t) {
    const uint32_t node = node_proc(str(e, f::kNode, e.node));
    const int64_t op = num(e, f::kOpInt, e.op_int, -1);
    const std::string_view command = str(e, f::kCommand, e.command), script = str(e, f::kScript, e.script);
    // A command that blocked (a BLPOP waiting for a push) shows where it began; its answer is an
    // exec of its own.
    const bool blocked = e.has(f::kBlocked) && e.blocked;
    const std::string name = std::string(command) + (script.empty() ? "" : " " + std::string(script)) + (blocked ? " (blocked)" : "");
    const uint32_t cmd = strs_.id(name);
    execs_.add(Exec{node, t, cmd, strs_.id(str(e, f::kConn, e.conn)), op}, t, t);
    if (op < 0 || blocked) return;
    const std::string_view key = exec_key(e, command);
    if (key.empty()) return;
    auto o = open_ops_.find(op);
    if (o == open_ops_.end()) return;
    const std::string kind = strs_.list()[o->second.kind];  // a copy: id() below may grow the list
    const uint32_t key_id = strs_.id(key);
    if (kind == "lock" || kind == "try_lock") {
      std::vector<Grant>& g = grants_[op];
      // The latest answer from each node counts (a retried call executes again).
      g.erase(std::remove_if(g.begin(), g.end(), [&](const Grant& x) { return x.node == node && x.key == key_id; }), g.end());
      if (granted(e, command)) g.push_back(Grant{node, key_id, t});
    } else if (kind == "unlock" || kind == "force_unlock") {
      auto open = open_keys_.find({node, key_id});
      // An unlock removes only its own owner's key; a force_unlock removes whoever's.
      if (open != open_keys_.end() && (kind == "force_unlock" || open->second.holder == o->second.proc)) {
        end_key(open, t, "released");
      }
    }
  }

  void end_key(std::map<std::pair<uint32_t, uint32_t>, KeySpan>::iterator it, int64_t t, const std::string& why) {
    KeySpan k = it->second;
    open_keys_.erase(it);
    k.t1 = t;
    k.end = strs_.id(why);
    keys_.add(k, k.t0, k.t1);
  }

  void expire(const LineFields& e, int64_t t) {
    const uint32_t node = node_proc(str(e, f::kNode, e.node));
    const std::string key(str(e, f::kKey, e.key));
    marker(node, t, "expire", "expired " + key + " (node-local " + std::to_string(num(e, f::kLocal, e.local_ms, 0)) + " ms)");
    auto open = open_keys_.find({node, strs_.id(key)});
    if (open != open_keys_.end()) end_key(open, t, "expired");
  }

  void data_loss(const LineFields& e, int64_t t) {
    const uint32_t node = node_proc(str(e, f::kNode, e.node));
    const std::string reason(str(e, f::kReason, e.reason));
    std::string keys;
    for (std::string_view k : e.keys) {
      keys += (keys.empty() ? "" : ", ") + std::string(k);
      auto open = open_keys_.find({node, strs_.id(k)});
      if (open != open_keys_.end()) end_key(open, t, "lost (" + reason + ")");
    }
    if (keys.size() > 200) keys = keys.substr(0, 200) + "...";
    marker(node, t, "data_loss", "lost in " + reason + ": " + keys);
  }

  void write(const LineFields& e, int64_t t) {
    const bool accepted = !e.has(f::kAccepted) || e.accepted;
    std::string label = "write " + std::string(str(e, f::kResource, e.resource));
    if (e.has(f::kToken)) label += " token " + std::to_string(e.token);
    label += accepted ? " accepted" : " REJECTED";
    marker(thread_proc(str(e, f::kThread, e.thread)), t, accepted ? "write" : "write_rejected", label);
  }

  void marker(uint32_t p, int64_t t, const std::string& kind, const std::string& label) {
    markers_.add(Marker{p, t, strs_.id(kind), strs_.id(label)}, t, t);
  }

  void fault(const LineFields& e, int64_t t, std::string_view line) {
    const int64_t id = num(e, f::kFault, e.fault, -1);
    const std::string_view phase = str(e, f::kPhase, e.phase);
    if (phase == "end") {
      auto it = open_faults_.find(id);
      if (it == open_faults_.end()) return;
      Fault f = it->second;
      open_faults_.erase(it);
      f.t1 = t;
      faults_.add(f, f.t0, f.t1);
      return;
    }
    // The parameters as the page shows them (JSON, keys sorted): read from the line's own text,
    // since they may be any JSON (faults are few; the line parser keeps only integer ones).
    std::string params = "{}";
    if (e.has(f::kParams)) {
      const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("params")) params = j["params"].dump();
    }
    Fault span{id, strs_.id(str(e, f::kKind, e.kind)), std::string(str(e, f::kTarget, e.target)), t, t, strs_.id(params),
               strs_.id(phase == "instant" ? "instant" : "window")};
    if (phase == "instant") {
      faults_.add(span, t, t);
    } else {
      open_faults_[id] = span;
    }
  }

  // Everything still open runs to the end of the history.
  void close_open() {
    for (auto& [k, h] : open_holds_) {
      h.t1 = t_end_;
      h.end = strs_.id("end");
      holds_.add(h, h.t0, h.t1);
    }
    for (auto& [id, op] : open_ops_) {
      op.outcome = strs_.id("no reply");
      ops_.add(op, op.t0, -1);
    }
    for (auto& [k, span] : open_keys_) {
      span.t1 = t_end_;
      span.end = strs_.id("end");
      keys_.add(span, span.t0, span.t1);
    }
    for (auto& [id, f] : open_faults_) {
      f.t1 = t_end_;
      f.phase = strs_.id("open");
      faults_.add(f, f.t0, f.t1);
    }
  }

  // Rows: the network, then threads in natural order, then nodes in header order.
  std::vector<int64_t> assign_rows() {
    const std::vector<std::string>& names = procs_.list();
    std::vector<uint32_t> threads;
    std::vector<uint32_t> nodes;
    for (uint32_t p = 0; p < names.size(); ++p) {
      if (p < is_node_.size() && is_node_[p]) {
        nodes.push_back(p);
      } else if (p < is_thread_.size() && is_thread_[p]) {
        threads.push_back(p);
      }
    }
    std::stable_sort(threads.begin(), threads.end(), [&](uint32_t a, uint32_t b) { return natural_less(names[a], names[b]); });
    std::vector<int64_t> row(names.size(), 0);
    rows_json_ = json::array();
    rows_json_.push_back({{"name", "network"}, {"kind", "network"}, {"group", ""}});
    for (uint32_t p : threads) {
      row[p] = static_cast<int64_t>(rows_json_.size());
      const std::string& n = names[p];
      rows_json_.push_back({{"name", n}, {"kind", "thread"}, {"group", n.substr(0, n.find('/'))}});
    }
    for (uint32_t p : nodes) {
      row[p] = static_cast<int64_t>(rows_json_.size());
      rows_json_.push_back({{"name", names[p]}, {"kind", "node"}, {"group", "nodes"}});
    }
    return row;
  }

  // The rows a process name stands for: a thread, all of a client's threads, or a node.
  std::vector<int64_t> rows_of(const std::string& name) const {
    std::vector<int64_t> out;
    for (size_t r = 1; r < rows_json_.size(); ++r) {
      const json& row = rows_json_[r];
      if (row["name"] == name || (row["kind"] == "thread" && row["group"] == name)) out.push_back(static_cast<int64_t>(r));
    }
    return out;
  }

  // Rows a fault is drawn on; the network row for partitions and "all".
  std::vector<int64_t> fault_rows(const std::string& kind, const std::string& target) const {
    if (parse_fault_kind(kind) == FaultKind::kPartition || target == "all") return {0};
    for (const char* sep : {"<->", "->"}) {
      const size_t p = target.find(sep);
      if (p == std::string::npos) continue;
      std::vector<int64_t> a = rows_of(target.substr(0, p));
      std::vector<int64_t> b = rows_of(target.substr(p + std::string(sep).size()));
      a.insert(a.end(), b.begin(), b.end());
      return a.empty() ? std::vector<int64_t>{0} : a;
    }
    std::vector<int64_t> r = rows_of(target);
    return r.empty() ? std::vector<int64_t>{0} : r;
  }

  json holds_json(const std::vector<int64_t>& row) {
    json a = json::array();
    for (const Hold& h : holds_.take()) {
      a.push_back({row[h.proc], h.lock, h.t0, h.t1, h.mode, h.end, h.token, h.op});
    }
    return a;
  }
  json ops_json(const std::vector<int64_t>& row) {
    json a = json::array();
    for (const Op& o : ops_.take()) a.push_back({row[o.proc], o.lock, o.kind, o.t0, o.t1, o.outcome, o.result, o.id});
    return a;
  }
  json keys_json(const std::vector<int64_t>& row) {
    json a = json::array();
    for (const KeySpan& k : keys_.take()) a.push_back({row[k.proc], k.lock, k.key, k.t0, k.t1, k.end, row[k.holder]});
    return a;
  }
  json markers_json(const std::vector<int64_t>& row) {
    json a = json::array();
    for (const Marker& m : markers_.take()) a.push_back({row[m.proc], m.t, m.kind, m.label});
    return a;
  }
  json execs_json(const std::vector<int64_t>& row) {
    json a = json::array();
    for (const Exec& x : execs_.take()) a.push_back({row[x.proc], x.t, x.cmd, x.conn, x.op});
    return a;
  }
  json faults_json() {
    json a = json::array();
    for (const Fault& f : faults_.take()) {
      const std::string kind = strs_.list()[f.kind];
      a.push_back({f.id, f.kind, strs_.id(f.target), f.t0, f.t1, f.params, fault_rows(kind, f.target), f.phase});
    }
    return a;
  }
  json violations_json() {
    json a = json::array();
    for (const ViolationMark& v : violations_) {
      std::vector<int64_t> rows;
      for (const std::string& n : v.names) {
        for (int64_t r : rows_of(n)) {
          if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
        }
      }
      std::sort(rows.begin(), rows.end());
      json item = {{"property", v.property}, {"t0", v.t0_us}, {"t1", v.t1_us < 0 ? t_end_ : v.t1_us}, {"rows", rows}};
      if (v.overlap_t0_us >= 0) {
        item["o0"] = v.overlap_t0_us;
        item["o1"] = v.overlap_t1_us;
      }
      a.push_back(item);
    }
    return a;
  }

  const std::vector<ViolationMark>& violations_;
  const TimelineLimits limits_;
  const std::vector<TimeWindow> windows_;
  json header_ = json::object();
  Strings procs_, locks_, strs_;
  std::vector<bool> is_node_, is_thread_;
  std::map<int64_t, Op> open_ops_;
  std::map<std::pair<uint32_t, uint32_t>, Hold> open_holds_;
  std::map<std::pair<uint32_t, uint32_t>, KeySpan> open_keys_;
  std::map<int64_t, std::vector<Grant>> grants_;
  std::map<int64_t, Fault> open_faults_;
  Sampler<Hold> holds_;
  Sampler<Op> ops_;
  Sampler<KeySpan> keys_;
  Sampler<Marker> markers_;
  Sampler<Exec> execs_;
  Sampler<Fault> faults_;
  json rows_json_ = json::array();
  int64_t last_t_ = 0;
  int64_t t_end_ = -1;
  bool complete_ = false;
};

// Collects the times ("*_us" integers) and process names ("thread", "node", "target", "client")
// mentioned anywhere in a counterexample or explanation.
void collect(const json& j, int64_t& lo, int64_t& hi, std::vector<std::string>& names, int depth) {
  if (depth > 32) return;
  if (j.is_array()) {
    for (const json& x : j) collect(x, lo, hi, names, depth + 1);
    return;
  }
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (v.is_number_integer() && k.size() > 3 && k.compare(k.size() - 3, 3, "_us") == 0 && v.get<int64_t>() >= 0) {
      lo = std::min(lo, v.get<int64_t>());
      hi = std::max(hi, v.get<int64_t>());
    } else if (v.is_string() && (k == "thread" || k == "node" || k == "target" || k == "client")) {
      if (std::find(names.begin(), names.end(), v.get<std::string>()) == names.end()) names.push_back(v.get<std::string>());
    } else {
      collect(v, lo, hi, names, depth + 1);
    }
  }
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare the digit runs by value: strip leading zeros, then length, then digits.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<ViolationMark> violation_marks(const json& result) {
  std::vector<ViolationMark> out;
  if (!result.contains("properties") || !result["properties"].is_array()) return out;
  for (const json& p : result["properties"]) {
    if (!p.is_object() || p.value("verdict", "") != "violation") continue;
    ViolationMark m;
    m.property = p.value("name", "?");
    int64_t lo = INT64_MAX, hi = -1;
    if (p.contains("counterexample")) collect(p["counterexample"], lo, hi, m.names, 0);
    if (p.contains("explanation")) collect(p["explanation"], lo, hi, m.names, 0);
    m.t0_us = hi < 0 ? 0 : lo;
    m.t1_us = hi;  // -1: no time mentioned; the page uses the whole run
    // Two overlapping holds (mutual_exclusion's counterexample): their intersection. A hold
    // still open at the end has no end_us: it lasts to the story's end.
    if (p.contains("counterexample") && p["counterexample"].is_object()) {
      const json& ce = p["counterexample"];
      auto begin = [](const json& x) { return x.is_object() && x.contains("begin_us") && x["begin_us"].is_number_integer() ? x["begin_us"].get<int64_t>() : -1; };
      auto end = [&](const json& x) {
        return x.is_object() && x.contains("end_us") && x["end_us"].is_number_integer() ? x["end_us"].get<int64_t>() : m.t1_us;
      };
      if (ce.contains("first") && ce.contains("second")) {
        const int64_t a0 = begin(ce["first"]), b0 = begin(ce["second"]);
        const int64_t o0 = std::max(a0, b0), o1 = std::min(end(ce["first"]), end(ce["second"]));
        if (a0 >= 0 && b0 >= 0 && o1 >= o0) {
          m.overlap_t0_us = o0;
          m.overlap_t1_us = o1;
        }
      }
    }
    out.push_back(m);
  }
  return out;
}

namespace {

// A `publish` or `deliver` line as lockstep's writer starts it ({"t": 12, "type": "deliver", ...).
// The page draws no pub/sub traffic, and a herd of waiters logs millions of such lines: skipping
// them unparsed took a third off the report of B2's 30 M-line history. A line written any other
// way is parsed as usual.
bool is_pubsub_line(std::string_view line) {
  constexpr std::string_view kT = "{\"t\": ";
  if (line.substr(0, kT.size()) != kT) return false;
  size_t i = kT.size();
  const size_t digits = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == digits) return false;
  const std::string_view rest = line.substr(i);
  for (std::string_view type : {std::string_view(", \"type\": \"deliver\", "), std::string_view(", \"type\": \"publish\", ")}) {
    if (rest.substr(0, type.size()) == type) return true;
  }
  return false;
}

}  // namespace

Result<json> build_timeline(std::istream& in, const std::string& name, const std::vector<ViolationMark>& violations,
                            const TimelineLimits& limits) {
  Builder b(violations, limits);
  std::string line;
  std::string padded;  // the line with the room simdjson reads past its end
  checker::internal::LineParser parser;
  LineFields fields;
  uint64_t n = 0;
  bool cut = false;
  while (std::getline(in, line)) {
    if (++n > limits.history_lines) {
      cut = true;
      break;
    }
    if (line.empty() || (n > 1 && is_pubsub_line(line))) continue;
    if (n == 1) {
      json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || !j.is_object()) {
        return Status::error(name + ":1: not a JSON object (expected a history header line)");
      }
      if (!j.contains("lockstep_history")) {
        return Status::error(name + ":1: not a lockstep history (the first line has no \"lockstep_history\")");
      }
      b.header(j);
      continue;
    }
    padded.assign(line);
    padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
    if (Status st = parser.parse(padded.data(), line.size(), padded.size(), fields); !st.ok()) {
      return Status::error(name + ":" + std::to_string(n) + ": " + st.message());
    }
    b.event(fields, line);
  }
  if (n == 0) return Status::error(name + ": empty (expected a history header line)");
  return b.finish(cut);
}

}  // namespace lockstep::report
