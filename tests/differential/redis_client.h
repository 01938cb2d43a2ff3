// A blocking hiredis connection whose replies come back as lockstep Replies.
//
// hiredis does the connecting, the request formatting and the reading; its reply-object hooks
// are replaced so that replies are built directly as redis::Reply trees, the shape the model
// produces. The hooks see which RESP type a nil came from, so the nil bulk ("$-1") and the nil
// array ("*-1") stay distinct (hiredis's own objects would merge them). hiredis 0.14 reads
// arrays nested at most 7 deep; deeper replies are an error value here.
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/status.h"
#include "sim/redis/reply.h"

struct redisContext;

namespace lockstep::differential {

class RedisClient {
 public:
  // Connects to 127.0.0.1:port (timeout 5 s).
  static Result<std::unique_ptr<RedisClient>> connect(uint16_t port);
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
  explicit RedisClient(redisContext* ctx) : ctx_(ctx) {}
  redisContext* ctx_;
};

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_CLIENT_H_
