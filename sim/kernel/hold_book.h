// HoldBook: which application thread of one client believes it holds which lock, and the
// history's hold_begin / hold_end events that say so; also the client's door into the history
// for the operations only it knows of (Runtime::begin_op / end_op: watchdog renewals).
//
// A hold begins when a thread's count of a lock in a mode goes from 0 to 1 and ends when an
// unlock is invoked at count 1, when the client learns it lost the lock, when the client crashes
// or when the run ends. Shared by the simulator's client process and the live client
// (harness/live), so both write holds the same way.
#ifndef LOCKSTEP_SIM_KERNEL_HOLD_BOOK_H_
#define LOCKSTEP_SIM_KERNEL_HOLD_BOOK_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "runtime/runtime.h"
#include "sim/core/on_demand.h"
#include "sim/core/time.h"
#include "sim/history/recorder.h"

namespace lockstep::kernel {

// One hold as the client believed it (issue 9's ground truth): from the acquisition that opened
// it to the moment the thread stopped believing it held the lock. Kept only when a test asks
// (HoldBook::set_beliefs), to compare with what the checker reconstructs from the history.
struct Belief {
  std::string thread;
  std::string lock;
  history::LockMode mode = history::LockMode::kExclusive;
  TimeUs begin_us = 0;
  TimeUs end_us = kTimeNever;  // kTimeNever while believed
  history::HoldEnd reason = history::HoldEnd::kEnd;
};

class HoldBook {
 public:
  // REQUIRES: `rec` outlives the book.
  explicit HoldBook(history::Recorder& rec) : rec_(rec) {}
  // From now on every hold is logged in `beliefs` too (null: not logged).
  void set_beliefs(std::vector<Belief>* beliefs) { beliefs_ = beliefs; }

  // An acquire of `client`'s `thread` returned success at `now`.
  void acquired(TimeUs now, const runtime::Runtime& client, const runtime::Thread& thread,
                std::string_view lock, history::LockMode mode, int64_t op, int64_t token);
  // An unlock is being invoked: the thread stops believing it holds one count of it.
  void unlocking(TimeUs now, const runtime::Thread& thread, std::string_view lock,
                 history::LockMode mode);
  // The client learned the thread no longer holds it (reason "lost"); ignored if it held none.
  void lost(TimeUs now, const runtime::Thread& thread, std::string_view lock,
            history::LockMode mode);
  // Ends every open hold (the run ended, or the client crashed).
  void end_all(TimeUs now, history::HoldEnd reason);

  // Runtime::begin_op / end_op: `owner` is the owner name of record.thread.
  int64_t begin_op(TimeUs now, std::string_view owner, const runtime::OpRecord& record);
  void end_op(TimeUs now, int64_t op, const runtime::OpResult& result);

  // How many holds of `lock` in `mode` the thread believes it has (0 if none).
  int64_t count(const runtime::Thread& thread, std::string_view lock, history::LockMode mode) const;
  // The fencing token of the thread's current hold (kAbsent if none or no token).
  int64_t token(const runtime::Thread& thread, std::string_view lock) const;
  size_t open() const { return map().size(); }

 private:
  struct Hold {
    const runtime::Thread* thread = nullptr;
    int64_t count = 0;
    int64_t token = history::kAbsent;
    size_t belief = SIZE_MAX;  // its entry in *beliefs_, when they are kept
  };
  using Key = std::tuple<uint32_t, std::string, uint8_t>;  // thread index, lock, mode
  using Map = std::map<Key, Hold>;
  Map::iterator find(const runtime::Thread& thread, std::string_view lock, history::LockMode mode);
  void end(TimeUs now, Map::iterator it, history::HoldEnd reason);

  history::Recorder& rec_;
  std::vector<Belief>* beliefs_ = nullptr;
  // Allocated by the first hold: most clients of a crowd wait (B5 counts bytes per client).
  OnDemand<Map> holds_;
  Map& map() { return holds_.for_write(); }
  const Map& map() const { return holds_.get(); }
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_HOLD_BOOK_H_
