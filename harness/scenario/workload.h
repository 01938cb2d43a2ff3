// Workload: the application threads of every client, running the scenario's script or
// generator against the algorithm's LockClient.
//
// The driver records what the application did and believed: an `invoke` before each lock call
// and a `complete` after it, a `hold_begin` when an acquire returned success (the first of a
// reentrant series), a `hold_end` when the matching unlock is invoked, and a `write` for each
// critical-section write to a resource (a fenced resource rejects a token lower than the highest
// it accepted).
#ifndef LOCKSTEP_HARNESS_SCENARIO_WORKLOAD_H_
#define LOCKSTEP_HARNESS_SCENARIO_WORKLOAD_H_

#include <map>
#include <string>
#include <vector>

#include "harness/scenario/scenario.h"
#include "sim/history/recorder.h"
#include "sim/kernel/app_client.h"

namespace lockstep::scenario {

// A resource critical sections write to. A fenced one keeps, per lock, the highest fencing token
// it accepted: tokens come from each lock's own counter, so only tokens of the same lock compare.
struct Resource {
  std::map<std::string, int64_t, std::less<>> highest_token;  // lock → highest token accepted
  uint64_t accepted = 0;
  uint64_t rejected = 0;
};

// What the workload runs in: the simulator's World or a live run (harness/live).
struct WorkloadWorld {
  const Scenario* scenario = nullptr;
  uint64_t seed = 0;
  history::Recorder* recorder = nullptr;
  std::vector<kernel::AppClient*> clients;  // in scenario order
};

// The leases the generator's threads draw from in the run with `seed`: the lease swarm's list in
// the seeds the swarm picks (drawn once per seed from the stream "workload/lease-swarm"), else
// lease_ms. Workload and the shrinker's materialised workload both ask here.
const std::vector<int64_t>& generator_leases(const GeneratorSpec& g, uint64_t seed);

class Workload {
 public:
  explicit Workload(WorkloadWorld world);
  // Starts every thread that has something to do, at true time 0.
  void start();

 private:
  struct ThreadState {
    kernel::AppClient* client = nullptr;
    const runtime::Thread* thread = nullptr;
    std::string last_lock;  // the lock a write without "lock" refers to
    Rng rng{0};
    // The acquisition in flight (a thread makes one call at a time), kept here rather than in
    // the coroutine frame that every waiting thread keeps (B5: bytes per client).
    runtime::LockRequest acquiring;
    history::OpKind acquire_op = history::OpKind::kLock;
  };

  runtime::Task<void> run_script(ThreadState* t, const std::vector<const ScriptEntry*> entries);
  runtime::Task<void> run_steps(ThreadState* t, const std::vector<Step>& steps);
  runtime::Task<void> run_step(ThreadState* t, const Step& step);
  runtime::LockRequest invoke(ThreadState* t, history::OpKind op, std::string_view lock,
                                 history::LockMode mode, int64_t wait_ms, int64_t lease_ms);
  bool acquired(ThreadState* t, const runtime::LockRequest& req,
                const runtime::LockOutcome& out);
  void released(ThreadState* t, history::OpKind op, const runtime::LockRequest& req,
                const runtime::LockOutcome& out);
  // `object`: the lock object called through (a step's "object", owned by the scenario), or "".
  runtime::Task<bool> acquire(ThreadState* t, history::OpKind op, const std::string& lock,
                             history::LockMode mode, int64_t wait_ms, int64_t lease_ms,
                             std::string_view object, bool interruptibly);
  // Without an object (the generator's calls): overloads rather than default arguments, whose
  // temporaries the calling coroutine's frame would keep.
  runtime::Task<bool> acquire(ThreadState* t, history::OpKind op, const std::string& lock,
                             history::LockMode mode, int64_t wait_ms, int64_t lease_ms) {
    return acquire(t, op, lock, mode, wait_ms, lease_ms, {}, false);
  }
  runtime::Task<bool> run_acquire(ThreadState* t);
  void start_acquire(ThreadState* t);
  // Thread.sleep(ms): a hold or think time, which an interrupt ends early (the application
  // catches the InterruptedException and goes on with its next step).
  runtime::Task<void> sleep(ThreadState* t, int64_t ms);
  runtime::Task<void> release(ThreadState* t, const std::string& lock, history::LockMode mode,
                             std::string_view object);
  runtime::Task<void> release(ThreadState* t, const std::string& lock, history::LockMode mode) {
    return release(t, lock, mode, {});
  }
  runtime::Task<void> force_release(ThreadState* t, const std::string& lock);
  // A raw step (command or eval): sent on the client's command connection to the step's
  // endpoint, retried as the client's options say; the node records it, the reply is dropped.
  runtime::Task<void> raw(ThreadState* t, const Step& step);
  void write(ThreadState* t, const std::string& resource, const std::string& lock, bool fenced);
  runtime::Task<void> run_generator(ThreadState* t);
  struct GeneratedOp {
    const std::string* lock = nullptr;
    int64_t lease_ms = -1;
    int64_t wait_ms = -1;  // -1 for lock()
    bool try_lock = false;
    history::LockMode mode = history::LockMode::kExclusive;
  };
  GeneratedOp next_generated(ThreadState* t) const;
  void write_in_hold(ThreadState* t, const std::string& lock, bool at_end);
  const GeneratorSpec& generator() const { return *scenario().workload.generator; }

  const Scenario& scenario() const { return *world_.scenario; }
  history::Recorder& recorder() { return *world_.recorder; }

  WorkloadWorld world_;
  std::map<std::string, Resource> resources_;
  std::vector<ThreadState> threads_;
  const std::vector<int64_t>* leases_ = nullptr;  // generator_leases() of this run
  int64_t default_lease_ms_ = -1;  // AlgorithmInfo::default_lease_ms (0: none), or -1 (watchdog)
};

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_WORKLOAD_H_
