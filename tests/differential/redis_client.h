// A blocking hiredis connection whose replies come back as lockstep Replies, in RESP2 or RESP3.
//
// hiredis does the connecting and the request formatting. In RESP2 it also does the reading:
// its reply-object hooks are replaced so that replies are built directly as redis::Reply trees,
// the shape the model produces. The hooks see which RESP type a nil came from, so the nil bulk
// ("$-1") and the nil array ("*-1") stay distinct (hiredis's own objects would merge them).
// hiredis 0.14 reads arrays nested at most 7 deep; deeper replies are an error value here.
// hiredis 0.14 cannot read RESP3: a connection made with connect_any_protocol reads the socket
// itself with resp::ReplyParser, which reads RESP2 and RESP3 alike (RESP3's map, set, double,
// push... as those types, and "_" as a nil bulk).
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/status.h"
#include "sim/redis/reply.h"
#include "sim/resp/reply_parser.h"

struct redisContext;

namespace lockstep::differential {

class RedisClient {
 public:
  // Connects to 127.0.0.1:port (timeout 5 s); RESP2, read by hiredis.
  static Result<std::unique_ptr<RedisClient>> connect(uint16_t port);
  // Connects speaking `protocol` (2 or 3; HELLO 3 is sent first for 3), read by
  // resp::ReplyParser, so a HELLO later on may switch protocols.
  static Result<std::unique_ptr<RedisClient>> connect_any_protocol(uint16_t port, int protocol);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Sends one command and waits for its (first) reply.
  Result<redis::Reply> command(std::span<const std::string_view> argv);
  Result<redis::Reply> command(std::initializer_list<std::string_view> argv);
  // Pipelining: queue commands, then read their replies in order.
  void append(std::span<const std::string_view> argv);
  Result<redis::Reply> read_reply();

 private:
  RedisClient(redisContext* ctx, bool own_parser);
  // Sends what hiredis buffered, then reads until parser_ has a reply.
  Result<redis::Reply> read_with_parser();
  redisContext* ctx_;
  std::unique_ptr<resp::ReplyParser> parser_;  // connect_any_protocol only
};

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_
