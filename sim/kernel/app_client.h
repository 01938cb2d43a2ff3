// AppClient: what the workload driver (harness/scenario/workload.h) needs of one client process,
// simulated (ClientProcess) or live (harness/live/live_client.h): the Runtime its lock client
// runs on, its application threads, the time its history is written in, and its holds.
#ifndef LOCKSTEP_SIM_KERNEL_APP_CLIENT_H_
#define LOCKSTEP_SIM_KERNEL_APP_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/lock_client.h"
#include "runtime/runtime.h"
#include "runtime/task.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"
#include "sim/kernel/hold_book.h"

namespace lockstep::kernel {

// A client's UUID from its named stream of the run's seed, printed as java.util.UUID prints a
// random (version 4) UUID: kUuidChars characters.
inline constexpr size_t kUuidChars = 36;
std::string make_uuid(Rng rng);

class AppClient : public runtime::Runtime {
 public:
  virtual size_t thread_count() const = 0;
  virtual const runtime::Thread& thread(uint32_t index) const = 0;
  virtual runtime::LockClient& lock_client() = 0;
  // Starts an application thread's task as a root of this client.
  virtual void start_thread(runtime::Task<void> task) = 0;
  // The time the history is written in: the simulation's true time, or the live run's monotonic
  // clock since its start.
  virtual TimeUs history_now() const = 0;
  // Suspends until the client's local clock reads `local_us`.
  virtual runtime::Task<void> sleep_until_local_us(TimeUs local_us) = 0;
  // sleep_ms as a wait that reports being signalled (for interruptible()).
  virtual runtime::Task<bool> sleep_for(int64_t ms) = 0;
  // Thread `index` invoked an acquisition (a tryLock, whose future a cancel can reach, when
  // `cancellable`) / its acquisition returned.
  virtual void call_started(uint32_t index, bool cancellable) = 0;
  virtual void call_ended(uint32_t index) = 0;
  virtual HoldBook& holds() = 0;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_APP_CLIENT_H_
