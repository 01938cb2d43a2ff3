// Runtime: everything a lock client may do in the world it runs in.
//
// Lock clients (algorithms/*) are straight-line C++20 coroutines written against this interface
// only. The simulator implements it with virtual time, a simulated network and Redis node model
// (sim/kernel/client_process.h); a live backend can implement it over real sockets and a real
// redis-server, chosen once at start-up (the FoundationDB pattern). Nothing in a lock client may
// read a real clock, a real random source or global state: time comes from now_ms(), randomness
// from rng(), and every wait is a co_await on this interface.
//
// A GCC 12 pitfall: a braced initializer list inside a co_await expression
// (`co_await conn.call({"GET", key})`) fails to compile ("array used as initializer"); build the
// argument vector in a named variable first.
//
// One Runtime is one client process (one Redisson client instance): it has a deterministic UUID,
// client options (command timeout, retries, subscription timeout, watchdog timeout), one command
// connection and one pub/sub connection per Redis endpoint, threads with ids, background tasks
// (the watchdog) that a pause stops and a crash kills, and a door into the history for what only
// the client knows (watchdog renewals, a hold it learned it lost).
#ifndef LOCKSTEP_RUNTIME_RUNTIME_H_
#define LOCKSTEP_RUNTIME_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/task.h"
#include "sim/core/rng.h"
#include "sim/history/events.h"
#include "sim/redis/reply.h"

namespace lockstep::runtime {

using redis::Reply;

// Client configuration, as Redisson's Config names it (defaults are Redisson's classic ones).
struct ClientOptions {
  int64_t timeout_ms = 3000;               // a command with no reply by then fails (or retries)
  int32_t retry_attempts = 3;              // re-sends after a timeout
  bool retry_attempts_given = false;       // the scenario set retry_attempts (it then beats a profile's default)
  int64_t retry_interval_ms = 1500;        // pause before each re-send
  int64_t subscription_timeout_ms = 7500;  // SUBSCRIBE confirmation deadline
  int64_t lock_watchdog_timeout_ms = 30000;  // lease the watchdog keeps renewing
};

enum class CallStatus : uint8_t {
  kOk,       // a reply arrived (it may be an error reply: check reply.is_error())
  kTimeout,  // no reply within the timeout after the last attempt; the command may have run
};

struct CallResult {
  CallStatus status = CallStatus::kTimeout;
  Reply reply;       // meaningful when status == kOk
  int32_t attempts = 0;  // how many times the command was sent
  bool ok() const { return status == CallStatus::kOk; }
};

// Per-call settings. Defaults take the client options.
struct CallOptions {
  int64_t op = -1;               // the history operation this call serves (exec records cite it)
  const char* script = nullptr;  // the script's name for exec records (static storage)
  int64_t timeout_ms = -1;       // -1: ClientOptions::timeout_ms
  int32_t retry_attempts = -1;   // -1: ClientOptions::retry_attempts
  int64_t retry_interval_ms = -1;  // -1: ClientOptions::retry_interval_ms
  // Keys whose values the node records as `state` history events right after the command, for
  // cross-key script invariants (e.g. the fair lock's queue and timeout zset).
  std::vector<std::string> state_keys;
  // A blocking command (BLPOP): sent on a connection of its own, opened for the call and closed
  // when it ends (a reply, a timeout, or the task's end), as a client library's pool gives a
  // blocking command a connection no other command waits behind. Never re-sent.
  bool own_connection = false;
};

// What one call does, from its options over the client's: its timeout, how often it re-sends
// after a timeout (never for a blocking call on its own connection), and the pause before each.
struct CallPlan {
  int64_t timeout_ms = 0;
  int32_t retries = 0;
  int64_t retry_interval_ms = 0;
};
CallPlan plan_call(const CallOptions& call, const ClientOptions& client);

// A Lua script shipped with an algorithm: its name (for histories) and body.
struct Script {
  const char* name;
  std::string_view body;
  std::string sha1;  // lowercase hex; computed by make_script
};
Script make_script(const char* name, std::string_view body);

// The argv of a script command: `command` (EVAL, EVALSHA), then `first` (the body or the
// digest), the number of keys, the keys and the args (moved out of `keys` and `args`).
std::vector<std::string> script_argv(std::string_view command, std::string_view first,
                                     std::vector<std::string>& keys, std::vector<std::string>& args);

// A command connection to one Redis endpoint (a master; after a failover, the new master).
class Connection {
 public:
  virtual ~Connection() = default;
  // Sends one command and waits for its reply, re-sending after a timeout as the options say.
  // A reply that arrives after its attempt timed out is ignored.
  virtual Task<CallResult> call(std::vector<std::string> argv, CallOptions options = {}) = 0;

