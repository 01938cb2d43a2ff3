#include "sim/kernel/local_clock.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep::kernel {
namespace {

TEST(LocalClockTest, OffsetAndDriftFollowTheFormula) {
  LocalClock c(5'000, 100);  // +5 ms, runs 100 ppm fast
  EXPECT_EQ(c.local_us(0), 5'000);
  EXPECT_EQ(c.local_us(1'000'000), 5'000 + 1'000'000 + 100);
  EXPECT_EQ(c.local_us(10'000), 5'000 + 10'000 + 1);
  LocalClock slow(0, -250'000);  // runs at 3/4 speed
  EXPECT_EQ(slow.local_us(4'000'000), 3'000'000);
  EXPECT_EQ(slow.local_us(3), 2);  // floor(3 * 0.75)
}

TEST(LocalClockTest, JumpsForwardAndBackAreStepsAtTheirTime) {
  LocalClock c;
  c.jump(10'000'000, 40'000'000);
  EXPECT_EQ(c.local_us(10'000'000), 50'000'000);
  EXPECT_EQ(c.local_us(11'000'000), 51'000'000);
  c.jump(12'000'000, -30'000'000);
  EXPECT_EQ(c.local_us(12'000'000), 22'000'000);
  EXPECT_EQ(c.version(), 2u);
}

TEST(LocalClockTest, SetOffsetAndSetDriftAreContinuousWhereTheyShouldBe) {
  LocalClock c(0, 1000);
  EXPECT_EQ(c.local_us(1'000'000), 1'001'000);
  c.set_drift(1'000'000, 0);
  EXPECT_EQ(c.local_us(1'000'000), 1'001'000);  // continuous
  EXPECT_EQ(c.local_us(2'000'000), 2'001'000);  // no more drift
  c.set_offset(2'000'000, -500);
  EXPECT_EQ(c.local_us(2'000'000), 1'999'500);
  EXPECT_EQ(c.offset_at(3'000'000), -500);
}

TEST(LocalClockTest, TrueTimeAtInvertsTheClock) {
  LocalClock c(0, 0);
  EXPECT_EQ(c.true_time_at(30'000'000, 0), 30'000'000);
  c.jump(1'000'000, 40'000'000);  // local = t + 40 s
  EXPECT_EQ(c.true_time_at(30'000'000, 1'000'000), 1'000'000);  // already passed: now
  EXPECT_EQ(c.true_time_at(45'000'000, 1'000'000), 5'000'000);
  LocalClock fast(0, 1'000);  // 1000 ppm fast: 1 s local in 999001 us
  EXPECT_EQ(fast.true_time_at(1'000'000, 0), 999'001);
}

RC_GTEST_PROP(LocalClockProp, TrueTimeAtIsTheFirstInstantReachingTheDeadline,
              (int32_t offset_ms, int32_t drift, uint32_t start, uint32_t ahead)) {
  const int64_t drift_ppm = drift % LocalClock::kMaxDriftPpm;
  LocalClock c(static_cast<int64_t>(offset_ms % 1'000'000) * 1000, drift_ppm);
  c.jump(start, static_cast<int64_t>(offset_ms % 7'777) * 100);
  const int64_t deadline = c.local_us(start) + ahead;
  const TimeUs t = c.true_time_at(deadline, start);
  RC_ASSERT(t >= static_cast<TimeUs>(start));
  RC_ASSERT(c.local_us(t) >= deadline);
  if (t > static_cast<TimeUs>(start)) RC_ASSERT(c.local_us(t - 1) < deadline);
}

// local_us computes in 64 bits while ppm * elapsed fits and in 128 bits beyond: both agree with
// the formula floor((1e6 + ppm) * elapsed / 1e6), on either side of the switch.
RC_GTEST_PROP(LocalClockProp, LocalTimeFollowsTheFormulaAtEveryScale, (int32_t drift, uint64_t raw, uint8_t shift)) {
  const int64_t drift_ppm = drift % (LocalClock::kMaxDriftPpm + 1);
  const int64_t elapsed = static_cast<int64_t>((raw >> (shift % 64)) & ((uint64_t{1} << 61) - 1));
  const LocalClock c(0, drift_ppm);
  const __int128 want = (static_cast<__int128>(1'000'000 + drift_ppm) * elapsed) / 1'000'000;
  RC_ASSERT(static_cast<__int128>(c.local_us(elapsed)) == want);
}

TEST(LocalClockTest, NegativeDriftRoundsDownAroundTheSwitchTo128Bits) {
  // The largest elapsed whose product with the largest drift still fits in 64 bits, and the next.
  const int64_t edge = INT64_MAX / LocalClock::kMaxDriftPpm;
  for (int64_t drift : {-LocalClock::kMaxDriftPpm, -1L, 1L, LocalClock::kMaxDriftPpm}) {
    const LocalClock c(0, drift);
    for (int64_t e : {int64_t{1}, int64_t{999'999}, edge - 1, edge, edge + 1, edge * 2}) {
      const __int128 want = (static_cast<__int128>(1'000'000 + drift) * e) / 1'000'000;
      EXPECT_EQ(static_cast<__int128>(c.local_us(e)), want) << "drift " << drift << " elapsed " << e;
    }
  }
}

}  // namespace
}  // namespace lockstep::kernel
