// LatencyDist: how long a message takes on a link, in microseconds of true time.
//
// Three shapes cover what scenarios need: fixed, uniform between two bounds, and a weighted
// choice among values (a long tail: mostly 300 us, sometimes 50 ms). Draws come from the
// channel's own named Rng stream, so they never shift another link's draws.
#ifndef LOCKSTEP_SIM_KERNEL_LATENCY_H_
#define LOCKSTEP_SIM_KERNEL_LATENCY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/rng.h"

namespace lockstep::kernel {

struct LatencyDist {
  enum class Kind : uint8_t { kFixed, kUniform, kChoice };
  // Largest latency a distribution may produce (one hour): bounds event times.
  static constexpr int64_t kMaxUs = int64_t{3600} * 1000 * 1000;

  Kind kind = Kind::kFixed;
  int64_t min_us = 0;  // fixed: the value; uniform: lower bound (inclusive)
  int64_t max_us = 0;  // uniform: upper bound (inclusive)
  std::vector<int64_t> values_us;  // choice
  std::vector<uint32_t> weights;   // choice, same length, sum > 0

  static LatencyDist fixed(int64_t us);
  static LatencyDist uniform(int64_t lo_us, int64_t hi_us);

  // One latency draw. REQUIRES: valid().
  int64_t draw(Rng& rng) const;
  bool valid() const;
  std::string describe() const;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_LATENCY_H_
