#include "algorithms/testing/sim_world.h"

#include <sstream>
#include <utility>

#include "sim/core/assert.h"
#include "sim/kernel/node_model.h"

namespace lockstep::algorithms::testing {

Step lock(std::string lock, int64_t lease_ms, std::string tag) {
  Step s;
  s.kind = Step::Kind::kAcquire;
  s.lock = std::move(lock);
  s.lease_ms = lease_ms;
  s.tag = std::move(tag);
  return s;
}

Step try_lock(std::string lock, int64_t wait_ms, int64_t lease_ms, std::string tag) {
  Step s = testing::lock(std::move(lock), lease_ms, std::move(tag));
  s.wait_ms = wait_ms;
  return s;
}

Step unlock(std::string lock, std::string tag) {
  Step s;
  s.kind = Step::Kind::kRelease;
  s.lock = std::move(lock);
  s.tag = std::move(tag);
  return s;
}

Step force_unlock(std::string lock, std::string tag) {
  Step s = unlock(std::move(lock), std::move(tag));
  s.kind = Step::Kind::kForceRelease;
  return s;
}

Step sleep(int64_t ms) {
  Step s;
  s.kind = Step::Kind::kSleep;
  s.ms = ms;
  return s;
}

Step with_mode(Step step, LockMode mode) {
  step.mode = mode;
  return step;
}

SimWorld::SimWorld(const Options& o)
    : client_options_(o.client), rec_(o.history ? &writer_ : nullptr), rng_(o.seed) {
  info_ = find_algorithm(o.algorithm);
  LS_ASSERT(info_ != nullptr);
  Status valid = info_->validate(o.algorithm_options, "/algorithm/options");
  LS_ASSERT(valid.ok());
  net_ = std::make_unique<kernel::Network>(loop_, rng_);
  net_->set_default_link(o.link);
  ctx_.loop = &loop_;
  ctx_.net = net_.get();
  ctx_.rec = &rec_;
  ctx_.rng = &rng_;
  cluster_ = std::make_unique<kernel::Cluster>(ctx_);
  ctx_.cluster = cluster_.get();
  cluster_->set_replication_lag(o.replication_lag);
  cluster_->set_failover_detection_ms(o.failover_detection_ms);
  kernel::NodeModelFactory factory = kernel::redis_node_model_factory();
  LS_ASSERT(factory != nullptr);
  if (o.trace) factory = tracing_factory(factory, &trace_);
  kernel::ProcessId next = 0;
  for (size_t shard_size : o.shard_sizes) {
    std::vector<kernel::NodeProcess*> shard;
    for (size_t i = 0; i < shard_size; ++i) {
      const std::string name = "node" + std::to_string(nodes_.size());
      nodes_.push_back(std::make_unique<kernel::NodeProcess>(ctx_, next++, name,
                                                             kernel::LocalClock(), o.node, factory));
      net_->add_process(nodes_.back().get());
      shard.push_back(nodes_.back().get());
    }
    cluster_->add_shard(shard);
  }
  for (size_t i = 0; i < o.clients; ++i) {
    clients_.push_back(std::make_unique<kernel::ClientProcess>(
        ctx_, next++, "c" + std::to_string(i + 1), kernel::LocalClock(), client_options_));
    kernel::ClientProcess& p = *clients_.back();
    net_->add_process(&p);
    cluster_->add_listener(&p);
    for (size_t t = 0; t < o.threads_per_client; ++t) p.add_thread();
    p.set_lock_client(info_->make(p, o.algorithm_options));
  }
}

SimWorld::~SimWorld() {
  // Client coroutines reference the network and the nodes: destroy the clients first.
  clients_.clear();
}

void SimWorld::at(TimeUs t, std::function<void()> fn) {
  actions_.push_back(std::move(fn));
  loop_.at(t, this, actions_.size() - 1);
}

void SimWorld::on_event(uint64_t arg) {
  LS_ASSERT(arg < actions_.size());
  actions_[arg]();
}

void SimWorld::program(size_t c, size_t t, TimeUs start_us, std::vector<Step> steps) {
  LS_ASSERT(c < clients_.size());
  LS_ASSERT(t < clients_[c]->thread_count());
  at(start_us, [this, c, t, steps = std::move(steps)]() mutable {
    if (clients_[c]->up()) clients_[c]->CoroProcess::spawn(run_program(c, t, std::move(steps)));
  });
}

void SimWorld::run_until(TimeUs end_us) {
  Status s = loop_.run_until(end_us, 200'000'000);
  LS_ASSERT(s.ok());
}

Task<void> SimWorld::run_program(size_t c, size_t t, std::vector<Step> steps) {
  kernel::ClientProcess& p = *clients_[c];
  const Thread& thread = p.thread(static_cast<uint32_t>(t));
  for (const Step& step : steps) {
    if (step.kind == Step::Kind::kSleep) {
      co_await p.sleep_ms(step.ms);
      continue;
    }
    StepResult r;
    r.client = c;
    r.thread = t;
    r.tag = step.tag;
    r.start_us = loop_.now();
    r.outcome = co_await run_step(p, thread, step);
    r.end_us = loop_.now();
    results_.push_back(std::move(r));
  }
}

Task<LockOutcome> SimWorld::run_step(kernel::ClientProcess& p, const Thread& thread,
                                     const Step& step) {
  history::Invoke inv;
  inv.thread = thread.name;
  const std::string owner = p.owner_name(thread);
  inv.owner = owner;
  inv.lock = step.lock;
  inv.mode = step.mode;
  LockRequest req;
  req.lock = step.lock;
  req.mode = step.mode;
  if (step.kind == Step::Kind::kAcquire) {
    inv.op = step.wait_ms >= 0 ? history::OpKind::kTryLock : history::OpKind::kLock;
    inv.lease_ms = step.lease_ms;
    inv.wait_ms = step.wait_ms;
    inv.watchdog_ms = p.options().lock_watchdog_timeout_ms;
    req.wait_ms = step.wait_ms;
    req.lease_ms = step.lease_ms;
  } else {
    inv.op = step.kind == Step::Kind::kRelease ? history::OpKind::kUnlock
                                               : history::OpKind::kForceUnlock;
  }
  req.op = rec_.invoke(loop_.now(), inv);
  LockOutcome out;
  if (step.kind == Step::Kind::kAcquire) {
    out = co_await p.lock_client().acquire(thread, req);
  } else if (step.kind == Step::Kind::kRelease) {
    p.holds().unlocking(p.history_now(), thread, step.lock, step.mode);
    out = co_await p.lock_client().release(thread, req);
  } else {
    out = co_await p.lock_client().force_release(thread, req);
  }
  history::Completion done;
  done.outcome = out.outcome;
  done.error = out.error;
  if (step.kind == Step::Kind::kAcquire && out.outcome == Outcome::kOk) {
    done.acquired = out.acquired ? 1 : 0;
    done.token = out.token == -1 ? history::kAbsent : out.token;
  }
  if (step.kind != Step::Kind::kAcquire && out.outcome == Outcome::kOk) {
    done.released = out.released ? 1 : 0;
  }
  rec_.complete(loop_.now(), req.op, done);
  if (step.kind == Step::Kind::kAcquire && out.outcome == Outcome::kOk && out.acquired) {
    p.holds().acquired(p.history_now(), p, thread, step.lock, step.mode, req.op,
                       out.token == -1 ? history::kAbsent : out.token);
  }
  co_return out;
}

const StepResult& SimWorld::result(const std::string& tag) const {
  const StepResult* found = nullptr;
  for (const StepResult& r : results_) {
    if (r.tag != tag) continue;
    LS_ASSERT(found == nullptr);
    found = &r;
  }
  LS_ASSERT(found != nullptr);
  return *found;
}

std::optional<redis::KeyDump> SimWorld::key(size_t node, const std::string& key) const {
  LS_ASSERT(node < nodes_.size());
  return nodes_[node]->model().inspect(key);
}

std::vector<std::string> SimWorld::keys(size_t node) const {
  LS_ASSERT(node < nodes_.size());
  return nodes_[node]->model().keys_sorted();
}

std::vector<nlohmann::json> SimWorld::lines(const std::string& type) const {
  std::vector<nlohmann::json> out;
  std::istringstream in(writer_.text());
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (type.empty() || j.value("type", "") == type) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace lockstep::algorithms::testing
