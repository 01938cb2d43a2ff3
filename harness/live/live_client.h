// LiveClient: the live implementation of runtime::Runtime (docs/live.md) — one client process of a
// live run, talking RESP over real TCP connections to real redis-servers.
//
// It is the simulator's ClientProcess with the simulation taken out: the same lock clients
// (algorithms/) and the same workload driver run on it unchanged. Its threads and background
// tasks are coroutines on the run's one Boost.Asio event loop (LiveLoop); its local clock is the
// monotonic clock with the scenario's offset and drift on top; a wait with a deadline is an Asio
// steady timer. A command goes on the endpoint's command connection, pipelined, and waits for its
// reply up to the client's timeout; after a timeout it waits retry_interval_ms and re-sends, as
// ClientProcess does. A connection the server closed (a killed node) is reopened by the next
// command; the pub/sub connection is reopened every 100 ms until it connects and re-subscribes
// its channels, as Redisson does after reconnecting.
//
// Faults of the client itself: pause() holds back every resumption (threads, watchdog, pub/sub
// listeners) until resume(), as a stop-the-world pause does; crash() destroys every coroutine,
// closes every connection and ends every hold with reason "crash".
//
// Unlike the simulator, a live run reads a real clock: nothing here is replayable bit for bit.
#ifndef LOCKSTEP_HARNESS_LIVE_LIVE_CLIENT_H_
#define LOCKSTEP_HARNESS_LIVE_LIVE_CLIENT_H_

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "harness/live/exec_monitor.h"
#include "harness/live/links.h"
#include "runtime/lock_client.h"
#include "sim/core/rng.h"
#include "sim/history/recorder.h"
#include "sim/kernel/app_client.h"
#include "sim/kernel/coro_process.h"
#include "sim/kernel/coverage.h"
#include "sim/kernel/local_clock.h"
#include "sim/kernel/thread_interrupts.h"

namespace lockstep::live {

// The live run's event loop and its clock: microseconds of the monotonic clock since the run
// started.
class LiveLoop {
 public:
  LiveLoop() : start_(std::chrono::steady_clock::now()) {}
  boost::asio::io_context& io() { return io_; }
  // Time 0 is now (the run starts once its servers are up). REQUIRES: no timer armed yet.
  void restart_clock() {
    start_ = std::chrono::steady_clock::now();
    wall_start_us_ = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  }
  // The wall-clock time (µs since the epoch) at time 0: redis-server's MONITOR timestamps are
  // wall-clock times.
  int64_t wall_start_us() const { return wall_start_us_; }
  TimeUs now_us() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count();
  }
  std::chrono::steady_clock::time_point at(TimeUs true_us) const {
    return start_ + std::chrono::microseconds(true_us);
  }

 private:
  boost::asio::io_context io_;
  std::chrono::steady_clock::time_point start_;
  int64_t wall_start_us_ = 0;
};

class LiveClient : public kernel::AppClient, public runtime::RootListener {
 public:
  // `ports`: the port of each endpoint's current master (the run updates it on a failover).
  // `on_fail`: called with the message when the algorithm's own code fails (fail()).
  LiveClient(LiveLoop& loop, history::Recorder& rec, std::string name, std::string uuid, Rng rng,
             kernel::LocalClock clock, const runtime::ClientOptions& options,
             const std::vector<uint16_t>& ports, std::function<void(std::string)> on_fail);
  ~LiveClient() override;
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  // --- runtime::Runtime ---
  const std::string& client_name() const override { return name_; }
  std::string_view uuid() const override { return uuid_; }
  const runtime::ClientOptions& options() const override { return options_; }
  int64_t now_ms() const override { return us_to_ms_floor(now_us()); }
  int64_t now_us() const override { return clock_.local_us(loop_.now_us()); }
  runtime::Task<void> sleep_ms(int64_t ms) override;
  size_t endpoints() const override { return ports_.size(); }
  int64_t replicas(size_t endpoint) const override { return replicas_ ? replicas_(endpoint) : 0; }
  runtime::Connection& conn(size_t endpoint) override;
  runtime::PubSub& pubsub(size_t endpoint) override;
  std::unique_ptr<runtime::Semaphore> new_semaphore(int64_t permits) override;
  runtime::TaskId spawn(runtime::Task<void> task) override;
  void cancel(runtime::TaskId id) override;
  bool running(runtime::TaskId id) const override;
  Rng& rng() override { return rng_; }
  int64_t begin_op(const runtime::OpRecord& record) override;
  void end_op(int64_t op, const runtime::OpResult& result) override;
  void hold_lost(const runtime::Thread& thread, std::string_view lock, history::LockMode mode) override;
  void fail(std::string message) override;
  bool interrupts_possible() const override { return interrupts_.possible(); }
  runtime::Task<bool> interruptible(const runtime::Thread& thread, runtime::Task<bool> wait,
                                    runtime::Interrupt* interrupted) override;
  runtime::Interrupt take_interrupt(const runtime::Thread& thread) override { return interrupts_.take(thread.index); }
  // Client states are counted as in simulation; script lines run inside redis-server, unseen.
  void cover(std::string_view point) override { coverage_.hit(point); }
  const kernel::Coverage& coverage() const { return coverage_; }

