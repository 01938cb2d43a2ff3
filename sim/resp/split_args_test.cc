#include "sim/resp/split_args.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace lockstep::resp {
namespace {

using Args = std::vector<std::string>;

TEST(SplitInlineArgs, SplitsOnBlanks) {
  EXPECT_EQ(split_inline_args("SET  k\tv "), (Args{"SET", "k", "v"}));
  EXPECT_EQ(split_inline_args(""), Args{});
  EXPECT_EQ(split_inline_args(" \v\f "), Args{});
}

TEST(SplitInlineArgs, HonoursQuotesAndEscapes) {
  EXPECT_EQ(split_inline_args("echo \"\\x41\\n\""), (Args{"echo", "A\n"}));
  EXPECT_EQ(split_inline_args("a \"b c\" 'd\\'e'"), (Args{"a", "b c", "d'e"}));
  EXPECT_EQ(split_inline_args("x\"a b\""), (Args{"xa b"}));
  EXPECT_EQ(split_inline_args("'a\\nb'"), (Args{"a\\nb"}));
  EXPECT_EQ(split_inline_args("\"\\q\\\\\""), (Args{"q\\"}));
  EXPECT_EQ(split_inline_args("\"\\xZZ\""), (Args{"xZZ"}));
}

TEST(SplitInlineArgs, RefusesUnbalancedQuotes) {
  EXPECT_FALSE(split_inline_args("PING \"a"));
  EXPECT_FALSE(split_inline_args("PING \"a\"b"));
  EXPECT_FALSE(split_inline_args("PING 'a'b"));
  EXPECT_FALSE(split_inline_args("'abc"));
  EXPECT_FALSE(split_inline_args("\"abc\\"));
}

TEST(SplitInlineArgs, StopsAtNulLikeC) {
  EXPECT_EQ(split_inline_args(std::string_view("a b\0c", 5)), (Args{"a", "b"}));
}

RC_GTEST_PROP(SplitInlineArgs, QuotedArgumentsRoundTrip, (std::vector<std::string> args)) {
  std::string line;
  for (const std::string& a : args) line += quote_inline_arg(a) + " ";
  const auto parsed = split_inline_args(line);
  RC_ASSERT(parsed.has_value());
  RC_ASSERT(*parsed == args);
}

}  // namespace
}  // namespace lockstep::resp
