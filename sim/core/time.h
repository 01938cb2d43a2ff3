// Integer virtual time.
//
// True time is a count of microseconds since the start of a run. Durations carry their unit in
// the name (lease_ms, delay_us). Floating point never appears in time arithmetic.
#ifndef LOCKSTEP_SIM_CORE_TIME_H_
#define LOCKSTEP_SIM_CORE_TIME_H_

#include <cstdint>

namespace lockstep {

// Microseconds of true (simulated) time since the start of the run.
using TimeUs = int64_t;

constexpr int64_t kUsPerMs = 1000;
constexpr int64_t kUsPerSecond = 1000 * 1000;
constexpr TimeUs kTimeNever = INT64_MAX;

constexpr int64_t ms_to_us(int64_t ms) { return ms * kUsPerMs; }
// Rounds toward negative infinity, so a clock that reads -1 us is in millisecond -1.
constexpr int64_t us_to_ms_floor(int64_t us) {
  return us >= 0 ? us / kUsPerMs : -((-us + kUsPerMs - 1) / kUsPerMs);
}

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_TIME_H_
