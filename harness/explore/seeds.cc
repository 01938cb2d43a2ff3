#include "harness/explore/seeds.h"

#include <charconv>
#include <cstdint>

#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

bool parse_u64(std::string_view text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

Result<Shard> parse_shard(std::string_view text) {
  const std::string bad = "--shard \"" + std::string(text) + "\": expected I/N with 1 <= I <= N <= " +
                          std::to_string(kMaxShards) + " (e.g. 2/4)";
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return Status::error(bad);
  Shard s;
  if (!parse_u64(text.substr(0, slash), s.index) || !parse_u64(text.substr(slash + 1), s.total)) {
    return Status::error(bad);
  }
  if (s.total < 1 || s.total > kMaxShards || s.index < 1 || s.index > s.total) return Status::error(bad);
  return s;
}

Status check_range(const SeedRange& range) {
  if (range.count < 1 || range.count > kMaxSeeds) {
    return Status::error("--seeds " + std::to_string(range.count) + ": expected 1 to " +
                         std::to_string(kMaxSeeds) + " seeds");
  }
  // Every seed must be one `lockstep run --seed` replays (and a scenario's `seed` allows): at
  // most 2^63 - 1.
  constexpr uint64_t kLastSeed = static_cast<uint64_t>(INT64_MAX);
  if (range.first > kLastSeed || range.count - 1 > kLastSeed - range.first) {
    return Status::error("--first-seed " + std::to_string(range.first) + ": the range of " + std::to_string(range.count) +
                         " seeds would pass 9223372036854775807 (2^63 - 1), the largest seed lockstep run replays");
  }
  return Status::ok_status();
}

SeedRange shard_slice(const SeedRange& range, const Shard& shard) {
  LS_ASSERT(shard.index >= 1 && shard.index <= shard.total);
  LS_ASSERT(range.count <= kMaxSeeds && shard.total <= kMaxShards);
  // Both products stay below 2^64: count <= 1e8 and total <= 1e6.
  const uint64_t lo = range.count * (shard.index - 1) / shard.total;
  const uint64_t hi = range.count * shard.index / shard.total;
  LS_ASSERT(lo <= hi && hi <= range.count);
  return SeedRange{range.first + lo, hi - lo};
}

}  // namespace lockstep::explore