  // EVAL body numkeys keys... args... (how classic Redisson sends lock scripts).
  Task<CallResult> eval(const Script& script, std::vector<std::string> keys,
                        std::vector<std::string> args, CallOptions options = {});
  // EVALSHA first; on NOSCRIPT, EVAL (how later Redisson versions send them).
  Task<CallResult> evalsha(const Script& script, std::vector<std::string> keys,
                           std::vector<std::string> args, CallOptions options = {});
};

// Receives pub/sub messages. Runs inside the client process (a pause delays it); must not block.
class MessageListener {
 public:
  virtual ~MessageListener() = default;
  virtual void on_message(std::string_view channel, std::string_view message) = 0;
};

// The pub/sub connection to one endpoint. One listener per channel.
class PubSub {
 public:
  virtual ~PubSub() = default;
  // SUBSCRIBE and wait for the confirmation (up to the subscription timeout). The listener is
  // attached at once and receives every message delivered until unsubscribe().
  // REQUIRES: `listener` outlives the subscription.
  virtual Task<CallResult> subscribe(std::string channel, MessageListener* listener) = 0;
  virtual Task<CallResult> unsubscribe(std::string channel) = 0;
  virtual bool subscribed(std::string_view channel) const = 0;
};

// A counting semaphore timed by the client's local clock (Redisson's lock-entry latch).
class Semaphore {
 public:
  virtual ~Semaphore() = default;
  // Adds permits, waking waiters in FIFO order.
  virtual void release(int64_t permits = 1) = 0;
  // Takes one permit, waiting up to timeout_ms (-1: forever, 0: no wait). True if taken.
  virtual Task<bool> try_acquire(int64_t timeout_ms) = 0;
  virtual int64_t available() const = 0;
};

// A background task's identity (for cancel).
struct TaskId {
  uint32_t index = UINT32_MAX;
  uint32_t gen = 0;
  bool valid() const { return index != UINT32_MAX; }
};

// Java's Thread.interrupt() and Future.cancel() reaching an application thread
// (docs/algorithms.md "Interrupts"): what is pending on it, or what ended its wait.
enum class Interrupt : uint8_t { kNone, kInterrupt, kCancel };

// One application thread of a client.
struct Thread {
  uint32_t index = 0;   // 0-based within the client
  int64_t id = 0;       // the thread id used in lock names ("<uuid>:<id>")
  std::string name;     // "c1/t0" in histories
};

// What only the client can tell the history.
struct OpRecord {
  const Thread* thread = nullptr;
  std::string_view lock;
  history::OpKind op = history::OpKind::kRenew;
  history::LockMode mode = history::LockMode::kExclusive;
  int64_t lease_ms = history::kAbsent;
};
struct OpResult {
  history::Outcome outcome = history::Outcome::kOk;
  int8_t renewed = -1;  // for renew: 1 renewed, 0 not
  std::string error;
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual const std::string& client_name() const = 0;
  // A UUID derived from the run seed and the client's name (stable across runs).
  virtual std::string_view uuid() const = 0;
  virtual const ClientOptions& options() const = 0;
  // "<uuid>:<thread id>", Redisson's lock owner name.
  std::string owner_name(const Thread& thread) const;
  std::string owner_name(int64_t thread_id) const;

