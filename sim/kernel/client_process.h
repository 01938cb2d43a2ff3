// ClientProcess: one simulated client (one Redisson client instance) and the simulator's
// implementation of runtime::Runtime.
//
// It runs the client's application threads and background tasks as coroutines, talks to the
// current master of each endpoint over two connections per node — commands and pub/sub —
// opened on first use, and keeps what the history needs to know about the client's beliefs:
// which thread believes it holds which lock (hold_begin / hold_end).
//
// A command call sends the request and waits for the reply up to the client's timeout on its
// local clock; after a timeout it waits retry_interval_ms and re-sends, up to retry_attempts
// times, and then reports a timeout. Each attempt is a separate request: a late reply to an
// earlier attempt is ignored. Pub/sub messages run the channel's listener inside this process
// (so a pause delays them). When an endpoint's master changes (failover) or restarts, the
// client closes connections to the old master and re-subscribes its channels, as Redisson does
// after reconnecting. A crash destroys every coroutine, closes every connection (the node drops
// the subscriptions) and ends every hold with reason "crash".
#ifndef LOCKSTEP_SIM_KERNEL_CLIENT_PROCESS_H_
#define LOCKSTEP_SIM_KERNEL_CLIENT_PROCESS_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/lock_client.h"
#include "runtime/runtime.h"
#include "sim/core/on_demand.h"
#include "sim/kernel/app_client.h"
#include "sim/kernel/cluster.h"
#include "sim/kernel/coro_process.h"
#include "sim/kernel/sim_context.h"
#include "sim/kernel/thread_interrupts.h"

namespace lockstep::kernel {

class ClientProcess : public CoroProcess, public AppClient, public TopologyListener {
 public:
  static constexpr uint32_t kMaxThreads = 4096;
  static constexpr size_t kMaxPendingCalls = 100'000;

  // REQUIRES: `options` outlives the client (a scenario's client spec; not copied: B5 counts
  // bytes per client).
  ClientProcess(SimContext& ctx, ProcessId id, std::string name, LocalClock clock,
                const runtime::ClientOptions& options);
  ~ClientProcess() override;

  // --- runtime::Runtime ---
  const std::string& client_name() const override { return name(); }
  std::string_view uuid() const override { return {uuid_.data(), uuid_.size()}; }
  const runtime::ClientOptions& options() const override { return options_; }
  int64_t now_ms() const override { return local_ms(); }
  int64_t now_us() const override { return local_us(); }
  Task<void> sleep_ms(int64_t ms) override;
  size_t endpoints() const override;
  runtime::Connection& conn(size_t endpoint) override;
  runtime::PubSub& pubsub(size_t endpoint) override;
  int64_t replicas(size_t endpoint) const override;
  std::unique_ptr<runtime::Semaphore> new_semaphore(int64_t permits) override;
  runtime::TaskId spawn(Task<void> task) override;
  void cancel(runtime::TaskId id) override;
  bool running(runtime::TaskId id) const override;
  Rng& rng() override { return rng_; }
  bool interrupts_possible() const override { return interrupts_.possible(); }
  Task<bool> interruptible(const runtime::Thread& thread, Task<bool> wait,
                           runtime::Interrupt* interrupted) override;
  runtime::Interrupt take_interrupt(const runtime::Thread& thread) override;
  int64_t begin_op(const runtime::OpRecord& record) override;
  void end_op(int64_t op, const runtime::OpResult& result) override;
  void hold_lost(const runtime::Thread& thread, std::string_view lock,
                 history::LockMode mode) override;
  void fail(std::string message) override;
  void cover(std::string_view point) override {
    if (ctx_.coverage != nullptr) ctx_.coverage->hit(point);
  }
  const runtime::Script& script(const runtime::Script& script) const override;

