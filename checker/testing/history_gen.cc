#include "checker/testing/history_gen.h"

#include <algorithm>
#include <deque>
#include <queue>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/rng.h"

namespace lockstep::checker::testing {
namespace {

constexpr int64_t kReplyTimeoutUs = 3000 * kUsPerMs;  // Redisson's default command timeout
constexpr int64_t kThreadWaitMs = 5000;  // the classic fair lock's threadWaitTime

const char* mode_text(Mode m) { return m == Mode::kRead ? "read" : m == Mode::kWrite ? "write" : "exclusive"; }

// Appends JSONL events; every event is written at the simulation's current time, so the output
// is in time order by construction.
class Out {
 public:
  std::string text;
  void begin(TimeUs t, const char* type) {
    text += "{\"t\": ";
    text += std::to_string(t);
    text += ", \"type\": \"";
    text += type;
    text += '"';
  }
  void str(const char* key, std::string_view value) {
    text += ", \"";
    text += key;
    text += "\": \"";
    text += value;
    text += '"';
  }
  void num(const char* key, int64_t value) {
    text += ", \"";
    text += key;
    text += "\": ";
    text += std::to_string(value);
  }
  void raw(const char* key, std::string_view json) {
    text += ", \"";
    text += key;
    text += "\": ";
    text += json;
  }
  void end() { text += "}\n"; }
};

enum class Act : uint8_t {
  kStart, kServerAcquire, kCompleteAcquire, kUnlockInvoke, kServerUnlock, kCompleteUnlock,
  kRenewInvoke, kServerRenew, kCompleteRenew, kLapse, kDataLoss, kGhost
};

struct Event {
  TimeUs t;
  uint64_t seq;
  Act act;
  int32_t thread;
  int64_t arg;  // outcome, generation or holder serial
  int32_t lock = 0;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct ThreadState {
  std::string name, owner, client;
  int32_t lock = -1;     // the lock it is working on
  Mode mode = Mode::kExclusive;
  int32_t count = 0;     // the client's belief
  int64_t op = 0;        // the pending operation
  int64_t renew_op = 0;  // the pending watchdog renewal
  int64_t token = kAbsent;
  int64_t granted_token = kAbsent;  // the token of the server's grant, read at completion
  TimeUs hold_until = 0;
  TimeUs idle_until = 0;  // after an orphaned grant: wait until it lapsed
  uint64_t renew_gen = 0;
  bool try_lock = false;
  bool lost_reply = false;
  bool lose_lock = false;  // inject kEarlyLapse on this hold
  bool renew_ok = false;   // the server's answer to the pending renewal
  bool renewing = false;   // a renewal is in flight (one at a time, as Redisson's watchdog)
  int32_t renew_lock = 0;  // the lock of that renewal (the thread may have moved on)
  bool in_flight = false;  // an acquisition attempt is on its way to the server
  // Fair lock: when this waiter's queue entry becomes stale (its score: the replied ttl +
  // threadWaitTime after its last attempt). Past it, the fair script may evict it, so overtaking
  // it is an allowed reordering, not a FIFO inversion.
  TimeUs queue_stale_at = 0;
};

struct ServerHolder {
  int32_t thread = 0;
  int32_t count = 0, read_count = 0;
  TimeUs deadline = 0;  // its lease; only orphaned holders are ever let lapse
  int64_t serial = 0;
};

struct LockServer {
  std::vector<ServerHolder> holders;
  int64_t token = 0;
  std::deque<int32_t> waiters;
  int64_t max_written_token = 0;
};

class Generator {
 public:
  Generator(const GenOptions& o, uint64_t seed) : o_(o), rng_(Rng(seed).stream("history_gen")) {}
  std::string run();

