// LocalClock: what one process (a client or a Redis node) believes the time is.
//
// local(t) = t + offset + drift_ppm * t / 1e6 + (the jumps applied before t), computed exactly
// in integers. Faults change a clock while the run goes on (a jump forward or back, a new
// offset, a new drift), so the clock is kept piecewise: one linear segment from the last change.
// Inside a segment local time never runs backwards (drift is bounded well above -100%), which
// lets a timer's local deadline be turned into the true time at which it fires.
#ifndef LOCKSTEP_SIM_KERNEL_LOCAL_CLOCK_H_
#define LOCKSTEP_SIM_KERNEL_LOCAL_CLOCK_H_

#include <cstdint>

#include "sim/core/time.h"

namespace lockstep::kernel {

class LocalClock {
 public:
  // Drift is bounded so a clock always moves forward between changes.
  static constexpr int64_t kMaxDriftPpm = 500'000;
  // Offsets and jumps are bounded so 128-bit intermediate products never matter for overflow of
  // the 64-bit results (about 115 days either way).
  static constexpr int64_t kMaxOffsetUs = int64_t{10'000'000} * kUsPerSecond;

  // local(t) = t + offset_us + drift_ppm * t / 1e6 (floored).
  // REQUIRES: |offset_us| <= kMaxOffsetUs, |drift_ppm| <= kMaxDriftPpm.
  LocalClock(int64_t offset_us = 0, int64_t drift_ppm = 0);

  // Local microseconds at true time t. REQUIRES: t >= the last change.
  int64_t local_us(TimeUs t) const;

  // The earliest true time >= not_before at which local_us(t) >= deadline_local_us, assuming no
  // further change. REQUIRES: not_before >= the last change.
  TimeUs true_time_at(int64_t deadline_local_us, TimeUs not_before) const;

  // Changes, effective at true time `now` (REQUIRES: now >= the last change):
  // steps the clock by delta_us (negative goes back);
  void jump(TimeUs now, int64_t delta_us);
  // steps the clock so that local_us(now) == now + offset_us (drift keeps its rate);
  void set_offset(TimeUs now, int64_t offset_us);
  // keeps local_us(now) and runs at rate 1 + drift_ppm/1e6 from now on.
  void set_drift(TimeUs now, int64_t drift_ppm);

  int64_t drift_ppm() const { return drift_ppm_; }
  // The current offset from true time at `t` (local - true).
  int64_t offset_at(TimeUs t) const { return local_us(t) - t; }
  // Incremented by every change; holders of converted deadlines compare it to re-time.
  uint32_t version() const { return version_; }

 private:
  void start_segment(TimeUs now, int64_t local_at_now, int64_t drift_ppm);

  TimeUs segment_start_ = 0;      // true time of the last change
  int64_t segment_local_ = 0;     // local time at segment_start_
  int64_t drift_ppm_ = 0;
  uint32_t version_ = 0;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_LOCAL_CLOCK_H_
