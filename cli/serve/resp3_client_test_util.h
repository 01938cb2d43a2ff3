// A blocking loopback client that speaks RESP2 or RESP3 and reads replies as redis::Reply trees
// (resp::ReplyParser): the RESP3 client of the serve tests, doing the handshake a RESP3 client
// library does (HELLO 3 with AUTH and SETNAME) and seeing maps, sets, doubles and pushes.
#ifndef LOCKSTEP_CLI_SERVE_RESP3_CLIENT_TEST_UTIL_H_
#define LOCKSTEP_CLI_SERVE_RESP3_CLIENT_TEST_UTIL_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/serve/raw_client_test_util.h"
#include "sim/redis/reply.h"
#include "sim/resp/reply_parser.h"
#include "sim/resp/writer.h"

namespace lockstep::serve::testing {

class RespClient {
 public:
  explicit RespClient(uint16_t port) : raw_(port) {}
  bool connected() const { return raw_.connected(); }

  // Sends one command (multibulk); false if the peer is gone.
  bool send(std::initializer_list<std::string_view> argv) {
    const std::vector<std::string_view> v(argv);
    return raw_.send(resp::encode_request(v));
  }
  // The next reply or push; nullopt on a timeout, a close or malformed bytes.
  std::optional<redis::Reply> read(int timeout_ms = 3000) {
    redis::Reply r;
    while (true) {
      switch (parser_.next(&r)) {
        case resp::ReplyStatus::kReply: return r;
        case resp::ReplyStatus::kError: return std::nullopt;
        case resp::ReplyStatus::kNeedMore: break;
      }
      const std::string bytes = raw_.read(1, timeout_ms);
      if (bytes.empty()) return std::nullopt;
      parser_.feed(bytes);
    }
  }
  // Sends a command and reads its reply ("<no reply>" as an error value when none came).
  redis::Reply call(std::initializer_list<std::string_view> argv) {
    if (!send(argv)) return redis::Reply::error("<send failed>");
    return read().value_or(redis::Reply::error("<no reply>"));
  }
  // The exact bytes of the last reply read.
  std::string_view last_bytes() const { return parser_.last_reply_bytes(); }

 private:
  RawClient raw_;
  resp::ReplyParser parser_;
};

}  // namespace lockstep::serve::testing

#endif  // LOCKSTEP_CLI_SERVE_RESP3_CLIENT_TEST_UTIL_H_
