#include "harness/explore/seeds.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep::explore {
namespace {

TEST(SeedsTest, ParsesShards) {
  Result<Shard> s = parse_shard("2/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value().index, 2u);
  EXPECT_EQ(s.value().total, 4u);
  EXPECT_TRUE(parse_shard("1/1").ok());
}

TEST(SeedsTest, RejectsBadShardsWithTheExpectedForm) {
  for (const char* bad : {"", "3", "0/4", "5/4", "a/4", "2/", "/4", "2/4/1", "-1/4", "2 /4", "1/0",
                          "1/99999999999999999999"}) {
    Result<Shard> s = parse_shard(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("expected I/N"), std::string::npos) << s.status().message();
  }
}

TEST(SeedsTest, ChecksRanges) {
  EXPECT_TRUE(check_range(SeedRange{1, 100}).ok());
  EXPECT_FALSE(check_range(SeedRange{1, 0}).ok());
  EXPECT_FALSE(check_range(SeedRange{1, kMaxSeeds + 1}).ok());
  EXPECT_FALSE(check_range(SeedRange{UINT64_MAX - 5, 10}).ok());
  // The last seed is at most 2^63 - 1, the largest `lockstep run --seed` replays.
  const uint64_t last = static_cast<uint64_t>(INT64_MAX);
  EXPECT_TRUE(check_range(SeedRange{last - 9, 10}).ok());
  EXPECT_TRUE(check_range(SeedRange{last, 1}).ok());
  const Status over = check_range(SeedRange{last - 8, 10});
  EXPECT_EQ(over.message(), "--first-seed 9223372036854775799: the range of 10 seeds would pass 9223372036854775807 (2^63 - 1), "
                            "the largest seed lockstep run replays");
  EXPECT_FALSE(check_range(SeedRange{last + 1, 1}).ok());
  EXPECT_FALSE(check_range(SeedRange{UINT64_MAX - 10, 10}).ok());
}

TEST(SeedsTest, SlicesAreContiguousAndEven) {
  const SeedRange r{100, 10};
  EXPECT_EQ(shard_slice(r, Shard{1, 3}).first, 100u);
  EXPECT_EQ(shard_slice(r, Shard{1, 3}).count, 3u);
  EXPECT_EQ(shard_slice(r, Shard{2, 3}).first, 103u);
  EXPECT_EQ(shard_slice(r, Shard{2, 3}).count, 3u);
  EXPECT_EQ(shard_slice(r, Shard{3, 3}).first, 106u);
  EXPECT_EQ(shard_slice(r, Shard{3, 3}).count, 4u);
  // More shards than seeds: some shards are empty, none overlaps.
  EXPECT_EQ(shard_slice(SeedRange{1, 2}, Shard{1, 4}).count, 0u);
}

// The shards of a range are disjoint, in order, and cover it exactly; sizes differ by <= 1.
RC_GTEST_PROP(SeedsProp, ShardsAreDisjointAndCovering, ()) {
  const uint64_t first = *rc::gen::inRange<uint64_t>(0, 1'000'000'000);
  const uint64_t count = *rc::gen::inRange<uint64_t>(1, 100'000);
  const uint64_t total = *rc::gen::inRange<uint64_t>(1, 300);
  const SeedRange r{first, count};
  uint64_t next = first;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint64_t i = 1; i <= total; ++i) {
    const SeedRange s = shard_slice(r, Shard{i, total});
    RC_ASSERT(s.first == next);
    next = s.end();
    lo = std::min(lo, s.count);
    hi = std::max(hi, s.count);
  }
  RC_ASSERT(next == r.end());
  RC_ASSERT(hi - lo <= 1);
}

}  // namespace
}  // namespace lockstep::explore