  // The client's local clock.
  virtual int64_t now_ms() const = 0;
  virtual int64_t now_us() const = 0;
  // Suspends the calling coroutine for `ms` of local time (a pause makes it longer).
  virtual Task<void> sleep_ms(int64_t ms) = 0;

  // Redis endpoints: 1 for a single node or a replicated master, N for N independent masters.
  virtual size_t endpoints() const = 0;
  // REQUIRES: endpoint < endpoints().
  virtual Connection& conn(size_t endpoint = 0) = 0;
  virtual PubSub& pubsub(size_t endpoint = 0) = 0;
  // Replicas of the endpoint's current master that the client knows of and that are up
  // (Redisson's availableSlaves: synchronised lock scripts WAIT for them). 0 with no replicas.
  virtual int64_t replicas(size_t endpoint) const { return 0; }

  virtual std::unique_ptr<Semaphore> new_semaphore(int64_t permits) = 0;

  // Starts a background task of this client (e.g. a watchdog). It stops while the client is
  // paused and dies with it. The task must not capture references to a thread's locals.
  virtual TaskId spawn(Task<void> task) = 0;
  // Stops a background task (at its current suspension point). Stale ids are ignored.
  virtual void cancel(TaskId id) = 0;
  virtual bool running(TaskId id) const = 0;

  // Interrupts (docs/algorithms.md "Interrupts"). A thread's interrupt lands in one of two ways:
  // if the thread is in an interruptible wait, the wait ends at once (interruptible() says so);
  // otherwise it stays pending until the thread's next interruptible wait (which then ends at
  // once) or until the algorithm takes it (take_interrupt, after a command it could not abandon).
  // True when a scenario can interrupt or cancel this client's threads at all: without that,
  // interruptible() is a plain await and costs nothing.
  virtual bool interrupts_possible() const { return false; }
  // `wait` (true: signalled), made so that an interrupt or cancel of `thread` ends it at once:
  // the result is then false and *interrupted says which (else kNone). Without interrupts it is
  // `wait` itself (no frame of its own: bench B5 counts the bytes of every waiting client).
  virtual Task<bool> interruptible(const Thread& thread, Task<bool> wait, Interrupt* interrupted);
  // Takes (clears) what is pending on `thread`.
  virtual Interrupt take_interrupt(const Thread& thread) { return Interrupt::kNone; }

  // The script this client sends for `script`: `script` itself, or what the run put in its
  // place (a mutant, algorithms/mutants, replaces one script by name). Algorithms that build
  // their own EVAL/EVALSHA commands resolve each script here first.
  virtual const Script& script(const Script& script) const { return script; }

  // This client's deterministic random stream.
  virtual Rng& rng() = 0;

  // History: an operation the client performs on its own (a watchdog renewal). begin_op returns
  // the id to pass in CallOptions::op and to end_op.
  virtual int64_t begin_op(const OpRecord& record) = 0;
  virtual void end_op(int64_t op, const OpResult& result) = 0;
  // The client learned that `thread` no longer holds `lock` in `mode` (e.g. a renewal returned
  // 0). Ends the thread's hold in the history (reason "lost"); ignored if it held none.
  virtual void hold_lost(const Thread& thread, std::string_view lock,
                         history::LockMode mode = history::LockMode::kExclusive) = 0;

  // Coverage (docs/coverage.md): the client reached the client-side state `point`, one of the
  // points its algorithm declares (AlgorithmInfo::coverage_points). Counting only: it changes
  // nothing in the run.
  virtual void cover(std::string_view point) {}

  // The algorithm's own code failed (an error in a Lua algorithm's file, docs/lua-algorithms.md):
  // the run ends after the current event and fails with `message`, which names the file and line.
  // The calling coroutine should end at once; nothing of the run after this point is recorded.
  virtual void fail(std::string message) = 0;
};

}  // namespace lockstep::runtime

#endif  // LOCKSTEP_RUNTIME_RUNTIME_H_
