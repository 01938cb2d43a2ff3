#include "sim/resp/writer.h"

#include <gtest/gtest.h>

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

TEST(Writer, EncodesRequestsAsMultibulk) {
  std::vector<std::string_view> argv = {"SET", "k", ""};
  EXPECT_EQ(encode_request(argv), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

}  // namespace
}  // namespace lockstep::resp
