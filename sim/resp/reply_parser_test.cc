#include "sim/resp/reply_parser.h"

#include <hiredis/hiredis.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/resp/reply_gen.h"
#include "sim/resp/writer.h"

namespace lockstep::resp {
namespace {

using redis::Reply;

TEST(ReplyParser, ParsesEveryShape) {
  ReplyParser p;
  p.feed("+OK\r\n-ERR x\r\n:5\r\n$3\r\nabc\r\n$-1\r\n*-1\r\n*2\r\n:1\r\n*0\r\n");
  const std::vector<Reply> expected = {
      Reply::ok(), Reply::error("ERR x"), Reply::integer_of(5), Reply::bulk("abc"), Reply::nil(),
      Reply::nil_array(), Reply::array({Reply::integer_of(1), Reply::array({})})};
  for (const Reply& e : expected) {
    Reply r;
    ASSERT_EQ(p.next(&r), ReplyStatus::kReply);
    EXPECT_EQ(r, e) << describe(r);
  }
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyStatus::kNeedMore);
}

TEST(ReplyParser, WaitsForIncompleteReplies) {
  ReplyParser p;
  Reply r;
  p.feed("*2\r\n$3\r\nab");
  EXPECT_EQ(p.next(&r), ReplyStatus::kNeedMore);
  p.feed("c\r\n:7\r");
  EXPECT_EQ(p.next(&r), ReplyStatus::kNeedMore);
  p.feed("\n");
  ASSERT_EQ(p.next(&r), ReplyStatus::kReply);
  EXPECT_EQ(r, Reply::array({Reply::bulk("abc"), Reply::integer_of(7)}));
  EXPECT_EQ(p.last_reply_bytes(), "*2\r\n$3\r\nabc\r\n:7\r\n");
}

TEST(ReplyParser, MalformedInputIsAnErrorValue) {
  for (const char* bad : {"?x\r\n", ":abc\r\n", "$-2\r\n", "*-5\r\n", "$1\r\nab\r\n"}) {
    ReplyParser p;
    Reply r;
    p.feed(bad);
    EXPECT_EQ(p.next(&r), ReplyStatus::kError) << bad;
    EXPECT_NE(p.error().find("malformed RESP reply at byte"), std::string::npos);
    EXPECT_EQ(p.next(&r), ReplyStatus::kError);
  }
}

TEST(ReplyParser, BoundsNesting) {
  ReplyLimits limits;
  limits.max_depth = 3;
  ReplyParser p(limits);
  p.feed("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n");
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyStatus::kError);
}

RC_GTEST_PROP(ReplyParser, RoundTripsWriterOutputUnderSplits, ()) {
  const auto replies = *rc::gen::container<std::vector<Reply>>(testing::arbitrary_reply(4));
  std::string stream;
  for (const Reply& r : replies) append_reply(r, stream);
  const size_t piece = *rc::gen::inRange<size_t>(1, 17);
  ReplyParser p;
  std::vector<Reply> got;
  for (size_t at = 0; at < stream.size(); at += piece) {
    p.feed(std::string_view(stream).substr(at, piece));
    Reply r;
    while (p.next(&r) == ReplyStatus::kReply) got.push_back(r);
  }
  RC_ASSERT(got == replies);
}

// hiredis is an independent reader of the same bytes: it must see the same values (it reports
// both nil shapes as NIL).
bool same_as_hiredis(const Reply& r, const redisReply* h) {
  switch (r.type) {
    case Reply::Type::kStatus: return h->type == REDIS_REPLY_STATUS && r.str == std::string(h->str, h->len);
    case Reply::Type::kError: return h->type == REDIS_REPLY_ERROR && r.str == std::string(h->str, h->len);
    case Reply::Type::kInteger: return h->type == REDIS_REPLY_INTEGER && r.integer == h->integer;
    case Reply::Type::kBulk: return h->type == REDIS_REPLY_STRING && r.str == std::string(h->str, h->len);
    case Reply::Type::kNil:
    case Reply::Type::kNilArray: return h->type == REDIS_REPLY_NIL;
    case Reply::Type::kArray:
      if (h->type != REDIS_REPLY_ARRAY || h->elements != r.elements.size()) return false;
      for (size_t i = 0; i < h->elements; i++) {
        if (!same_as_hiredis(r.elements[i], h->element[i])) return false;
      }
      return true;
  }
  return false;
}

RC_GTEST_PROP(Writer, OutputReadsTheSameInHiredis, ()) {
  // hiredis 0.14 refuses arrays nested deeper than 7.
  const Reply reply = *testing::arbitrary_reply(5);
  const std::string bytes = encode_reply(reply);
  redisReader* reader = redisReaderCreate();
  RC_ASSERT(redisReaderFeed(reader, bytes.data(), bytes.size()) == REDIS_OK);
  void* obj = nullptr;
  RC_ASSERT(redisReaderGetReply(reader, &obj) == REDIS_OK);
  RC_ASSERT(static_cast<bool>(obj));
  const bool same = same_as_hiredis(reply, static_cast<redisReply*>(obj));
  freeReplyObject(obj);
  redisReaderFree(reader);
  RC_ASSERT(same);
}

}  // namespace
}  // namespace lockstep::resp