  // --- AppClient: for the workload driver ---
  size_t thread_count() const override { return threads_.size(); }
  const runtime::Thread& thread(uint32_t index) const override { return *threads_[index]; }
  runtime::LockClient& lock_client() override { return *lock_client_; }
  void start_thread(Task<void> task) override { CoroProcess::spawn(std::move(task)); }
  TimeUs history_now() const override { return now(); }
  Task<void> sleep_until_local_us(TimeUs local_us) override;
  Task<bool> sleep_for(int64_t ms) override;
  void call_started(uint32_t index, bool cancellable) override;
  void call_ended(uint32_t index) override;
  HoldBook& holds() override { return holds_; }

  // Adds the next application thread ("<client>/t<index>", id = index).
  const runtime::Thread& add_thread();
  void set_lock_client(std::unique_ptr<runtime::LockClient> client);
  // From now on, this client sends `with` wherever its algorithm sends the script named
  // `replaces` (a mutant run). REQUIRES: `with` outlives the client.
  void override_script(std::string replaces, const runtime::Script* with);
  SimContext& context() { return ctx_; }

  // The crash fault: kills every coroutine, closes connections, ends holds.
  void crash_client();

  // Interrupts (the `interrupt` and `cancel` faults). allow_interrupts() must come before the
  // run starts for interrupts to end waits (it makes interruptible waits cost a root task).
  void allow_interrupts() { interrupts_.allow(); }
  // Thread.interrupt() / Future.cancel() of thread `index`: ends its interruptible wait at once,
  // or stays pending. A cancel reaches only a thread inside a try_lock call (set_cancellable).
  void interrupt_thread(uint32_t index, runtime::Interrupt kind);

  void endpoint_changed(size_t shard) override;

  // For ThreadInterrupts: a wait without deadline.
  template <typename OnOpen>
  WaitFor<OnOpen> open_ended_wait(OnOpen on_open) {
    return WaitFor<OnOpen>(*this, kNoDeadline, on_open);
  }

  // Called by the connection classes.
  Task<runtime::CallResult> call(size_t endpoint, bool pubsub, std::vector<std::string> argv,
                                    runtime::CallOptions options);

 protected:
  void handle_message(uint64_t payload) override;
  void drop_message(uint64_t payload) override;
  void after_crash() override;

 private:
  class SimConnection;
  class SimPubSub;
  struct NodeConns {
    ProcessId node;
    ConnId cmd = UINT32_MAX;
    ConnId pubsub = UINT32_MAX;
  };
  struct Endpoint;  // its connections in place (client_process.cc)
  struct PendingCall {
    ConnId conn;
    uint64_t request;
    WaitRef ref;
    redis::Reply* out;
  };
  class ReplyAwaiter;

  ConnId connection_to(ProcessId node, bool pubsub);
  // A connection for one blocking call (CallOptions::own_connection), and its close.
  ConnId open_own_connection(ProcessId node);
  void close_own_connection(ConnId conn);
  class OwnConnection;
  void close_connections_to(ProcessId node);
  void on_reply(uint32_t slot);
  void on_push(uint32_t slot);
  void resubscribe(size_t shard);
  void remove_pending(uint64_t request);

  SimContext& ctx_;
  const runtime::ClientOptions& options_;
  std::array<char, kUuidChars> uuid_;  // in place: a 36-byte string would be one more allocation
  uint32_t conn_serial_ = 0;           // beside uuid_: no padding
  Rng rng_;
  std::vector<std::unique_ptr<runtime::Thread>> threads_;  // stable addresses
  std::vector<Endpoint> endpoints_;  // one per shard, never resized after construction
  std::vector<NodeConns> conns_;
  // What few clients use, allocated on first use: the open connections of blocking calls in
  // flight, and a mutant's scripts (B5 counts bytes per client).
  struct Rare {
    std::vector<ConnId> own_conns;
    std::vector<std::pair<std::string, const runtime::Script*>> script_overrides;
  };
  OnDemand<Rare> rare_;
  std::vector<PendingCall> pending_;
  uint64_t next_request_ = 1;
  HoldBook holds_;
  std::unique_ptr<runtime::LockClient> lock_client_;
  ThreadInterrupts<ClientProcess> interrupts_{*this};
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_CLIENT_PROCESS_H_
