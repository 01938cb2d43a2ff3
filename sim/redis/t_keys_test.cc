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


TEST(KeysTest, RandomkeySkipsExpiredKeys) {
  TestNode t;
  EXPECT_EQ(t.run({"randomkey"}), N());
  t.run({"set", "a", "1"});
  EXPECT_EQ(t.run({"randomkey"}), B("a"));
  t.run({"set", "b", "2", "px", "10"});
  t.run({"set", "c", "3", "px", "10"});
  t.advance_ms(20);
  for (int i = 0; i < 10; i++) EXPECT_EQ(t.run({"randomkey"}), B("a"));
  // Meeting an expired key deleted it, as on a master.
  t.run({"del", "a"});
  EXPECT_EQ(t.run({"randomkey"}), N());
  EXPECT_EQ(t.run({"dbsize"}), I(0));
}

TEST(KeysTest, RandomkeyOnAReplicaWithOnlyExpiredVolatileKeysReturnsOne) {
  TestNode t;
  t.run({"set", "b", "2", "px", "10"});
  t.node->set_replica(true);
  t.advance_ms(20);
  // Redis gives up after 100 draws and returns the expired key (a replica never deletes it).
  EXPECT_EQ(t.run({"randomkey"}), B("b"));
  EXPECT_EQ(t.run({"dbsize"}), I(1));
}

// Checked against redis-server 7.0.15.
TEST(KeysTest, ObjectEncodingRefcountAndErrors) {
  TestNode t;
  t.run({"set", "i", "5"});
  t.run({"set", "big", "12345"});
  t.run({"set", "e", "abc"});
  t.run({"set", "r", std::string(45, 'x')});
  t.run({"sadd", "si", "1"});
  t.run({"sadd", "sh", "a"});
  t.run({"hset", "h", "f", "v"});
  t.run({"lpush", "l", "a"});
  t.run({"zadd", "z", "1", "a"});
  EXPECT_EQ(t.run({"object", "encoding", "i"}), B("int"));
  EXPECT_EQ(t.run({"object", "encoding", "e"}), B("embstr"));
  EXPECT_EQ(t.run({"object", "encoding", "r"}), B("raw"));
  EXPECT_EQ(t.run({"object", "encoding", "si"}), B("intset"));
  EXPECT_EQ(t.run({"object", "encoding", "sh"}), B("hashtable"));
  EXPECT_EQ(t.run({"object", "encoding", "h"}), B("listpack"));
  EXPECT_EQ(t.run({"object", "encoding", "l"}), B("quicklist"));
  EXPECT_EQ(t.run({"object", "encoding", "z"}), B("listpack"));
  EXPECT_EQ(t.run({"object", "encoding", "nosuch"}), N());
  EXPECT_EQ(t.run({"object", "refcount", "i"}), I(2147483647));  // a shared integer
  // How a string was made, where its bytes do not tell: APPEND leaves a raw string, INCRBYFLOAT
  // a string made from its text (never an int); storing the same bytes again resets that.
  t.run({"set", "a", "1"});
  t.run({"append", "a", "2"});
  EXPECT_EQ(t.run({"object", "encoding", "a"}), B("raw"));
  EXPECT_EQ(t.run({"object", "refcount", "a"}), I(1));
  t.run({"set", "f", "9"});
  EXPECT_EQ(t.run({"incrbyfloat", "f", "1"}), B("10"));
  EXPECT_EQ(t.run({"object", "encoding", "f"}), B("embstr"));
  EXPECT_EQ(t.run({"object", "refcount", "f"}), I(1));
  t.run({"copy", "a", "a2"});
  EXPECT_EQ(t.run({"object", "encoding", "a2"}), B("raw"));
  t.run({"set", "a", "12"});
  EXPECT_EQ(t.run({"object", "encoding", "a"}), B("int"));
  t.run({"incr", "f"});
  EXPECT_EQ(t.run({"object", "encoding", "f"}), B("int"));
  EXPECT_EQ(t.run({"object", "refcount", "big"}), I(1));
  EXPECT_EQ(t.run({"object", "refcount", "h"}), I(1));
  EXPECT_EQ(t.run({"object", "foo"}), E("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
  EXPECT_EQ(t.run({"object", "encoding"}), E("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(t.run({"object", "help", "x"}), E("ERR wrong number of arguments for 'object|help' command"));
  EXPECT_EQ(t.run({"object", "freq", "i"}),
            E("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
              "switching between policies at runtime LRU and LFU data will take some time to adjust."));
  EXPECT_EQ(t.run({"object", "help"}).elements.size(), 15u);
}

// Hashes and sorted sets leave listpack where Redis 7.0 converts them, and never come back.
TEST(KeysTest, ObjectEncodingFollowsRedisConversions) {
  TestNode t;
  const std::string long_value(65, 'v');
  t.run({"hset", "h", "f", std::string(64, 'v')});
  EXPECT_EQ(t.run({"object", "encoding", "h"}), B("listpack"));
  t.run({"hset", "h", "f", long_value});
  EXPECT_EQ(t.run({"object", "encoding", "h"}), B("hashtable"));
  t.run({"hset", "h", "f", "short"});
  EXPECT_EQ(t.run({"object", "encoding", "h"}), B("hashtable"));
  // HSETNX converts on a long value even when the field exists and nothing is written.
  t.run({"hset", "h2", "f", "v"});
  EXPECT_EQ(t.run({"hsetnx", "h2", "f", long_value}), I(0));
  EXPECT_EQ(t.run({"object", "encoding", "h2"}), B("hashtable"));
  for (int i = 0; i < 128; i++) t.run({"hset", "h3", "f" + std::to_string(i), "v"});
  EXPECT_EQ(t.run({"object", "encoding", "h3"}), B("listpack"));
  t.run({"hset", "h3", "one-more", "v"});
  EXPECT_EQ(t.run({"object", "encoding", "h3"}), B("hashtable"));
  EXPECT_EQ(t.run({"hlen", "h3"}), I(129));
  EXPECT_EQ(t.run({"hget", "h3", "f7"}), B("v"));
  t.run({"zadd", "z", "1", std::string(65, 'm')});
  EXPECT_EQ(t.run({"object", "encoding", "z"}), B("skiplist"));
}

}  // namespace
}  // namespace lockstep::redis::testing