 private:
  void push(TimeUs t, Act act, int32_t thread, int64_t arg, int32_t lock = 0) {
    queue_.push({t, seq_++, act, thread, arg, lock});
  }
  TimeUs net() { return rng_.between(o_.net_min_us, o_.net_max_us); }
  int64_t lease_us() const { return (o_.lease_ms >= 0 ? o_.lease_ms : o_.watchdog_ms) * kUsPerMs; }
  bool chance(uint32_t ppm) { return ppm > 0 && rng_.chance_ppm(ppm); }
  void header();
  void handle(const Event& e);
  void start(ThreadState& th, int32_t i);
  // Writes an invoke and returns its id (also stored in th.op unless it is a renewal).
  int64_t invoke(ThreadState& th, const char* op, int64_t lease_ms);
  void complete_line(int64_t id, const char* outcome);
  // An exec of `th`'s call `op` (default: its current one) on the key of `lock` (default: the
  // thread's current lock).
  void exec(const ThreadState& th, int node, const char* script, const char* reply, int64_t op = -1,
            int32_t lock = -1);
  void server_acquire(ThreadState& th, int32_t i);
  bool can_grant(const LockServer& s, int32_t i, Mode mode) const;
  void grant(LockServer& s, int32_t i, Mode mode);
  void complete_acquire(ThreadState& th, int32_t i, const Event& e);
  void unlock_invoke(ThreadState& th, int32_t i);
  void server_unlock(ThreadState& th, int32_t i);
  void wake(LockServer& s);
  void lapse(int32_t lock, int32_t thread, int64_t serial);
  // Lets `thread`'s hold on `lock` lapse when its lease runs out (the client no longer tracks it).
  void orphan(int32_t lock, int32_t thread);
  ServerHolder* holder(LockServer& s, int32_t thread);
  void lost_fault(const ThreadState& th);
  void ghost_overlap(const ThreadState& holder);
  void fault_line(const char* kind, std::string_view target, const char* phase);
  int32_t holder_count(const LockServer& s, int32_t i) const;

