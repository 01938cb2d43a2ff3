#include "harness/scenario/workload.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::scenario {

using history::LockMode;
using history::OpKind;

Workload::Workload(WorkloadWorld world) : world_(std::move(world)) {
  LS_ASSERT(world_.scenario != nullptr && world_.recorder != nullptr);
  threads_.reserve(static_cast<size_t>(scenario().total_threads()));  // no doubling's slack
  for (kernel::AppClient* c : world_.clients) {
    for (size_t i = 0; i < c->thread_count(); ++i) {
      ThreadState t;
      t.client = c;
      t.thread = &c->thread(static_cast<uint32_t>(i));
      t.rng = Rng(world_.seed).stream("workload/" + t.thread->name);
      threads_.push_back(std::move(t));
    }
  }
  LS_ASSERT(static_cast<int64_t>(threads_.size()) == scenario().total_threads());
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(scenario().algorithm);
  if (info != nullptr && info->default_lease_ms) default_lease_ms_ = info->default_lease_ms(scenario().algorithm_options);
  const std::optional<GeneratorSpec>& g = scenario().workload.generator;
  if (g.has_value()) leases_ = &generator_leases(*g, world_.seed);
}

const std::vector<int64_t>& generator_leases(const GeneratorSpec& g, uint64_t seed) {
  if (g.lease_swarm_percent == 0) return g.lease_ms;
  Rng swarm = Rng(seed).stream("workload/lease-swarm");
  return static_cast<int64_t>(swarm.below(100)) < g.lease_swarm_percent ? g.lease_swarm_ms : g.lease_ms;
}

void Workload::start() {
  const Scenario& s = scenario();
  for (ThreadState& t : threads_) {
    if (s.workload.generator.has_value()) {
      t.client->start_thread(run_generator(&t));
      continue;
    }
    std::vector<const ScriptEntry*> mine;
    for (const ScriptEntry& e : s.workload.script) {
      if (std::find(e.threads.begin(), e.threads.end(), t.thread->name) != e.threads.end()) {
        mine.push_back(&e);
      }
    }
    if (!mine.empty()) t.client->start_thread(run_script(&t, std::move(mine)));
  }
}

runtime::Task<void> Workload::run_script(ThreadState* t, const std::vector<const ScriptEntry*> entries) {
  for (const ScriptEntry* e : entries) co_await run_steps(t, e->steps);
}

runtime::Task<void> Workload::run_steps(ThreadState* t, const std::vector<Step>& steps) {
  for (const Step& step : steps) co_await run_step(t, step);
}

runtime::Task<void> Workload::run_step(ThreadState* t, const Step& st) {
  kernel::AppClient& c = *t->client;
  if (st.at_ms >= 0 && c.now_us() < ms_to_us(st.at_ms)) {
    co_await c.sleep_until_local_us(ms_to_us(st.at_ms));
  }
  switch (st.op) {
    case StepOp::kLock:
    case StepOp::kTryLock: {
      const bool got = co_await acquire(t, st.op == StepOp::kLock ? OpKind::kLock : OpKind::kTryLock,
                                        st.lock, st.mode, st.op == StepOp::kLock ? -1 : st.wait_ms,
                                        st.lease_ms, st.object, st.interruptibly);
      co_await run_steps(t, got ? st.steps : st.otherwise);
      break;
    }
    case StepOp::kUnlock:
      co_await release(t, st.lock, st.mode, st.object);
      break;
    case StepOp::kForceUnlock:
      co_await force_release(t, st.lock);
      break;
    case StepOp::kHold:
    case StepOp::kSleep:
      co_await sleep(t, st.ms);
      break;
    case StepOp::kWrite:
      write(t, st.resource, st.lock, st.fenced);
      break;
    case StepOp::kRepeat:
      for (int64_t i = 0; i < st.times; ++i) co_await run_steps(t, st.steps);
      break;
    case StepOp::kCommand:
    case StepOp::kEval:
      co_await raw(t, st);
      break;
  }
}

runtime::Task<void> Workload::raw(ThreadState* t, const Step& st) {
  std::vector<std::string> argv = st.argv;
  if (st.op == StepOp::kEval) {
    std::vector<std::string> keys = st.keys, args = st.args;
    argv = runtime::script_argv("EVAL", st.script, keys, args);
  }
  LS_ASSERT(st.endpoint >= 0 && static_cast<size_t>(st.endpoint) < t->client->endpoints());
  runtime::CallOptions options;
  options.state_keys = st.state_keys;
  co_await t->client->conn(static_cast<size_t>(st.endpoint)).call(std::move(argv), std::move(options));
}

