#include "sim/resp/writer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/resp/reply_gen.h"

namespace lockstep::resp {
namespace {

using redis::Reply;

TEST(Writer, EncodesEveryReplyShape) {
  EXPECT_EQ(encode_reply(Reply::ok()), "+OK\r\n");
  EXPECT_EQ(encode_reply(Reply::error("ERR x")), "-ERR x\r\n");
  EXPECT_EQ(encode_reply(Reply::integer_of(-42)), ":-42\r\n");
  EXPECT_EQ(encode_reply(Reply::bulk(std::string("a\0\r\n", 4))), std::string("$4\r\na\0\r\n\r\n", 10));
  EXPECT_EQ(encode_reply(Reply::bulk("")), "$0\r\n\r\n");
  EXPECT_EQ(encode_reply(Reply::nil()), "$-1\r\n");
  EXPECT_EQ(encode_reply(Reply::nil_array()), "*-1\r\n");
  EXPECT_EQ(encode_reply(Reply::array({})), "*0\r\n");
  EXPECT_EQ(encode_reply(Reply::array({Reply::integer_of(1), Reply::array({Reply::nil()})})),
            "*2\r\n:1\r\n*1\r\n$-1\r\n");
}

TEST(Writer, StatusAndErrorLinesNeverBreakTheStream) {
  // Redis maps CR and LF to spaces in error and status texts (e.g. {err="a\nb"} from Lua).
  EXPECT_EQ(encode_reply(Reply::error("ERR a\r\nb")), "-ERR a  b\r\n");
  EXPECT_EQ(encode_reply(Reply::status("x\ny")), "+x y\r\n");
}

// Each RESP3 type as redis-server 7.0.15 writes it to a RESP3 client, and to a RESP2 one.
TEST(Writer, EncodesRespThreeTypesPerProtocol) {
  auto both = [](const Reply& r) {
    return std::make_pair(encode_reply(r, Protocol::kResp3), encode_reply(r, Protocol::kResp2));
  };
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(both(Reply::nil()), P("_\r\n", "$-1\r\n"));
  EXPECT_EQ(both(Reply::nil_array()), P("_\r\n", "*-1\r\n"));
  EXPECT_EQ(both(Reply::map({Reply::bulk("f"), Reply::integer_of(1)})),
            P("%1\r\n$1\r\nf\r\n:1\r\n", "*2\r\n$1\r\nf\r\n:1\r\n"));
  EXPECT_EQ(both(Reply::map({})), P("%0\r\n", "*0\r\n"));
  EXPECT_EQ(both(Reply::set({Reply::bulk("a")})), P("~1\r\n$1\r\na\r\n", "*1\r\n$1\r\na\r\n"));
  EXPECT_EQ(both(Reply::push({Reply::bulk("message")})), P(">1\r\n$7\r\nmessage\r\n", "*1\r\n$7\r\nmessage\r\n"));
  EXPECT_EQ(both(Reply::double_of(0.1)), P(",0.10000000000000001\r\n", "$19\r\n0.10000000000000001\r\n"));
  EXPECT_EQ(both(Reply::double_of(1.0 / 0.0)), P(",inf\r\n", "$3\r\ninf\r\n"));
  EXPECT_EQ(both(Reply::double_of(-1.0 / 0.0)), P(",-inf\r\n", "$4\r\n-inf\r\n"));
  EXPECT_EQ(both(Reply::double_text("-nan")), P(",-nan\r\n", "$4\r\n-nan\r\n"));
  EXPECT_EQ(both(Reply::boolean(true)), P("#t\r\n", ":1\r\n"));
  EXPECT_EQ(both(Reply::boolean(false)), P("#f\r\n", ":0\r\n"));
  EXPECT_EQ(both(Reply::verbatim("txt", "a\r\nb")), P("=8\r\ntxt:a\r\nb\r\n", "$4\r\na\r\nb\r\n"));
  EXPECT_EQ(both(Reply::big_number("123")), P("(123\r\n", "$3\r\n123\r\n"));
  // RESP2 types are the same in both, except the nils above.
  EXPECT_EQ(both(Reply::array({Reply::ok(), Reply::error("ERR x"), Reply::integer_of(2), Reply::bulk("")})),
            P("*4\r\n+OK\r\n-ERR x\r\n:2\r\n$0\r\n\r\n", "*4\r\n+OK\r\n-ERR x\r\n:2\r\n$0\r\n\r\n"));
  // Nested: ZRANGE WITHSCORES to a RESP3 client.
  EXPECT_EQ(encode_reply(Reply::array({Reply::array({Reply::bulk("m"), Reply::double_of(1.5)})}), Protocol::kResp3),
            "*1\r\n*2\r\n$1\r\nm\r\n,1.5\r\n");
  EXPECT_EQ(encode_reply(Reply::nil()), "$-1\r\n");  // the one-argument form is RESP2
}

// The RESP2 writer writes a typed reply exactly as it writes its to_resp2() form.
RC_GTEST_PROP(Writer, RespTwoOfATypedReplyIsItsRespTwoShape, ()) {
  const Reply reply = *testing::arbitrary_typed_reply(4);
  RC_ASSERT(encode_reply(reply, Protocol::kResp2) == encode_reply(redis::to_resp2(reply), Protocol::kResp2));
}

TEST(Writer, EncodesRequestsAsMultibulk) {
  std::vector<std::string_view> argv = {"SET", "k", ""};
  EXPECT_EQ(encode_request(argv), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

}  // namespace
}  // namespace lockstep::resp
