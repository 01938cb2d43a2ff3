#include "sim/redis/sha_memo.h"

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/redis/node.h"

namespace lockstep::redis {
namespace {

TEST(ShaMemoTest, KnownDigestAndRepeatHits) {
  ShaMemo memo;
  // SHA-1("abc"), FIPS 180-1 appendix A.
  EXPECT_EQ(memo.digest("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(memo.hits(), 0u);
  EXPECT_EQ(memo.digest("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(memo.hits(), 1u);
}

TEST(ShaMemoTest, SameLengthDifferentBodiesAreNotConfused) {
  ShaMemo memo;
  const std::string a = memo.digest("return 1");
  const std::string b = memo.digest("return 2");
  EXPECT_NE(a, b);
  EXPECT_EQ(memo.digest("return 1"), sha1_hex("return 1"));
  EXPECT_EQ(memo.digest("return 2"), sha1_hex("return 2"));
  EXPECT_EQ(memo.hits(), 2u);
}

TEST(ShaMemoTest, OversizeBodyIsHashedEveryTime) {
  ShaMemo memo;
  const std::string big(ShaMemo::kMaxBodyBytes + 1, 'x');
  EXPECT_EQ(memo.digest(big), sha1_hex(big));
  EXPECT_EQ(memo.digest(big), sha1_hex(big));
  EXPECT_EQ(memo.hits(), 0u);
}

TEST(ShaMemoTest, EvictsRoundRobinPastCapacity) {
  ShaMemo memo;
  for (size_t i = 0; i <= ShaMemo::kCapacity; ++i) memo.digest("body " + std::to_string(i));
  // body 0 was overwritten by body 16; body 1 is still there.
  memo.digest("body 1");
  EXPECT_EQ(memo.hits(), 1u);
  EXPECT_EQ(memo.digest("body 0"), sha1_hex("body 0"));
  EXPECT_EQ(memo.hits(), 1u);
}

// Whatever the sequence of bodies, the memo answers exactly what sha1_hex does.
RC_GTEST_PROP(ShaMemoProp, AgreesWithSha1Hex, ()) {
  ShaMemo memo;
  const auto picks = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 40));
  for (int p : picks) {
    const std::string body = "redis.call('get', KEYS[1]) -- " + std::to_string(p);
    RC_ASSERT(memo.digest(body) == sha1_hex(body));
  }
}

}  // namespace
}  // namespace lockstep::redis