// Coroutine frames keep every local that lives across a co_await, so the history bookkeeping
// happens in plain functions around the one suspension (B5: memory per waiting client).
runtime::LockRequest Workload::invoke(ThreadState* t, OpKind op, std::string_view lock,
                                         LockMode mode, int64_t wait_ms, int64_t lease_ms) {
  kernel::AppClient& c = *t->client;
  const std::string owner = c.owner_name(*t->thread);
  history::Invoke inv;
  inv.thread = t->thread->name;
  inv.owner = owner;
  inv.lock = lock;
  inv.op = op;
  inv.mode = mode;
  const bool acquire = op == OpKind::kLock || op == OpKind::kTryLock;
  if (acquire && lease_ms < 0 && default_lease_ms_ >= 0) lease_ms = default_lease_ms_;
  if (acquire) {
    inv.lease_ms = lease_ms;
    inv.no_lease = lease_ms == 0;  // AlgorithmInfo::default_lease_ms: no lease at all
    inv.wait_ms = wait_ms;
    if (lease_ms < 0) inv.watchdog_ms = c.options().lock_watchdog_timeout_ms;
  }
  runtime::LockRequest req;
  req.lock = lock;
  req.mode = mode;
  req.wait_ms = acquire ? wait_ms : -1;
  req.lease_ms = acquire ? lease_ms : -1;
  req.op = recorder().invoke(c.history_now(), inv);
  return req;
}

runtime::Task<void> Workload::sleep(ThreadState* t, int64_t ms) {
  kernel::AppClient& c = *t->client;
  if (!c.interrupts_possible()) {
    co_await c.sleep_ms(ms);
    co_return;
  }
  runtime::Interrupt interrupted = runtime::Interrupt::kNone;
  co_await c.interruptible(*t->thread, c.sleep_for(ms), &interrupted);
}

bool Workload::acquired(ThreadState* t, const runtime::LockRequest& req,
                        const runtime::LockOutcome& out) {
  kernel::AppClient& c = *t->client;
  c.call_ended(t->thread->index);
  history::Completion done;
  done.outcome = out.outcome;
  done.error = out.error;
  if (out.outcome == history::Outcome::kOk) {
    done.acquired = out.acquired ? 1 : 0;
    if (out.acquired) {
      // The thread's own count of its holds when the algorithm does not return one (Redisson's
      // scripts do not): a reentrant acquisition says 2, 3, ...
      done.count = out.count >= 0 ? out.count : c.holds().count(*t->thread, req.lock, req.mode) + 1;
      if (out.token >= 0) done.token = out.token;
      if (out.validity_ms >= 0) done.validity_ms = out.validity_ms;
    }
  }
  recorder().complete(c.history_now(), req.op, done);
  const bool got = out.outcome == history::Outcome::kOk && out.acquired;
  if (got) {
    c.holds().acquired(c.history_now(), c, *t->thread, req.lock, req.mode, req.op,
                       out.token >= 0 ? out.token : history::kAbsent);
    t->last_lock = std::string(req.lock);
  }
  return got;
}

void Workload::released(ThreadState* t, OpKind op, const runtime::LockRequest& req,
                        const runtime::LockOutcome& out) {
  history::Completion done;
  done.outcome = out.outcome;
  done.error = out.error;
  if (out.outcome == history::Outcome::kOk) {
    done.released = out.released ? 1 : 0;
    if (out.count >= 0) {
      done.count = out.count;
    } else if (op == OpKind::kUnlock && out.released) {
      done.count = 0;
    } else if (op == OpKind::kUnlock) {
      // A partial unlock: the holds the thread still believes it has (hold_unlocking counted
      // this one off when the call was invoked), if any.
      const int64_t left = t->client->holds().count(*t->thread, req.lock, req.mode);
      if (left > 0) done.count = left;
    }
  }
  recorder().complete(t->client->history_now(), req.op, done);
}

// Not a coroutine: the call's arguments wait in the thread's state, and run_acquire() records
// the invocation when it starts, as a coroutine here would.
runtime::Task<bool> Workload::acquire(ThreadState* t, OpKind op, const std::string& lock,
                                     LockMode mode, int64_t wait_ms, int64_t lease_ms,
                                     std::string_view object, bool interruptibly) {
  t->acquire_op = op;
  t->acquiring = runtime::LockRequest{};
  t->acquiring.lock = lock;
  t->acquiring.mode = mode;
  t->acquiring.wait_ms = wait_ms;
  t->acquiring.lease_ms = lease_ms;
  t->acquiring.object = object;
  t->acquiring.interruptibly = interruptibly;
  return run_acquire(t);
}

runtime::Task<bool> Workload::run_acquire(ThreadState* t) {
  start_acquire(t);
  co_return acquired(t, t->acquiring, co_await t->client->lock_client().acquire(*t->thread, t->acquiring));
}

