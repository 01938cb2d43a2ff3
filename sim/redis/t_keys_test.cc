#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15 (KEYS order aside: Redis's is unspecified, the
// model's is sorted).

TEST(KeysTest, DelExistsType) {
  TestNode t;
  t.run({"set", "k", "v"});
  t.run({"hset", "h", "a", "1"});
  t.run({"rpush", "l", "a"});
  t.run({"sadd", "s", "a"});
  t.run({"zadd", "z", "1", "a"});
  EXPECT_EQ(t.run({"type", "k"}), S("string"));
  EXPECT_EQ(t.run({"type", "h"}), S("hash"));
  EXPECT_EQ(t.run({"type", "l"}), S("list"));
  EXPECT_EQ(t.run({"type", "s"}), S("set"));
  EXPECT_EQ(t.run({"type", "z"}), S("zset"));
  EXPECT_EQ(t.run({"type", "nokey"}), S("none"));
  EXPECT_EQ(t.run({"exists", "k", "k", "nokey"}), I(2));
  EXPECT_EQ(t.run({"del", "k", "k", "nokey"}), I(1));
  EXPECT_EQ(t.run({"unlink", "h", "nokey"}), I(1));
  EXPECT_EQ(t.run({"dbsize"}), I(3));
}

TEST(KeysTest, KeysIsSortedAndGlobbed) {
  TestNode t;
  for (std::string_view k : {"z", "l", "s", "redisson_lock__channel:{a}", "lock:1", "lock:2"}) {
    t.run({"set", k, "1"});
  }
  EXPECT_EQ(t.run({"keys", "[lz]"}), A({B("l"), B("z")}));
  EXPECT_EQ(t.run({"keys", "lock:*"}), A({B("lock:1"), B("lock:2")}));
  EXPECT_EQ(t.run({"keys", "*"}).elements.size(), 6u);
  // Logically expired keys are hidden but still counted by DBSIZE until deleted.
  t.run({"pexpire", "z", "10"});
  t.advance_ms(11);
  EXPECT_EQ(t.run({"keys", "?"}), A({B("l"), B("s")}));
  EXPECT_EQ(t.run({"dbsize"}), I(6));
}

TEST(KeysTest, SelectAndFlush) {
  TestNode t;
  EXPECT_EQ(t.run({"select", "16"}), E("ERR DB index is out of range"));
  EXPECT_EQ(t.run({"select", "-1"}), E("ERR DB index is out of range"));
  EXPECT_EQ(t.run({"select", "x"}), E("ERR value is not an integer or out of range"));
  t.run({"set", "k", "zero"});
  EXPECT_EQ(t.run({"select", "1"}), OK());
  EXPECT_EQ(t.run({"get", "k"}), N());
  t.run({"set", "k", "one"});
  ConnectionId other = t.node->connect();
  EXPECT_EQ(t.run_on(other, {"get", "k"}), B("zero"));  // each connection has its own database
  EXPECT_EQ(t.run({"flushdb", "x"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"flushdb", "async"}), OK());
  EXPECT_EQ(t.run({"dbsize"}), I(0));
  EXPECT_EQ(t.run_on(other, {"dbsize"}), I(1));
  EXPECT_EQ(t.run({"flushall", "a", "b"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"flushall", "sync"}), OK());
  EXPECT_EQ(t.run_on(other, {"dbsize"}), I(0));
}

TEST(DispatchTest, UnknownCommandsAndArity) {
  TestNode t;
  EXPECT_EQ(t.run({"foo"}), E("ERR unknown command 'foo', with args beginning with: "));
  EXPECT_EQ(t.run({"foo", "a", "b"}), E("ERR unknown command 'foo', with args beginning with: 'a' 'b' "));
  std::string b200(200, 'b');
  EXPECT_EQ(t.run({"foo", "aaaaaaaaaa", b200, "c"}),
            E("ERR unknown command 'foo', with args beginning with: 'aaaaaaaaaa' '" + std::string(115, 'b') + "' "));
  EXPECT_EQ(t.run({"foo", "a\r\nb"}), E("ERR unknown command 'foo', with args beginning with: 'a  b' "));
  EXPECT_EQ(t.run({"GeT", "a", "b"}), E("ERR wrong number of arguments for 'get' command"));
  std::vector<std::string_view> none;
  EXPECT_TRUE(t.node->execute_one(t.conn, none).is_error());
}

TEST(DispatchTest, ReplicasRefuseWrites) {
  TestNode t;
  t.node->set_replica(true);
  const Reply ro = E("READONLY You can't write against a read only replica.");
  EXPECT_EQ(t.run({"set", "a", "b"}), ro);
  EXPECT_EQ(t.run({"del", "a"}), ro);
  EXPECT_EQ(t.run({"expire", "a", "1"}), ro);
  EXPECT_EQ(t.run({"flushall"}), ro);
  EXPECT_EQ(t.run({"get", "a"}), N());
  EXPECT_EQ(t.run({"publish", "a", "b"}), I(0));
  EXPECT_EQ(t.run({"eval", "return redis.call(\"set\",\"a\",\"b\")", "0"}),
            E("READONLY You can't write against a read only replica. script: "
              "554a95710d45ea243cdf37846a5028cfac292109, on @user_script:1."));
  EXPECT_EQ(t.run({"eval", "return redis.call('get','a')", "0"}), N());
  EXPECT_EQ(t.run({"eval", "#!lua\nreturn 1", "0"}), ro);
  EXPECT_EQ(t.run({"eval_ro", "#!lua\nreturn 1", "0"}), ro);
  EXPECT_EQ(t.run({"eval", "#!lua flags=no-writes\nreturn 1", "0"}), I(1));
  EXPECT_EQ(t.run({"wait", "0", "0"}),
            E("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
              "if a replica is configured to be writable (which is not the default) writes to "
              "replicas are just local and are not propagated."));
}

}  // namespace
}  // namespace lockstep::redis::testing
