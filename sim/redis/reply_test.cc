// Reply's RESP3 types and to_resp2(), what a RESP2 client gets for each (Redis 7.0).
#include "sim/redis/reply.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

TEST(ReplyTest, DoublesArePrintedAsRedisPrintsThem) {
  EXPECT_EQ(D(1.5).str, "1.5");
  EXPECT_EQ(D(0.1).str, "0.10000000000000001");
  EXPECT_EQ(D(3).str, "3");
  EXPECT_EQ(D(-0.0).str, "-0");
  EXPECT_EQ(D(1e100).str, "1e+100");
  EXPECT_EQ(D(INFINITY).str, "inf");
  EXPECT_EQ(D(-INFINITY).str, "-inf");
  EXPECT_EQ(D(std::nan("")).str, "nan");
  EXPECT_EQ(D(-std::nan("")).str, "-nan");
  EXPECT_EQ(Reply::double_text("1.5"), D(1.5));
}

TEST(ReplyTest, VerbatimFormatsAreThreeBytes) {
  const Reply v = Reply::verbatim("txt", "hello");
  EXPECT_EQ(v.type, Reply::Type::kVerbatim);
  EXPECT_EQ(v.str, "txt:hello");
  EXPECT_EQ(v.verbatim_format(), "txt");
  EXPECT_EQ(v.verbatim_text(), "hello");
  EXPECT_EQ(Reply::verbatim("markdown", "x").str, "mar:x");
  EXPECT_EQ(Reply::verbatim("x", "").str, "x  :");
  EXPECT_EQ(Reply::verbatim(std::string_view("a\0bc", 4), "y").str, "a  :y");
}

TEST(ReplyTest, ToRespTwoGivesWhatARespTwoClientGets) {
  EXPECT_EQ(to_resp2(M({B("f"), B("v"), B("g"), D(2.5)})), A({B("f"), B("v"), B("g"), B("2.5")}));
  EXPECT_EQ(to_resp2(Set({B("a"), I(1)})), A({B("a"), I(1)}));
  EXPECT_EQ(to_resp2(P({B("message"), B("ch"), B("x")})), A({B("message"), B("ch"), B("x")}));
  EXPECT_EQ(to_resp2(D(-INFINITY)), B("-inf"));
  EXPECT_EQ(to_resp2(T(true)), I(1));
  EXPECT_EQ(to_resp2(T(false)), I(0));
  EXPECT_EQ(to_resp2(Reply::verbatim("txt", "a\r\nb")), B("a\r\nb"));
  EXPECT_EQ(to_resp2(Reply::big_number("123456789012345678901234567890")), B("123456789012345678901234567890"));
  // The two nils stay apart; RESP2 types are left alone, nested ones too.
  EXPECT_EQ(to_resp2(N()), N());
  EXPECT_EQ(to_resp2(NA()), NA());
  const Reply nested = A({A({B("m"), D(0.5)}), M({}), S("OK"), E("ERR x")});
  EXPECT_EQ(to_resp2(nested), A({A({B("m"), B("0.5")}), A({}), S("OK"), E("ERR x")}));
  EXPECT_FALSE(is_resp2(nested));
  EXPECT_TRUE(is_resp2(to_resp2(nested)));
  EXPECT_TRUE(is_resp2(A({N(), NA(), I(1), B("x")})));
}

TEST(ReplyTest, TypesAreCompared) {
  EXPECT_NE(M({B("a"), B("b")}), A({B("a"), B("b")}));
  EXPECT_NE(Set({B("a")}), A({B("a")}));
  EXPECT_NE(P({B("a")}), A({B("a")}));
  EXPECT_NE(D(1), B("1"));
  EXPECT_NE(T(true), I(1));
  EXPECT_EQ(describe(M({B("a"), D(1.5)})), "(map) {\"a\" => (double) 1.5}");
  EXPECT_EQ(describe(A({T(true), Set({}), P({})})), "[(true), (set) {}, (push) []]");
}

}  // namespace
}  // namespace lockstep::redis::testing
