// Tests of the differential harness itself (real redis-server side), independent of the model.
#include <gtest/gtest.h>

#include "tests/differential/redis_client.h"
#include "tests/differential/redis_process.h"
#include "tests/differential/seed_scripts.h"

namespace lockstep::differential {
namespace {

using redis::Reply;

TEST(Harness, StartsRedisAndKeepsNilShapesApart) {
  auto server = RedisProcess::start();
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto client = RedisClient::connect(server.value()->port());
  ASSERT_TRUE(client.ok()) << client.status().message();
  RedisClient& c = *client.value();
  EXPECT_EQ(c.command({"PING"}).value(), Reply::status("PONG"));
  EXPECT_EQ(c.command({"GET", "missing"}).value(), Reply::nil());
  EXPECT_EQ(c.command({"LPOP", "missing", "2"}).value(), Reply::nil_array());
  EXPECT_EQ(c.command({"RPUSH", "l", "a", "b"}).value(), Reply::integer_of(2));
  EXPECT_EQ(c.command({"LRANGE", "l", "0", "-1"}).value(),
            Reply::array({Reply::bulk("a"), Reply::bulk("b")}));
  EXPECT_EQ(c.command({"INCR", "l"}).value(),
            Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(c.command({"EVAL", "return {1,{2,false},'x'}", "0"}).value(),
            Reply::array({Reply::integer_of(1), Reply::array({Reply::integer_of(2), Reply::nil()}),
                          Reply::bulk("x")}));
}

TEST(Harness, SeedScriptsRunOnRealRedis) {
  auto server = RedisProcess::start();
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto client = RedisClient::connect(server.value()->port());
  ASSERT_TRUE(client.ok());
  RedisClient& c = *client.value();
  // Acquire (nil), re-enter (nil), contend (a positive PTTL), then unlock twice and once more.
  EXPECT_EQ(c.command({"EVAL", kRlockAcquire, "1", "lock", "30000", "u1:1"}).value(), Reply::nil());
  EXPECT_EQ(c.command({"EVAL", kRlockAcquire, "1", "lock", "30000", "u1:1"}).value(), Reply::nil());
  Reply ttl = c.command({"EVAL", kRlockAcquire, "1", "lock", "30000", "u2:1"}).value();
  ASSERT_EQ(ttl.type, Reply::Type::kInteger);
  EXPECT_GT(ttl.integer, 29000);
  EXPECT_EQ(c.command({"EVAL", kRlockUnlock, "2", "lock", "ch", "0", "30000", "u1:1"}).value(),
            Reply::integer_of(0));
  EXPECT_EQ(c.command({"EVAL", kRlockUnlock, "2", "lock", "ch", "0", "30000", "u1:1"}).value(),
            Reply::integer_of(1));
  for (std::string_view script : {kFairAcquire, kReadAcquire, kWriteAcquire, kReadUnlock, kWriteUnlock}) {
    Reply r = c.command({"SCRIPT", "LOAD", script}).value();
    EXPECT_EQ(r.type, Reply::Type::kBulk) << describe(r);
  }
}

// The RESP3 side of the harness: replies read by resp::ReplyParser with their RESP3 types, and a
// HELLO in the middle of the stream switching protocols.
TEST(Harness, ReadsRespThreeAndSwitchesProtocols) {
  auto server = RedisProcess::start();
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto client = RedisClient::connect_any_protocol(server.value()->port(), 3);
  ASSERT_TRUE(client.ok()) << client.status().message();
  RedisClient& c = *client.value();
  EXPECT_EQ(c.command({"GET", "missing"}).value(), Reply::nil());
  EXPECT_EQ(c.command({"HSET", "h", "f", "v"}).value(), Reply::integer_of(1));
  EXPECT_EQ(c.command({"HGETALL", "h"}).value(), Reply::map({Reply::bulk("f"), Reply::bulk("v")}));
  EXPECT_EQ(c.command({"ZADD", "z", "0.1", "m"}).value(), Reply::integer_of(1));
  EXPECT_EQ(c.command({"ZSCORE", "z", "m"}).value(), Reply::double_text("0.10000000000000001"));
  EXPECT_EQ(c.command({"SUBSCRIBE", "ch"}).value(),
            Reply::push({Reply::bulk("subscribe"), Reply::bulk("ch"), Reply::integer_of(1)}));
  EXPECT_EQ(c.command({"HELLO", "2"}).value().type, Reply::Type::kArray);
  EXPECT_EQ(c.command({"RESET"}).value(), Reply::status("RESET"));
  EXPECT_EQ(c.command({"LPOP", "missing", "2"}).value(), Reply::nil_array());
  EXPECT_EQ(c.command({"HGETALL", "h"}).value(), Reply::array({Reply::bulk("f"), Reply::bulk("v")}));
}

TEST(Harness, PipelinesInOrder) {
  auto server = RedisProcess::start();
  ASSERT_TRUE(server.ok());
  auto client = RedisClient::connect(server.value()->port());
  ASSERT_TRUE(client.ok());
  RedisClient& c = *client.value();
  for (int i = 0; i < 32; i++) {
    const std::string v = std::to_string(i);
    std::string_view argv[] = {"ECHO", v};
    c.append(argv);
  }
  for (int i = 0; i < 32; i++) EXPECT_EQ(c.read_reply().value(), Reply::bulk(std::to_string(i)));
}

}  // namespace
}  // namespace lockstep::differential
