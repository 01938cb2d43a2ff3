#include "sim/core/hash.h"

#include <set>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep {
namespace {

// Every byte of every length counts: changing one byte changes the hash.
RC_GTEST_PROP(HashBytes, OneChangedByteChangesTheHash, (const std::string& text, size_t at, uint8_t flip)) {
  RC_PRE(!text.empty() && flip != 0);
  std::string other = text;
  other[at % text.size()] = static_cast<char>(static_cast<uint8_t>(other[at % text.size()]) ^ flip);
  RC_ASSERT(hash_bytes(text) != hash_bytes(other));
}

TEST(HashBytes, LengthCountsForRunsOfTheSameByte) {
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 64; n++) seen.insert(hash_bytes(std::string(n, '\0')));
  EXPECT_EQ(seen.size(), 65u);
}

// Tables use the low bits: 100,000 similar keys fill 2^16 buckets about as uniform hashing would
// (1 - e^(-100000/65536) of them, 78.3 %, 51.3k). Forcing any bit (an earlier `| 1`) halves that.
TEST(HashBytes, LowBitsOfSimilarKeysSpreadLikeUniformHashing) {
  std::set<uint64_t> buckets;
  for (int i = 0; i < 100'000; i++) buckets.insert(hash_bytes("lock:" + std::to_string(i)) & 0xffff);
  EXPECT_GT(buckets.size(), 50'000u);
  EXPECT_LT(buckets.size(), 53'000u);
}

}  // namespace
}  // namespace lockstep