void Workload::start_acquire(ThreadState* t) {
  runtime::LockRequest& req = t->acquiring;
  const runtime::LockRequest inv = invoke(t, t->acquire_op, req.lock, req.mode, req.wait_ms, req.lease_ms);
  req.wait_ms = inv.wait_ms;
  req.lease_ms = inv.lease_ms;
  req.op = inv.op;
  t->client->call_started(t->thread->index, t->acquire_op == OpKind::kTryLock);
}

runtime::Task<void> Workload::release(ThreadState* t, const std::string& lock, LockMode mode,
                                     std::string_view object) {
  runtime::LockRequest req = invoke(t, OpKind::kUnlock, lock, mode, history::kAbsent,
                                       history::kAbsent);
  req.object = object;
  t->client->holds().unlocking(t->client->history_now(), *t->thread, lock, mode);  // the thread stops believing it holds it
  released(t, OpKind::kUnlock, req, co_await t->client->lock_client().release(*t->thread, req));
}

runtime::Task<void> Workload::force_release(ThreadState* t, const std::string& lock) {
  const runtime::LockRequest req = invoke(t, OpKind::kForceUnlock, lock, LockMode::kExclusive,
                                             history::kAbsent, history::kAbsent);
  released(t, OpKind::kForceUnlock, req, co_await t->client->lock_client().force_release(*t->thread, req));
}

void Workload::write(ThreadState* t, const std::string& resource, const std::string& lock_name,
                     bool fenced) {
  kernel::AppClient& c = *t->client;
  const std::string& lock = lock_name.empty() ? t->last_lock : lock_name;
  const int64_t token = c.holds().token(*t->thread, lock);
  Resource& r = resources_[resource];
  // A fenced resource rejects a token lower than the highest it accepted from the same lock;
  // writes without a token (an algorithm without fencing) are accepted and recorded without one.
  auto highest = r.highest_token.find(lock);
  const bool accepted = !fenced || token == history::kAbsent || highest == r.highest_token.end() ||
                        token >= highest->second;
  if (accepted) {
    ++r.accepted;
    if (token != history::kAbsent) {
      if (highest == r.highest_token.end()) {
        r.highest_token.emplace(lock, token);
      } else {
        highest->second = std::max(highest->second, token);
      }
    }
  } else {
    ++r.rejected;
  }
  recorder().write(c.history_now(), t->thread->name, c.owner_name(*t->thread), lock, resource,
                          token, fenced, accepted);
}

// One operation's draws, in the order the generator has always made them (a seed's stream).
Workload::GeneratedOp Workload::next_generated(ThreadState* t) const {
  const GeneratorSpec& g = generator();
  Rng& r = t->rng;
  GeneratedOp op;
  op.lock = &g.locks[r.below(g.locks.size())];
  op.lease_ms = (*leases_)[r.below(leases_->size())];
  const int64_t wait_ms = g.wait_ms[r.below(g.wait_ms.size())];
  op.try_lock = g.acquire == GeneratorSpec::Acquire::kTryLock ||
                (g.acquire == GeneratorSpec::Acquire::kMixed && r.below(2) == 1);
  op.wait_ms = op.try_lock ? wait_ms : -1;
  op.mode = LockMode::kExclusive;
  if (g.modes) op.mode = static_cast<int64_t>(r.below(100)) < g.read_percent ? LockMode::kRead : LockMode::kWrite;
  return op;
}

// The generator's resource write, if it has a resource and writes at this end of the hold.
void Workload::write_in_hold(ThreadState* t, const std::string& lock, bool at_end) {
  const GeneratorSpec& g = generator();
  if (!g.resource.empty() && g.write_at_end == at_end) write(t, g.resource, lock, g.fenced);
}

// Every client thread keeps this frame for the whole run (B5: bytes per client): the spec and
// the client are reached through `this` and `t` rather than references of their own.
runtime::Task<void> Workload::run_generator(ThreadState* t) {
  co_await t->client->sleep_ms(t->rng.between(generator().start_min_ms, generator().start_max_ms));
  for (int64_t i = 0; i < generator().ops_per_thread; ++i) {
    const GeneratedOp op = next_generated(t);
    const bool got = co_await acquire(t, op.try_lock ? OpKind::kTryLock : OpKind::kLock, *op.lock,
                                      op.mode, op.wait_ms, op.lease_ms);
    if (got) {
      write_in_hold(t, *op.lock, /*at_end=*/false);
      co_await t->client->sleep_ms(t->rng.between(generator().hold_min_ms, generator().hold_max_ms));
      // At the end of the hold the write comes after whatever the hold lived through (a pause,
      // a lapse): the stale write a fenced resource must refuse.
      write_in_hold(t, *op.lock, /*at_end=*/true);
      co_await release(t, *op.lock, op.mode);
    }
    co_await t->client->sleep_ms(t->rng.between(generator().think_min_ms, generator().think_max_ms));
  }
}

}  // namespace lockstep::scenario