  GenOptions o_;
  Rng rng_;
  Out out_;
  TimeUs now_ = 0;
  uint64_t seq_ = 0;
  int64_t next_op_ = 1;
  int64_t next_fault_ = 1;
  std::vector<uint64_t> node_seq_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
  std::vector<ThreadState> threads_;
  std::vector<LockServer> locks_;
  bool injected_ = false;
  TimeUs last_deadline_ = 0;
  int64_t next_serial_ = 1;
};

void Generator::header() {
  out_.text += "{\"lockstep_history\": 1, \"algorithm\": \"generated\", \"lock_kind\": \"";
  out_.text += lock_kind_name(o_.kind);
  out_.text += "\", \"nodes\": [";
  for (int n = 0; n < o_.nodes; ++n) out_.text += (n ? ", \"node" : "\"node") + std::to_string(n) + "\"";
  out_.text += "], \"drift_tolerance_us\": 1000, \"liveness_bound_ms\": " + std::to_string(o_.liveness_bound_ms);
  if (o_.fair) out_.text += ", \"fair\": true, \"thread_wait_ms\": " + std::to_string(kThreadWaitMs);
  out_.text += "}\n";
}

void Generator::fault_line(const char* kind, std::string_view target, const char* phase) {
  out_.begin(now_, "fault");
  out_.num("fault", next_fault_++);
  out_.str("kind", kind);
  out_.str("target", target);
  out_.str("phase", phase);
  out_.end();
}

void Generator::lost_fault(const ThreadState& th) { fault_line("lose_reply", th.client, "instant"); }

int64_t Generator::invoke(ThreadState& th, const char* op, int64_t lease_ms) {
  const int64_t id = next_op_++;
  if (std::string_view(op) != "renew") th.op = id;
  out_.begin(now_, "invoke");
  out_.num("id", id);
  out_.str("thread", th.name);
  out_.str("owner", th.owner);
  out_.str("lock", "L" + std::to_string(th.lock));
  out_.str("op", op);
  if (th.mode != Mode::kExclusive) out_.str("mode", mode_text(th.mode));
  if (lease_ms != kAbsent) out_.num("lease_ms", lease_ms);
  if (th.try_lock) out_.num("wait_ms", 0);
  if (o_.watchdog_ms != 30000) out_.num("watchdog_ms", o_.watchdog_ms);
  out_.end();
  return id;
}

void Generator::complete_line(int64_t id, const char* outcome) {
  out_.begin(now_, "complete");
  out_.num("id", id);
  out_.str("outcome", outcome);
}

void Generator::exec(const ThreadState& th, int node, const char* script, const char* reply, int64_t op,
                     int32_t lock) {
  if (!o_.execs) return;
  out_.begin(now_, "exec");
  out_.str("node", "node" + std::to_string(node));
  out_.num("seq", static_cast<int64_t>(++node_seq_[node]));
  out_.str("conn", th.client);
  out_.str("command", "EVALSHA");
  out_.str("script", script);
  out_.num("op", op >= 0 ? op : th.op);
  out_.raw("keys", "[\"L" + std::to_string(lock >= 0 ? lock : th.lock) + "\"]");
  out_.raw("reply", reply);
  out_.end();
}

ServerHolder* Generator::holder(LockServer& s, int32_t thread) {
  for (ServerHolder& h : s.holders) {
    if (h.thread == thread) return &h;
  }
  return nullptr;
}

int32_t Generator::holder_count(const LockServer& s, int32_t i) const {
  for (const ServerHolder& h : s.holders) {
    if (h.thread == i) return h.count + h.read_count;
  }
  return 0;
}

bool Generator::can_grant(const LockServer& s, int32_t i, Mode mode) const {
  for (const ServerHolder& h : s.holders) {
    if (h.thread == i) {
      if (o_.kind == LockKind::kSimple) return false;
      continue;
    }
    if (o_.kind != LockKind::kRwlock) return false;
    if (mode == Mode::kWrite || h.count > 0) return false;
  }
  if (o_.fair && holder_count(s, i) == 0 && !s.waiters.empty() && s.waiters.front() != i) return false;
  return true;
}

void Generator::grant(LockServer& s, int32_t i, Mode mode) {
  ServerHolder* h = holder(s, i);
  if (h == nullptr) {
    s.holders.push_back(ServerHolder{i, 0, 0, 0, next_serial_++});
    h = &s.holders.back();
    ++s.token;
  }
  (mode == Mode::kRead ? h->read_count : h->count) += 1;
  h->deadline = now_ + lease_us();
  std::erase(s.waiters, i);
}

void Generator::orphan(int32_t lock, int32_t thread) {
  ServerHolder* h = holder(locks_[lock], thread);
  LS_ASSERT(h != nullptr);
  push(h->deadline, Act::kLapse, thread, h->serial, lock);
  threads_[thread].idle_until = std::max(threads_[thread].idle_until, h->deadline);
}

void Generator::start(ThreadState& th, int32_t i) {
  if (next_op_ > o_.ops) return;
  if (now_ < th.idle_until) {
    push(th.idle_until + 1, Act::kStart, i, 0);
    return;
  }
  th.lock = static_cast<int32_t>(rng_.below(static_cast<uint64_t>(o_.locks)));
  th.mode = o_.kind == LockKind::kRwlock ? (chance(o_.read_ppm) ? Mode::kRead : Mode::kWrite) : Mode::kExclusive;
  th.try_lock = chance(o_.try_lock_ppm);
  th.lost_reply = false;
  invoke(th, th.try_lock ? "try_lock" : "lock", o_.lease_ms);
  if (chance(o_.unknown_ppm)) {
    // The request or the reply is lost: the client times out not knowing.
    const bool executes = !o_.fair && rng_.below(2) == 0;
    if (!executes) {
      lost_fault(th);  // the request is lost now; a lost reply is recorded when it is sent
      push(now_ + kReplyTimeoutUs, Act::kCompleteAcquire, i, -1);
      return;
    }
    th.lost_reply = true;
  }
  th.in_flight = true;
  push(now_ + net(), Act::kServerAcquire, i, 0);
}

void Generator::server_acquire(ThreadState& th, int32_t i) {
  th.in_flight = false;
  LockServer& s = locks_[th.lock];
  // A barge is a FIFO inversion only past a head waiter that the fair script could not have
  // evicted yet; overtaking a stale head is what the algorithm allows.
  const bool barge = o_.inject == Inject::kFifoInversion && !injected_ && holder_count(s, i) == 0 &&
                     s.holders.empty() && !s.waiters.empty() && s.waiters.front() != i &&
                     now_ + 10 * kUsPerMs < threads_[s.waiters.front()].queue_stale_at &&
                     std::find(s.waiters.begin(), s.waiters.end(), i) == s.waiters.end() && next_op_ > o_.ops / 3;
  if (barge) injected_ = true;
  if (!barge && !can_grant(s, i, th.mode)) {
    // The script replies the lock's remaining TTL in ms.
    TimeUs until = now_;
    for (const ServerHolder& x : s.holders) until = std::max(until, x.deadline);
    const std::string ttl = std::to_string((until - now_) / kUsPerMs);
    for (int n = 0; n < o_.nodes; ++n) exec(th, n, "acquire", ttl.c_str());
    if (th.try_lock) {
      push(now_ + net(), Act::kCompleteAcquire, i, 0);
      return;
    }
    th.queue_stale_at = now_ + (until - now_) / kUsPerMs * kUsPerMs + kThreadWaitMs * kUsPerMs;
    if (std::find(s.waiters.begin(), s.waiters.end(), i) == s.waiters.end()) s.waiters.push_back(i);
    return;  // woken by an unlock or a lapse
  }
  grant(s, i, th.mode);
  if (holder_count(s, i) == 1) th.granted_token = s.token;
  for (int n = 0; n < o_.nodes; ++n) exec(th, n, "acquire", "null");
  if (th.lost_reply) {
    // Granted, but the client never learns it: the grant is orphaned until its lease lapses.
    lost_fault(th);
    orphan(th.lock, i);
    push(now_ + kReplyTimeoutUs, Act::kCompleteAcquire, i, -1);
    return;
  }
  if (o_.inject == Inject::kQuorumShortfall && !injected_ && next_op_ > o_.ops / 3) {
    injected_ = true;
    push(now_ + 1, Act::kDataLoss, i, th.lock);
  }
  push(now_ + net() + 2, Act::kCompleteAcquire, i, 1);
}

void Generator::complete_acquire(ThreadState& th, int32_t i, const Event& e) {
  if (e.arg < 0) {
    complete_line(th.op, "unknown");
    out_.str("error", "command timed out");
    out_.end();
    push(now_ + rng_.between(o_.think_min_ms, o_.think_max_ms) * kUsPerMs, Act::kStart, i, 0);
    return;
  }
  const bool acquired = e.arg == 1;
  complete_line(th.op, "ok");
  out_.raw("acquired", acquired ? "true" : "false");
  if (!acquired) {
    out_.end();
    push(now_ + rng_.between(o_.think_min_ms, o_.think_max_ms) * kUsPerMs, Act::kStart, i, 0);
    return;
  }
  ++th.count;
  out_.num("count", th.count);
  if (o_.fenced && th.count == 1) {
    th.token = th.granted_token;
    out_.num("token", th.token);
  }
  out_.end();
  if (th.count == 1) {
    if (o_.holds) {
      out_.begin(now_, "hold_begin");
      out_.str("thread", th.name);
      out_.str("owner", th.owner);
      out_.str("lock", "L" + std::to_string(th.lock));
      if (th.mode != Mode::kExclusive) out_.str("mode", mode_text(th.mode));
      out_.num("op", th.op);
      if (o_.fenced) out_.num("token", th.token);
      out_.end();
    }
    int64_t hold_us = rng_.between(o_.hold_min_ms, o_.hold_max_ms) * kUsPerMs;
    if (o_.lease_ms >= 0) hold_us = std::min(hold_us, o_.lease_ms * kUsPerMs / 2);
    th.hold_until = now_ + hold_us;
    th.lose_lock = o_.inject == Inject::kEarlyLapse && !injected_ && next_op_ > o_.ops / 3 && o_.lease_ms < 0;
    if (th.lose_lock) injected_ = true;
    if (o_.inject == Inject::kOverlap && !injected_ && next_op_ > o_.ops / 3) {
      injected_ = true;
      push(now_ + 1, Act::kGhost, i, 0);  // strictly after this grant took effect
    }
    if (o_.lease_ms < 0 || th.lose_lock) push(now_ + (th.lose_lock ? kUsPerMs : lease_us() / 3), Act::kRenewInvoke, i, static_cast<int64_t>(++th.renew_gen));
  }
  if (th.count < 3 && !th.lose_lock && o_.kind != LockKind::kSimple && chance(o_.reentry_ppm) && now_ + 2 * kUsPerMs < th.hold_until) {
    th.try_lock = false;
    invoke(th, "lock", o_.lease_ms);
    th.in_flight = true;
    push(now_ + net(), Act::kServerAcquire, i, 0);
    return;
  }
  if (!th.lose_lock) push(std::max(th.hold_until, now_ + 1), Act::kUnlockInvoke, i, 0);
}

// kOverlap: a ghost owner on another client acquires and releases the lock while `holder` holds.
void Generator::ghost_overlap(const ThreadState& holder) {
  ThreadState ghost;
  ghost.name = "ghost/t0";
  ghost.owner = "ghost:0";
  ghost.client = "ghost";
  ghost.lock = holder.lock;
  ghost.mode = holder.mode == Mode::kRead ? Mode::kWrite : holder.mode;
  invoke(ghost, "lock", o_.lease_ms);
  exec(ghost, 0, "acquire", "null");
  complete_line(ghost.op, "ok");
  out_.raw("acquired", "true");
  out_.num("count", 1);
  out_.end();
  if (o_.holds) {
    out_.begin(now_, "hold_begin");
    out_.str("thread", ghost.name);
    out_.str("owner", ghost.owner);
    out_.str("lock", "L" + std::to_string(ghost.lock));
    if (ghost.mode != Mode::kExclusive) out_.str("mode", mode_text(ghost.mode));
    out_.end();
    out_.begin(now_, "hold_end");
    out_.str("thread", ghost.name);
    out_.str("lock", "L" + std::to_string(ghost.lock));
    out_.str("reason", "unlock");
    out_.end();
  }
  invoke(ghost, "unlock", kAbsent);
  exec(ghost, 0, "unlock", "1");
  complete_line(ghost.op, "ok");
  out_.raw("released", "true");
  out_.num("count", 0);
  out_.end();
}

void Generator::unlock_invoke(ThreadState& th, int32_t i) {
  if (th.count == 1) ++th.renew_gen;  // the full unlock cancels the watchdog
  if (th.count == 1 && o_.holds) {
    if (o_.fenced && th.mode != Mode::kRead) {
      LockServer& s = locks_[th.lock];
      int64_t token = th.token;
      if (o_.inject == Inject::kTokenRegression && !injected_ && s.max_written_token > 1 && next_op_ > o_.ops / 3) {
        injected_ = true;
        token = s.max_written_token - 1;
      }
      s.max_written_token = std::max(s.max_written_token, token);
      out_.begin(now_, "write");
      out_.str("thread", th.name);
      out_.str("owner", th.owner);
      out_.str("lock", "L" + std::to_string(th.lock));
      out_.str("resource", "R" + std::to_string(th.lock));
      out_.num("token", token);
      out_.raw("fenced", "true");
      out_.raw("accepted", "true");
      out_.end();
    }
    out_.begin(now_, "hold_end");
    out_.str("thread", th.name);
    out_.str("lock", "L" + std::to_string(th.lock));
    out_.str("reason", "unlock");
    out_.end();
  }
  th.try_lock = false;
  th.lost_reply = false;
  invoke(th, "unlock", kAbsent);
  if (th.count == 1 && chance(o_.unknown_ppm)) {
    lost_fault(th);
    if (rng_.below(2) == 0) {
      // The request is lost: the server keeps the lock until its lease lapses.
      orphan(th.lock, i);
      th.count = 0;
      push(now_ + kReplyTimeoutUs, Act::kCompleteUnlock, i, -1);
      return;
    }
    th.lost_reply = true;
  }
  push(now_ + net(), Act::kServerUnlock, i, 0);
}

void Generator::server_unlock(ThreadState& th, int32_t i) {
  LockServer& s = locks_[th.lock];
  ServerHolder* h = holder(s, i);
  LS_ASSERT(h != nullptr);
  int32_t& c = th.mode == Mode::kRead ? h->read_count : h->count;
  LS_ASSERT(c > 0);
  --c;
  const bool released = h->count + h->read_count == 0;
  if (released) {
    std::erase_if(s.holders, [&](const ServerHolder& x) { return x.thread == i; });
    wake(s);
  } else if (o_.kind != LockKind::kRwlock) {
    h->deadline = now_ + lease_us();  // the unlock script's pexpire
  }
  for (int n = 0; n < o_.nodes; ++n) exec(th, n, "unlock", released ? "1" : "0");
  --th.count;
  push(now_ + net(), Act::kCompleteUnlock, i, th.lost_reply ? -1 : (released ? 1 : 0));
}

void Generator::wake(LockServer& s) {
  if (s.waiters.empty()) return;
  for (int32_t w : s.waiters) {
    if (!threads_[w].in_flight) {
      threads_[w].in_flight = true;
      push(now_ + net(), Act::kServerAcquire, w, 0);
    }
    if (o_.fair || o_.kind != LockKind::kRwlock) return;  // one permit: the first waiter
  }
}

void Generator::lapse(int32_t lock, int32_t thread, int64_t serial) {
  LockServer& s = locks_[lock];
  ServerHolder* h = holder(s, thread);
  if (h == nullptr || h->serial != serial) return;
  if (h->deadline > now_) {
    push(h->deadline, Act::kLapse, thread, serial, lock);  // a renewal in flight extended it
    return;
  }
  std::erase_if(s.holders, [&](const ServerHolder& x) { return x.thread == thread; });
  // The key lives until its last holder's lease ends (the scripts reply that TTL): one reader's
  // lapse, with others still holding, expires nothing.
  if (s.holders.empty()) {
    out_.begin(now_, "expire");
    out_.str("node", "node0");
    out_.str("key", "L" + std::to_string(lock));
    out_.end();
  }
  wake(s);
}

void Generator::handle(const Event& e) {
  now_ = e.t;
  if (e.act == Act::kLapse) return lapse(e.lock, e.thread, e.arg);
  ThreadState& th = threads_[e.thread];
  switch (e.act) {
    case Act::kStart: return start(th, e.thread);
    case Act::kServerAcquire: return server_acquire(th, e.thread);
    case Act::kCompleteAcquire: return complete_acquire(th, e.thread, e);
    case Act::kUnlockInvoke: return unlock_invoke(th, e.thread);
    case Act::kServerUnlock: return server_unlock(th, e.thread);
    case Act::kCompleteUnlock:
      complete_line(th.op, e.arg < 0 ? "unknown" : "ok");
      if (e.arg < 0) out_.str("error", "command timed out");
      if (e.arg >= 0) out_.raw("released", e.arg == 1 ? "true" : "false");
      if (e.arg >= 0) out_.num("count", th.count);
      out_.end();
      if (th.count > 0) {
        push(std::max(th.hold_until, now_ + 1), Act::kUnlockInvoke, e.thread, 0);
      } else {
        push(now_ + rng_.between(o_.think_min_ms, o_.think_max_ms) * kUsPerMs, Act::kStart, e.thread, 0);
      }
      return;
    case Act::kRenewInvoke:
      if (static_cast<uint64_t>(e.arg) != th.renew_gen || th.count == 0) return;
      if (th.renewing) {  // the previous hold's last renewal is still on its way
        push(now_ + kUsPerMs, Act::kRenewInvoke, e.thread, e.arg);
        return;
      }
      th.renewing = true;
      th.renew_lock = th.lock;
      th.renew_op = invoke(th, "renew", kAbsent);
      push(now_ + net(), Act::kServerRenew, e.thread, e.arg);
      return;
    case Act::kServerRenew: {
      // The renewal of the lock it was sent for: by now the thread may have released it and
      // moved on to another.
      ServerHolder* h = holder(locks_[th.renew_lock], e.thread);
      th.renew_ok = !(th.lose_lock && static_cast<uint64_t>(e.arg) == th.renew_gen) && h != nullptr;
      if (th.renew_ok) h->deadline = now_ + lease_us();
      for (int n = 0; n < o_.nodes; ++n) exec(th, n, "renew", th.renew_ok ? "1" : "0", th.renew_op, th.renew_lock);
      push(now_ + net(), Act::kCompleteRenew, e.thread, e.arg);
      return;
    }
    case Act::kCompleteRenew:
      th.renewing = false;
      complete_line(th.renew_op, "ok");
      out_.raw("renewed", th.renew_ok ? "true" : "false");
      out_.end();
      if (static_cast<uint64_t>(e.arg) != th.renew_gen) return;  // an earlier hold's last renewal
      if (th.lose_lock) {
        // kEarlyLapse: the client is told it lost the lock long before its lease could elapse.
        out_.begin(now_, "hold_end");
        out_.str("thread", th.name);
        out_.str("lock", "L" + std::to_string(th.lock));
        out_.str("reason", "lost");
        out_.end();
        orphan(th.lock, e.thread);
        th.count = 0;
        th.lose_lock = false;
        push(now_ + 1, Act::kStart, e.thread, 0);
      } else if (th.count > 0) {
        push(now_ + lease_us() / 3, Act::kRenewInvoke, e.thread, e.arg);
      }
      return;
    case Act::kGhost:
      ghost_overlap(th);
      return;
    case Act::kDataLoss: {
      // kQuorumShortfall: a majority of the nodes restart without persistence before success.
      for (int n = 0; n < o_.nodes / 2 + 1; ++n) {
        out_.begin(now_, "data_loss");
        out_.str("node", "node" + std::to_string(n));
        out_.str("reason", "restart");
        out_.raw("keys", "[\"L" + std::to_string(e.arg) + "\"]");
        out_.end();
      }
      return;
    }
    default: return;
  }
}

std::string Generator::run() {
  LS_ASSERT(o_.threads > 0 && o_.locks > 0 && o_.nodes > 0);
  LS_ASSERT(o_.threads_per_client > 0);
  header();
  node_seq_.assign(static_cast<size_t>(o_.nodes), 0);
  locks_.resize(static_cast<size_t>(o_.locks));
  threads_.resize(static_cast<size_t>(o_.threads));
  for (int32_t i = 0; i < o_.threads; ++i) {
    const int client = i / o_.threads_per_client, t = i % o_.threads_per_client;
    threads_[i].client = "c" + std::to_string(client);
    threads_[i].name = threads_[i].client + "/t" + std::to_string(t);
    threads_[i].owner = "u" + std::to_string(client) + ":" + std::to_string(t);
    push(rng_.between(0, o_.think_max_ms) * kUsPerMs, Act::kStart, i, 0);
  }
  // Bounded: every event handler schedules at most a few events, and starts stop at `ops`.
  for (int64_t steps = 0; !queue_.empty() && steps < 64 * (o_.ops + 16) * (o_.nodes + 1); ++steps) {
    const Event e = queue_.top();
    queue_.pop();
    handle(e);
  }
  now_ += kUsPerSecond;
  for (const LockServer& s : locks_) {
    for (const ServerHolder& h : s.holders) last_deadline_ = std::max(last_deadline_, h.deadline);
  }
  if (o_.inject == Inject::kStuckLock) {
    // A waiter on a lock nobody holds any more, unserved for twice the liveness bound.
    now_ = std::max(now_, last_deadline_ + kUsPerSecond);
    ThreadState stuck;
    stuck.name = "stuck/t0";
    stuck.owner = "stuck:0";
    stuck.lock = 0;
    invoke(stuck, "lock", o_.lease_ms);
    now_ += 2 * o_.liveness_bound_ms * kUsPerMs;
  }
  out_.begin(now_, "end");
  out_.raw("complete", "true");
  out_.end();
  return std::move(out_.text);
}

}  // namespace

const char* inject_name(Inject inject) {
  switch (inject) {
    case Inject::kNone: return "none";
    case Inject::kOverlap: return "overlap";
    case Inject::kTokenRegression: return "token_regression";
    case Inject::kFifoInversion: return "fifo_inversion";
    case Inject::kQuorumShortfall: return "quorum_shortfall";
    case Inject::kStuckLock: return "stuck_lock";
    case Inject::kEarlyLapse: return "early_lapse";
  }
  return "?";
}

std::string generate_history(const GenOptions& options, uint64_t seed) {
  return Generator(options, seed).run();
}

}  // namespace lockstep::checker::testing
