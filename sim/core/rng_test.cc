#include "sim/core/rng.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

namespace lockstep {
namespace {

TEST(Rng, SameSeedSameSequence) {
  Rng a(42), b(42);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(a.next_u64(), b.next_u64());
}

TEST(Rng, KnownFirstValueIsStable) {
  // Pins the generator: a change here silently changes every recorded seed's replay.
  Rng r(1);
  EXPECT_EQ(r.next_u64(), 0xb3f2af6d0fc710c5ULL);
}

TEST(Rng, StreamsDoNotDependOnParentDraws) {
  Rng a(7), b(7);
  for (int i = 0; i < 17; i++) b.next_u64();
  Rng sa = a.stream("client/A"), sb = b.stream("client/A");
  for (int i = 0; i < 100; i++) ASSERT_EQ(sa.next_u64(), sb.next_u64());
}

TEST(Rng, DifferentStreamNamesDiffer) {
  Rng a(7);
  EXPECT_NE(a.stream("client/A").next_u64(), a.stream("client/B").next_u64());
}

TEST(Rng, BelowCoversSmallRange) {
  Rng r(3);
  std::set<uint64_t> seen;
  for (int i = 0; i < 200; i++) seen.insert(r.below(5));
  EXPECT_EQ(seen, (std::set<uint64_t>{0, 1, 2, 3, 4}));
}

RC_GTEST_PROP(Rng, BetweenStaysInBounds, (uint64_t seed, int32_t lo, uint16_t width)) {
  Rng r(seed);
  const int64_t hi = static_cast<int64_t>(lo) + width;
  for (int i = 0; i < 20; i++) {
    const int64_t v = r.between(lo, hi);
    RC_ASSERT(v >= lo);
    RC_ASSERT(v <= hi);
  }
}

TEST(Rng, ChancePpmExtremes) {
  Rng r(9);
  for (int i = 0; i < 100; i++) {
    EXPECT_FALSE(r.chance_ppm(0));
    EXPECT_TRUE(r.chance_ppm(1000000));
  }
}

}  // namespace
}  // namespace lockstep