  // --- kernel::AppClient ---
  size_t thread_count() const override { return threads_.size(); }
  const runtime::Thread& thread(uint32_t index) const override { return *threads_[index]; }
  runtime::LockClient& lock_client() override { return *lock_client_; }
  void start_thread(runtime::Task<void> task) override { spawn(std::move(task)); }
  TimeUs history_now() const override { return loop_.now_us(); }
  runtime::Task<void> sleep_until_local_us(TimeUs local_us) override;
  runtime::Task<bool> sleep_for(int64_t ms) override;
  void call_started(uint32_t index, bool cancellable) override { interrupts_.call_started(index, cancellable); }
  void call_ended(uint32_t index) override { interrupts_.call_ended(index); }
  kernel::HoldBook& holds() override { return holds_; }

  const runtime::Thread& add_thread();
  // How many replicas of the endpoint's master are up (Runtime::replicas: what WAIT waits for).
  void set_replicas(std::function<int64_t(size_t)> replicas) { replicas_ = std::move(replicas); }
  // The endpoint's master moved (a failover; its port in `ports` has changed): its connections
  // close, the next command opens one to the new master, and the pub/sub connection reconnects
  // and subscribes its channels again, as Redisson does.
  void endpoint_changed(size_t endpoint);
  void set_lock_client(std::unique_ptr<runtime::LockClient> client) { lock_client_ = std::move(client); }

  // Faults.
  void pause();
  void resume();
  void crash();
  // The `interrupt` and `cancel` faults, as in simulation (kernel/thread_interrupts.h).
  // allow_interrupts() comes before the run starts.
  void allow_interrupts() { interrupts_.allow(); }
  void interrupt_thread(uint32_t index, runtime::Interrupt kind) {
    if (up_ && index < threads_.size()) interrupts_.interrupt(index, kind);
  }

  // A clock fault: `change` changes the client's clock at true time `now` (a jump, an offset, a
  // drift); every open wait with a deadline is then re-timed to the true time at which the
  // changed clock reaches it, as the simulator re-times a process's timers.
  void change_clock(const std::function<void(kernel::LocalClock& clock, TimeUs now)>& change);
  bool up() const { return up_; }

  void root_finished(uint32_t root_index) override;

