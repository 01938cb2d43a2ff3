#include "sim/redis/util.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <string>

namespace lockstep::redis {
namespace {

TEST(ParseInt64Test, AcceptsOnlyCanonicalIntegers) {
  int64_t v = 0;
  EXPECT_TRUE(parse_int64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parse_int64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(parse_int64("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  for (const char* bad : {"", "-", "+1", " 1", "1 ", "007", "-0", "1.0", "9223372036854775808",
                          "-9223372036854775809", "99999999999999999999", "1e3", "0x10"}) {
    EXPECT_FALSE(parse_int64(bad, &v)) << bad;
  }
}

RC_GTEST_PROP(ParseInt64Test, RoundTripsDecimalText, (int64_t value)) {
  int64_t parsed = 0;
  RC_ASSERT(parse_int64(std::to_string(value), &parsed));
  RC_ASSERT(parsed == value);
}

TEST(ParseDoubleTest, FollowsRedisRules) {
  double d = 0;
  EXPECT_TRUE(parse_double("1.5", &d));
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(parse_double("inf", &d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_TRUE(parse_double("-inf", &d));
  EXPECT_TRUE(parse_double("0x10", &d));
  EXPECT_EQ(d, 16);
  for (const char* bad : {"", " 1", "1 ", "nan", "abc", "1e400", "-1e400"}) {
    EXPECT_FALSE(parse_double(bad, &d)) << bad;
  }
  EXPECT_FALSE(parse_double(std::string_view("1\0", 2), &d));
}

TEST(FormatDoubleTest, PrintsLikeRedis) {
  EXPECT_EQ(format_double(0.1), "0.10000000000000001");
  EXPECT_EQ(format_double(3), "3");
  EXPECT_EQ(format_double(-0.0), "-0");
  EXPECT_EQ(format_double(1e300), "1.0000000000000001e+300");
  EXPECT_EQ(format_double(1.0 / 0.0), "inf");
  EXPECT_EQ(format_double(-1.0 / 0.0), "-inf");
  EXPECT_EQ(format_double(123456789012345678.0), "1.2345678901234568e+17");
  char buf[32];
  EXPECT_EQ(std::string(buf, format_double_g17(30000, buf)), "30000");
  EXPECT_EQ(std::string(buf, format_double_g17(1.0 / 0.0, buf)), "inf");
}

RC_GTEST_PROP(FormatDoubleTest, FastPathMatchesPrintf, (int32_t whole, bool negative_zero)) {
  double value = negative_zero ? -0.0 : static_cast<double>(whole);
  char fast[32], slow[32];
  size_t n = format_double_g17(value, fast);
  int m = std::snprintf(slow, sizeof slow, "%.17g", value);
  RC_ASSERT(std::string(fast, n) == std::string(slow, static_cast<size_t>(m)));
}

TEST(GlobMatchTest, RedisStringmatchCases) {
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_FALSE(glob_match("*", ""));  // Redis never matches an empty string except with ""
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_TRUE(glob_match("h?llo", "hello"));
  EXPECT_FALSE(glob_match("h?llo", "hllo"));
  EXPECT_TRUE(glob_match("h*llo", "heeeello"));
  EXPECT_TRUE(glob_match("h[ae]llo", "hallo"));
  EXPECT_FALSE(glob_match("h[ae]llo", "hillo"));
  EXPECT_TRUE(glob_match("h[^e]llo", "hallo"));
  EXPECT_FALSE(glob_match("h[^e]llo", "hello"));
  EXPECT_TRUE(glob_match("h[a-b]llo", "hbllo"));
  EXPECT_TRUE(glob_match("h[b-a]llo", "hallo"));  // reversed ranges are swapped
  EXPECT_TRUE(glob_match("h\\*llo", "h*llo"));
  EXPECT_FALSE(glob_match("h\\*llo", "hello"));
  EXPECT_TRUE(glob_match("[lz]", "z"));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXXbYY"));
  EXPECT_TRUE(glob_match("[abc", "b"));   // an unterminated class runs to the end
  EXPECT_TRUE(glob_match("[^", "x"));     // an empty negated class matches any byte
  EXPECT_FALSE(glob_match("[", "x"));
  EXPECT_TRUE(glob_match("redisson_lock__channel:*", "redisson_lock__channel:{a}"));
  EXPECT_TRUE(glob_match("SAVE", "save", /*nocase=*/true));
  EXPECT_FALSE(glob_match("SAVE", "save"));
}

RC_GTEST_PROP(GlobMatchTest, LiteralPatternsMatchOnlyThemselves, (std::string a, std::string b)) {
  auto literal = [](const std::string& s) {
    return s.find_first_of("*?[\\") == std::string::npos;
  };
  RC_PRE(literal(a));
  RC_ASSERT(glob_match(a, a));
  if (a != b && !b.empty()) RC_ASSERT(!glob_match(a, b));
}

RC_GTEST_PROP(GlobMatchTest, StarPrefixSuffix, (std::string prefix, std::string middle, std::string suffix)) {
  auto literal = [](const std::string& s) { return s.find_first_of("*?[\\") == std::string::npos; };
  RC_PRE(literal(prefix) && literal(suffix));
  std::string text = prefix + middle + suffix;
  RC_PRE(!text.empty());
  RC_ASSERT(glob_match(prefix + "*" + suffix, text));
}

TEST(AsciiLowerTest, EightBytesAtOnce) {
  const char in[9] = "AbZ@[`z_";
  uint64_t word = 0;
  std::memcpy(&word, in, 8);
  word = ascii_lower8(word);
  char out[9] = {};
  std::memcpy(out, &word, 8);
  EXPECT_STREQ(out, "abz@[`z_");
}

RC_GTEST_PROP(AsciiLowerTest, MatchesBytewise, (uint64_t word)) {
  unsigned char bytes[8];
  std::memcpy(bytes, &word, 8);
  uint64_t lowered = ascii_lower8(word);
  unsigned char got[8];
  std::memcpy(got, &lowered, 8);
  for (int i = 0; i < 8; i++) {
    RC_ASSERT(got[i] == static_cast<unsigned char>(ascii_lower(static_cast<char>(bytes[i]))));
  }
}

TEST(IequalsTest, CaseInsensitive) {
  EXPECT_TRUE(iequals("EVALSHA", "evalsha"));
  EXPECT_FALSE(iequals("eval", "evalsha"));
  EXPECT_FALSE(iequals("a_", "a\x7f"));
}

}  // namespace
}  // namespace lockstep::redis
