#include "sim/kernel/latency.h"

#include "sim/core/assert.h"

namespace lockstep::kernel {

LatencyDist LatencyDist::fixed(int64_t us) {
  LatencyDist d;
  d.kind = Kind::kFixed;
  d.min_us = d.max_us = us;
  LS_ASSERT(d.valid());
  return d;
}

LatencyDist LatencyDist::uniform(int64_t lo_us, int64_t hi_us) {
  LatencyDist d;
  d.kind = Kind::kUniform;
  d.min_us = lo_us;
  d.max_us = hi_us;
  LS_ASSERT(d.valid());
  return d;
}

bool LatencyDist::valid() const {
  switch (kind) {
    case Kind::kFixed:
      return min_us >= 0 && min_us <= kMaxUs;
    case Kind::kUniform:
      return min_us >= 0 && min_us <= max_us && max_us <= kMaxUs;
    case Kind::kChoice: {
      if (values_us.empty() || values_us.size() != weights.size()) return false;
      uint64_t total = 0;
      for (size_t i = 0; i < values_us.size(); ++i) {
        if (values_us[i] < 0 || values_us[i] > kMaxUs) return false;
        total += weights[i];
      }
      return total > 0;
    }
  }
  return false;
}

int64_t LatencyDist::draw(Rng& rng) const {
  LS_ASSERT(valid());
  int64_t result = min_us;
  if (kind == Kind::kUniform) {
    result = rng.between(min_us, max_us);
  } else if (kind == Kind::kChoice) {
    uint64_t total = 0;
    for (uint32_t w : weights) total += w;
    uint64_t pick = rng.below(total);
    size_t i = 0;
    while (pick >= weights[i]) pick -= weights[i++];
    result = values_us[i];
  }
  LS_ASSERT(result >= 0 && result <= kMaxUs);
  return result;
}

std::string LatencyDist::describe() const {
  switch (kind) {
    case Kind::kFixed:
      return "fixed " + std::to_string(min_us) + " us";
    case Kind::kUniform:
      return "uniform " + std::to_string(min_us) + ".." + std::to_string(max_us) + " us";
    case Kind::kChoice:
      return "choice of " + std::to_string(values_us.size()) + " values";
  }
  return "?";
}

}  // namespace lockstep::kernel
