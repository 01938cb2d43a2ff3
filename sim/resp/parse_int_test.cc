#include "sim/resp/parse_int.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep::resp {
namespace {

TEST(RedisStringToInt64, AcceptsCanonicalIntegers) {
  EXPECT_EQ(redis_string_to_int64("0"), 0);
  EXPECT_EQ(redis_string_to_int64("7"), 7);
  EXPECT_EQ(redis_string_to_int64("-12"), -12);
  EXPECT_EQ(redis_string_to_int64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(redis_string_to_int64("-9223372036854775808"), INT64_MIN);
}

TEST(RedisStringToInt64, RefusesWhatRedisRefuses) {
  for (const char* bad : {"", "-", "-0", "01", "+1", " 1", "1 ", "1x", "9223372036854775808",
                          "-9223372036854775809", "18446744073709551616", "000000000000000000001"}) {
    EXPECT_FALSE(redis_string_to_int64(bad).has_value()) << bad;
  }
}

RC_GTEST_PROP(RedisStringToInt64, RoundTripsToString, (int64_t v)) {
  RC_ASSERT(redis_string_to_int64(std::to_string(v)) == std::optional<int64_t>(v));
}

}  // namespace
}  // namespace lockstep::resp
