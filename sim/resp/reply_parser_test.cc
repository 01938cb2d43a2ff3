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

// A RESP3 reply as its client reads it: both nils are "_", read back as the nil bulk.
Reply as_resp3_reads(Reply r) {
  if (r.type == Reply::Type::kNilArray) return Reply::nil();
  for (Reply& e : r.elements) e = as_resp3_reads(std::move(e));
  return r;
}

TEST(ReplyParser, ReadsRespThreeTypes) {
  ReplyParser p;
  p.feed("%2\r\n$1\r\na\r\n,1.5\r\n$1\r\nb\r\n_\r\n~1\r\n#t\r\n>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n"
         "=8\r\ntxt:a\r\nb\r\n(-12345678901234567890\r\n,-nan\r\n#f\r\n");
  std::vector<Reply> got;
  Reply r;
  while (p.next(&r) == ReplyStatus::kReply) got.push_back(r);
  EXPECT_EQ(got, (std::vector<Reply>{
                     Reply::map({Reply::bulk("a"), Reply::double_text("1.5"), Reply::bulk("b"), Reply::nil()}),
                     Reply::set({Reply::boolean(true)}),
                     Reply::push({Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("x")}),
                     Reply::verbatim("txt", "a\r\nb"), Reply::big_number("-12345678901234567890"),
                     Reply::double_text("-nan"), Reply::boolean(false)}));
  EXPECT_EQ(p.buffered_bytes(), 0u);
}

TEST(ReplyParser, RejectsMalformedRespThree) {
  for (const char* bad : {"#x\r\n", "_x\r\n", ",\r\n", "(\r\n", "=2\r\nab\r\n", "%-1\r\n", "~-1\r\n",
                          "|1\r\n+a\r\n+b\r\n", "!3\r\nerr\r\n", "=-1\r\n"}) {
    ReplyParser p;
    p.feed(bad);
    Reply r;
    EXPECT_EQ(p.next(&r), ReplyStatus::kError) << bad;
  }
  ReplyParser p;
  p.feed("%1\r\n$1\r\na\r\n");  // a map's value still missing
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyStatus::kNeedMore);
}

RC_GTEST_PROP(ReplyParser, RoundTripsRespThreeUnderSplits, ()) {
  const auto replies = *rc::gen::container<std::vector<Reply>>(testing::arbitrary_typed_reply(4));
  std::string stream;
  for (const Reply& r : replies) append_reply(r, Protocol::kResp3, stream);
  const size_t piece = *rc::gen::inRange<size_t>(1, 17);
  ReplyParser p;
  std::vector<Reply> got;
  for (size_t at = 0; at < stream.size(); at += piece) {
    p.feed(std::string_view(stream).substr(at, piece));
    Reply r;
    while (p.next(&r) == ReplyStatus::kReply) got.push_back(r);
  }
  RC_ASSERT(got.size() == replies.size());
  for (size_t i = 0; i < got.size(); i++) RC_ASSERT(got[i] == as_resp3_reads(replies[i]));
}

RC_GTEST_PROP(ReplyParser, ReadsTheRespTwoOfATypedReplyAsItsRespTwoShape, ()) {
  const Reply reply = *testing::arbitrary_typed_reply(4);
  ReplyParser p;
  p.feed(encode_reply(reply, Protocol::kResp2));
  Reply got;
  RC_ASSERT(p.next(&got) == ReplyStatus::kReply);
  RC_ASSERT(got == redis::to_resp2(reply));
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
    default:
      return false;  // RESP3 types: hiredis 0.14 reads RESP2 only
  }
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
