// Column<T>: indexing across blocks, addresses that never move, iterators for <algorithm>.
#include "checker/column.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace lockstep::checker {
namespace {

TEST(Column, HoldsWhatWasPushedAcrossBlocks) {
  Column<int64_t> c;
  EXPECT_TRUE(c.empty());
  const size_t n = 3 * Column<int64_t>::kBlockSize + 7;
  for (size_t i = 0; i < n; ++i) c.push_back(static_cast<int64_t>(i * 3));
  ASSERT_EQ(c.size(), n);
  EXPECT_FALSE(c.empty());
  for (size_t i : {size_t{0}, Column<int64_t>::kBlockSize - 1, Column<int64_t>::kBlockSize, n - 1}) {
    EXPECT_EQ(c[i], static_cast<int64_t>(i * 3));
  }
  EXPECT_EQ(c.back(), static_cast<int64_t>((n - 1) * 3));
  c[5] = -1;
  EXPECT_EQ(c[5], -1);
}

// The point of a Column: an element stays where it is while the column grows.
TEST(Column, NeverMovesAnElement) {
  Column<int64_t> c;
  c.push_back(42);
  const int64_t* first = &c[0];
  for (int i = 0; i < 100'000; ++i) c.push_back(i);
  EXPECT_EQ(&c[0], first);
  EXPECT_EQ(*first, 42);
}

TEST(Column, IteratorsWorkWithAlgorithms) {
  Column<int64_t> c;
  for (int64_t i = 0; i < 40'000; ++i) c.push_back(i * 2);
  const Column<int64_t>& cc = c;
  const auto it = std::lower_bound(cc.begin(), cc.end(), 30'001);
  ASSERT_NE(it, cc.end());
  EXPECT_EQ(*it, 30'002);
  EXPECT_EQ(it.index(), 15'001u);
  EXPECT_EQ(cc.end() - cc.begin(), 40'000);
  EXPECT_EQ(std::count_if(cc.begin(), cc.end(), [](int64_t v) { return v % 1000 == 0; }), 80);
  int64_t sum = 0;
  for (int64_t v : cc) sum += v;
  EXPECT_EQ(sum, 40'000LL * 39'999);
  Column<int64_t>::const_iterator from_mutable = c.begin() + 3;
  EXPECT_EQ(*from_mutable, 6);
  EXPECT_EQ((from_mutable + 2)[1], 12);
}

}  // namespace
}  // namespace lockstep::checker
