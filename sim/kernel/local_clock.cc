#include "sim/kernel/local_clock.h"

#include "sim/core/assert.h"

namespace lockstep::kernel {
namespace {

constexpr __int128 kPpmScale = 1'000'000;

// floor((1e6 + ppm) * elapsed / 1e6) for elapsed >= 0: the local microseconds that pass while
// `elapsed` true microseconds do. Equal to elapsed + floor(ppm * elapsed / 1e6).
int64_t scaled(int64_t elapsed_us, int64_t ppm) {
  LS_ASSERT(elapsed_us >= 0);
  LS_ASSERT(ppm > -kPpmScale);
  if (ppm == 0) return elapsed_us;
  // elapsed + floor(ppm * elapsed / 1e6) in 64 bits when the product fits (elapsed below about
  // 213 days at the largest drift); 128-bit division is several times slower.
  int64_t product = 0;
  if (!__builtin_mul_overflow(ppm, elapsed_us, &product)) {
    constexpr int64_t kScale = static_cast<int64_t>(kPpmScale);
    int64_t q = product / kScale;
    if (product % kScale != 0 && product < 0) q--;
    return elapsed_us + q;
  }
  const __int128 num = static_cast<__int128>(kPpmScale + ppm) * elapsed_us;
  return static_cast<int64_t>(num / kPpmScale);
}

}  // namespace

LocalClock::LocalClock(int64_t offset_us, int64_t drift_ppm) {
  LS_ASSERT(offset_us >= -kMaxOffsetUs && offset_us <= kMaxOffsetUs);
  LS_ASSERT(drift_ppm >= -kMaxDriftPpm && drift_ppm <= kMaxDriftPpm);
  segment_local_ = offset_us;
  drift_ppm_ = drift_ppm;
}

int64_t LocalClock::local_us(TimeUs t) const {
  LS_ASSERT(t >= segment_start_);
  return segment_local_ + scaled(t - segment_start_, drift_ppm_);
}

TimeUs LocalClock::true_time_at(int64_t deadline_local_us, TimeUs not_before) const {
  LS_ASSERT(not_before >= segment_start_);
  if (local_us(not_before) >= deadline_local_us) return not_before;
  // Smallest x >= 0 with floor((1e6+ppm) x / 1e6) >= need, i.e. (1e6+ppm) x >= need * 1e6.
  const __int128 need = static_cast<__int128>(deadline_local_us) - segment_local_;
  LS_ASSERT(need > 0);
  const __int128 rate = kPpmScale + drift_ppm_;
  const __int128 x = (need * kPpmScale + rate - 1) / rate;
  const __int128 t = static_cast<__int128>(segment_start_) + x;
  if (t >= kTimeNever) return kTimeNever;
  LS_ASSERT(static_cast<TimeUs>(t) > not_before);
  return static_cast<TimeUs>(t);
}

void LocalClock::start_segment(TimeUs now, int64_t local_at_now, int64_t drift_ppm) {
  LS_ASSERT(now >= segment_start_);
  LS_ASSERT(drift_ppm >= -kMaxDriftPpm && drift_ppm <= kMaxDriftPpm);
  segment_start_ = now;
  segment_local_ = local_at_now;
  drift_ppm_ = drift_ppm;
  ++version_;
}

void LocalClock::jump(TimeUs now, int64_t delta_us) {
  LS_ASSERT(delta_us >= -kMaxOffsetUs && delta_us <= kMaxOffsetUs);
  start_segment(now, local_us(now) + delta_us, drift_ppm_);
}

void LocalClock::set_offset(TimeUs now, int64_t offset_us) {
  LS_ASSERT(offset_us >= -kMaxOffsetUs && offset_us <= kMaxOffsetUs);
  start_segment(now, now + offset_us, drift_ppm_);
}

void LocalClock::set_drift(TimeUs now, int64_t drift_ppm) {
  start_segment(now, local_us(now), drift_ppm);
}

}  // namespace lockstep::kernel