  // --- for the connection classes (live_client.cc) ---
  class Conn;
  class Wait;
  // For ThreadInterrupts: a wait without deadline (defined in live_client.cc, where Wait is).
  template <typename OnOpen>
  Wait open_ended_wait(OnOpen on_open);
  kernel::WaitRef open_wait(std::coroutine_handle<> h, int32_t* result, int64_t deadline_local_us);
  bool complete_wait(kernel::WaitRef ref, int32_t result);
  bool wait_open(kernel::WaitRef ref) const;
  void close_wait(kernel::WaitRef ref);
  // Runs `step` now, or when the client resumes if it is paused (a stop-the-world pause).
  void run_step(std::function<void()> step);
  runtime::Task<runtime::CallResult> call(size_t endpoint, std::vector<std::string> argv,
                                          runtime::CallOptions options);
  LiveLoop& loop() { return loop_; }
  uint16_t port(size_t endpoint) const { return ports_[endpoint]; }
  // Record each command's `exec` event from the nodes' MONITOR lines (null: none recorded).
  void set_monitor(ExecMonitor* monitor) { monitor_ = monitor; }
  // The run's link faults and node names (null: none).
  void set_links(Links* links) { links_ = links; }
  const std::string& node_at(uint16_t port) const;
  // A message from process `from` to `to` now: lost on the link? its extra latency?
  bool link_lost(const std::string& from, const std::string& to);
  int64_t link_delay_us(const std::string& from, const std::string& to);
  // Whether a partition blocks a message from `from` to `to` now (no drop draws).
  bool link_partitioned(const std::string& from, const std::string& to) const;
  // A reply says node `node` ran a script of operation `op` (faults on "*_executed" land).
  void script_ran(const std::string& node, int64_t op);
  void set_on_script_ran(std::function<void(const std::string&, int64_t)> f) { on_script_ran_ = std::move(f); }
  // lose_reply: is the reply to this client's command swallowed?
  bool lose_reply(std::string_view command, const char* script);
  // "c1/cmd@node0#3": a new connection's name in exec events.
  std::string label(const char* kind, size_t endpoint);
  void record_exec(uint16_t node_port, const MonitorLine& line, const std::string& conn,
                   const std::vector<std::string>& argv, const char* script, int64_t op,
                   const redis::Reply& reply);
  // The value of `key` right after the command MONITOR showed as `line` (dump: the live dump
  // script's entry for it; null: none).
  void record_state(uint16_t node_port, const MonitorLine& line, const std::string& key, const redis::Reply* dump);
  // A reply came without its MONITOR line (the history says "monitor_lost" of that node).
  void monitor_lost(uint16_t node_port);

 private:
  class LiveConnection;
  class LivePubSub;
  class LiveSemaphore;
  struct Slot {
    std::coroutine_handle<> handle;
    int32_t* result = nullptr;
    uint32_t gen = 0;
    uint8_t state = 0;  // 0 free, 1 waiting, 2 completed (its resumption is posted)
    int64_t deadline_local_us = 0;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };
  struct Root {
    runtime::Task<void> task;
    uint32_t gen = 0;
    bool live = false;
  };
  void free_slot(uint32_t index);
  // Sets slot `index`'s timer to fire when the clock reads its deadline.
  void arm_timer(uint32_t index);
  void destroy_root(uint32_t index);
  void start_root(uint32_t index, uint32_t gen);
  std::shared_ptr<Conn> command_conn(size_t endpoint);

  LiveLoop& loop_;
  history::Recorder& rec_;
  std::string name_;
  std::string uuid_;
  Rng rng_;
  kernel::ThreadInterrupts<LiveClient> interrupts_{*this};
  std::function<void(const std::string&, int64_t)> on_script_ran_;
  kernel::LocalClock clock_;
  runtime::ClientOptions options_;
  const std::vector<uint16_t>& ports_;
  std::function<void(std::string)> on_fail_;
  std::function<int64_t(size_t)> replicas_;
  kernel::HoldBook holds_;
  kernel::Coverage coverage_;
  std::vector<std::unique_ptr<runtime::Thread>> threads_;
  std::unique_ptr<runtime::LockClient> lock_client_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Root> roots_;
  std::vector<uint32_t> free_roots_;
  std::vector<std::shared_ptr<Conn>> cmd_;  // by endpoint; null until first used
  std::vector<std::unique_ptr<LiveConnection>> connections_;  // by endpoint
  std::vector<std::unique_ptr<LivePubSub>> pubsubs_;          // by endpoint
  std::vector<std::function<void()>> deferred_;  // steps held back by a pause
  ExecMonitor* monitor_ = nullptr;
  Links* links_ = nullptr;
  Rng link_rng_;  // draws of drop faults (declared last: initialised from the client's stream)
  uint32_t conn_serial_ = 0;
  bool paused_ = false;
  bool up_ = true;
  uint32_t epoch_ = 0;  // incremented by a crash: steps of the old epoch are dropped
};

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_LIVE_CLIENT_H_
