// Seed ranges and shards for `lockstep explore` and `lockstep sweep`.
//
// An exploration runs the seeds first, first+1, ..., first+count-1. A CI matrix splits that range
// with `--shard I/N`: shard I (1-based) runs the I-th of N contiguous, disjoint slices, and the
// N slices together cover the range exactly, so the shards' results merge into the result of
// one unsharded run. Slice sizes differ by at most one seed.
#ifndef LOCKSTEP_HARNESS_EXPLORE_SEEDS_H_
#define LOCKSTEP_HARNESS_EXPLORE_SEEDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/status.h"

namespace lockstep::explore {

// The seeds [first, first + count).
struct SeedRange {
  uint64_t first = 1;
  uint64_t count = 0;

  uint64_t end() const { return first + count; }
  bool contains(uint64_t seed) const { return seed >= first && seed < end(); }
};

// Shard `index` (1-based) of `total`.
struct Shard {
  uint64_t index = 1;
  uint64_t total = 1;
};

// The most seeds one exploration may run (a limit on the work and on the result file).
inline constexpr uint64_t kMaxSeeds = 100'000'000;
// The most shards a range may be split into.
inline constexpr uint64_t kMaxShards = 1'000'000;

// Parses "I/N" (1 <= I <= N <= kMaxShards). Errors name the text and what was expected.
Result<Shard> parse_shard(std::string_view text);

// Checks that [first, first + count) has 1..kMaxSeeds seeds, the last at most 2^63 - 1 (the
// largest seed a scenario and `lockstep run --seed` take, so every seed replays).
Status check_range(const SeedRange& range);

// The slice of `range` that `shard` runs. REQUIRES: check_range(range) is ok and
// 1 <= shard.index <= shard.total.
SeedRange shard_slice(const SeedRange& range, const Shard& shard);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_SEEDS_H_
