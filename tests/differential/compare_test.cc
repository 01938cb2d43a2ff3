// The comparison rules of the differential test: each exception is as narrow as stated.
#include "tests/differential/compare.h"

#include <gtest/gtest.h>

namespace lockstep::differential {
namespace {

using redis::Reply;

TEST(Compare, ExactByDefault) {
  EXPECT_TRUE(replies_match(Reply::nil(), Reply::nil(), CompareRule::kExact));
  EXPECT_FALSE(replies_match(Reply::nil(), Reply::nil_array(), CompareRule::kExact));
  EXPECT_FALSE(replies_match(Reply::integer_of(1), Reply::bulk("1"), CompareRule::kExact));
  EXPECT_FALSE(replies_match(Reply::array({Reply::bulk("a"), Reply::bulk("b")}),
                             Reply::array({Reply::bulk("b"), Reply::bulk("a")}), CompareRule::kExact));
}

TEST(Compare, TtlToleranceOnlyForNonNegativeIntegers) {
  EXPECT_TRUE(replies_match(Reply::integer_of(29990), Reply::integer_of(30000), CompareRule::kTtl));
  EXPECT_FALSE(replies_match(Reply::integer_of(29000), Reply::integer_of(30000), CompareRule::kTtl));
  EXPECT_FALSE(replies_match(Reply::integer_of(-1), Reply::integer_of(0), CompareRule::kTtl));
  EXPECT_FALSE(replies_match(Reply::integer_of(-2), Reply::integer_of(-1), CompareRule::kTtl));
  EXPECT_FALSE(replies_match(Reply::nil(), Reply::integer_of(5), CompareRule::kTtl));
  EXPECT_TRUE(replies_match(Reply::integer_of(99), Reply::integer_of(100), CompareRule::kTtlSeconds));
  EXPECT_FALSE(replies_match(Reply::integer_of(98), Reply::integer_of(100), CompareRule::kTtlSeconds));
}

TEST(Compare, MultisetsForUnspecifiedOrder) {
  const Reply ab = Reply::array({Reply::bulk("a"), Reply::bulk("b")});
  const Reply ba = Reply::array({Reply::bulk("b"), Reply::bulk("a")});
  const Reply aa = Reply::array({Reply::bulk("a"), Reply::bulk("a")});
  EXPECT_TRUE(replies_match(ab, ba, CompareRule::kUnordered));
  EXPECT_FALSE(replies_match(ab, aa, CompareRule::kUnordered));
  const Reply pairs1 = Reply::array({Reply::bulk("f1"), Reply::bulk("1"), Reply::bulk("f2"), Reply::bulk("2")});
  const Reply pairs2 = Reply::array({Reply::bulk("f2"), Reply::bulk("2"), Reply::bulk("f1"), Reply::bulk("1")});
  const Reply crossed = Reply::array({Reply::bulk("f1"), Reply::bulk("2"), Reply::bulk("f2"), Reply::bulk("1")});
  EXPECT_TRUE(replies_match(pairs1, pairs2, CompareRule::kUnorderedPairs));
  EXPECT_FALSE(replies_match(pairs1, crossed, CompareRule::kUnorderedPairs));
}

TEST(Compare, TimeWithinTwoSeconds) {
  auto t = [](const char* s, const char* us) { return Reply::array({Reply::bulk(s), Reply::bulk(us)}); };
  EXPECT_TRUE(replies_match(t("1700000000", "5"), t("1700000001", "999999"), CompareRule::kTime));
  EXPECT_FALSE(replies_match(t("1700000000", "5"), t("1700000009", "5"), CompareRule::kTime));
  EXPECT_FALSE(replies_match(Reply::integer_of(1), t("1700000000", "5"), CompareRule::kTime));
}

TEST(Compare, PmessageRunsAreMultisets) {
  auto pm = [](const char* pattern) {
    return Reply::array({Reply::bulk("pmessage"), Reply::bulk(pattern), Reply::bulk("ch"), Reply::bulk("x")});
  };
  const Reply m = Reply::array({Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("x")});
  EXPECT_TRUE(transcripts_match({m, pm("*"), pm("c*")}, {m, pm("c*"), pm("*")}, CompareRule::kExact));
  EXPECT_FALSE(transcripts_match({m, pm("*"), pm("c*")}, {pm("c*"), m, pm("*")}, CompareRule::kExact));
  EXPECT_FALSE(transcripts_match({pm("*"), pm("*")}, {pm("*"), pm("c*")}, CompareRule::kExact));
}

TEST(Compare, UnsubscribeAllOrderOfNamesIsFree) {
  auto u = [](const char* ch, int64_t left) {
    return Reply::array({Reply::bulk("unsubscribe"), Reply::bulk(ch), Reply::integer_of(left)});
  };
  const std::vector<Reply> model = {u("a", 1), u("b", 0)};
  EXPECT_TRUE(transcripts_match(model, {u("b", 1), u("a", 0)}, CompareRule::kUnsubscribeAll));
  EXPECT_FALSE(transcripts_match(model, {u("b", 0), u("a", 1)}, CompareRule::kUnsubscribeAll));
  EXPECT_FALSE(transcripts_match(model, {u("a", 1), u("c", 0)}, CompareRule::kUnsubscribeAll));
  EXPECT_FALSE(transcripts_match(model, {u("b", 1), u("a", 0)}, CompareRule::kExact));
}

TEST(Compare, RespThreeTypesMatchOnlyThemselves) {
  const Reply map = Reply::map({Reply::bulk("f1"), Reply::bulk("1"), Reply::bulk("f2"), Reply::bulk("2")});
  const Reply flat = Reply::array(map.elements);
  EXPECT_FALSE(replies_match(map, flat, CompareRule::kExact));
  EXPECT_FALSE(replies_match(map, flat, CompareRule::kUnorderedPairs));
  EXPECT_FALSE(replies_match(Reply::double_text("1.5"), Reply::bulk("1.5"), CompareRule::kExact));
  EXPECT_FALSE(replies_match(Reply::set({Reply::bulk("a")}), Reply::array({Reply::bulk("a")}), CompareRule::kUnordered));
  // The unordered rules apply to maps and sets as to arrays.
  const Reply swapped = Reply::map({Reply::bulk("f2"), Reply::bulk("2"), Reply::bulk("f1"), Reply::bulk("1")});
  EXPECT_TRUE(replies_match(map, swapped, CompareRule::kUnorderedPairs));
  EXPECT_TRUE(replies_match(Reply::set({Reply::bulk("a"), Reply::bulk("b")}), Reply::set({Reply::bulk("b"), Reply::bulk("a")}),
                            CompareRule::kUnordered));
  // TTL tolerance inside RESP3 aggregates.
  EXPECT_TRUE(replies_match(Reply::map({Reply::bulk("t"), Reply::integer_of(100)}),
                            Reply::map({Reply::bulk("t"), Reply::integer_of(110)}), CompareRule::kTtl));
}

TEST(Compare, HelloIgnoresOnlyTheConnectionId) {
  auto hello = [](int64_t id, int64_t proto) {
    return Reply::map({Reply::bulk("proto"), Reply::integer_of(proto), Reply::bulk("id"), Reply::integer_of(id)});
  };
  EXPECT_TRUE(replies_match(hello(1, 3), hello(9, 3), CompareRule::kHello));
  EXPECT_FALSE(replies_match(hello(1, 3), hello(1, 2), CompareRule::kHello));
  EXPECT_FALSE(replies_match(hello(1, 3), hello(9, 3), CompareRule::kExact));
  EXPECT_FALSE(replies_match(hello(1, 3), Reply::array(hello(1, 3).elements), CompareRule::kHello));
  EXPECT_TRUE(replies_match(Reply::error("NOPROTO unsupported protocol version"),
                            Reply::error("NOPROTO unsupported protocol version"), CompareRule::kHello));
}

TEST(Compare, PushedPmessageRunsAreMultisetsToo) {
  auto pm = [](const char* pattern) {
    return Reply::push({Reply::bulk("pmessage"), Reply::bulk(pattern), Reply::bulk("ch"), Reply::bulk("x")});
  };
  EXPECT_TRUE(transcripts_match({pm("*"), pm("c*")}, {pm("c*"), pm("*")}, CompareRule::kExact));
  auto u = [](const char* ch, int64_t left) {
    return Reply::push({Reply::bulk("unsubscribe"), Reply::bulk(ch), Reply::integer_of(left)});
  };
  EXPECT_TRUE(transcripts_match({u("a", 1), u("b", 0)}, {u("b", 1), u("a", 0)}, CompareRule::kUnsubscribeAll));
  EXPECT_FALSE(transcripts_match({u("a", 1), u("b", 0)},
                                 {Reply::array(u("b", 1).elements), Reply::array(u("a", 0).elements)},
                                 CompareRule::kUnsubscribeAll));
}

}  // namespace
}  // namespace lockstep::differential
