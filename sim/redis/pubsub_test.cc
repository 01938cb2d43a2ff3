#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15 (RESP2).

Reply notice(std::string_view kind, std::string_view name, int64_t count) {
  return A({B(kind), B(name), I(count)});
}

TEST(PubSubTest, SubscribeRepliesOnePerChannel) {
  TestNode t;
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe"}), (std::vector<Reply>{A({B("unsubscribe"), N(), I(0)})}));
  EXPECT_EQ(t.run_all(t.conn, {"punsubscribe"}), (std::vector<Reply>{A({B("punsubscribe"), N(), I(0)})}));
  EXPECT_EQ(t.run_all(t.conn, {"subscribe", "a", "b", "a"}),
            (std::vector<Reply>{notice("subscribe", "a", 1), notice("subscribe", "b", 2), notice("subscribe", "a", 2)}));
  EXPECT_EQ(t.run_all(t.conn, {"psubscribe", "x*"}), (std::vector<Reply>{notice("psubscribe", "x*", 3)}));
  EXPECT_EQ(t.run_all(t.conn, {"subscribe"}),
            (std::vector<Reply>{E("ERR wrong number of arguments for 'subscribe' command")}));
}

TEST(PubSubTest, SubscribedModeRestrictsCommands) {
  TestNode t;
  t.run_all(t.conn, {"subscribe", "a"});
  EXPECT_EQ(t.run({"get", "k"}), E("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"));
  EXPECT_EQ(t.run({"SET", "a", "b"}), E("ERR Can't execute 'set': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"));
  EXPECT_EQ(t.run({"ping"}), A({B("pong"), B("")}));
  EXPECT_EQ(t.run({"ping", "hi"}), A({B("pong"), B("hi")}));
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe", "zz"}), (std::vector<Reply>{notice("unsubscribe", "zz", 1)}));
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe"}), (std::vector<Reply>{notice("unsubscribe", "a", 0)}));
  EXPECT_EQ(t.run({"get", "k"}), N());
  EXPECT_EQ(t.run({"ping"}), S("PONG"));
  t.run_all(t.conn, {"psubscribe", "p*"});
  EXPECT_EQ(t.run({"reset"}), S("RESET"));
  EXPECT_EQ(t.run({"get", "k"}), N());
}

TEST(PubSubTest, PublishDeliversThroughTheHook) {
  TestNode t;
  ConnectionId a = t.node->connect(), b = t.node->connect();
  t.run_all(a, {"subscribe", "redisson_lock__channel:{l}"});
  t.run_all(b, {"psubscribe", "redisson_lock__channel:*"});
  t.run_all(b, {"subscribe", "redisson_lock__channel:{l}"});
  EXPECT_EQ(t.run({"publish", "redisson_lock__channel:{l}", "0"}), I(3));  // b counts twice
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.messages[0].first, a);
  EXPECT_EQ(t.messages[0].second, A({B("message"), B("redisson_lock__channel:{l}"), B("0")}));
  EXPECT_EQ(t.messages[1].first, b);
  EXPECT_EQ(t.messages[1].second, A({B("message"), B("redisson_lock__channel:{l}"), B("0")}));
  EXPECT_EQ(t.messages[2].second,
            A({B("pmessage"), B("redisson_lock__channel:*"), B("redisson_lock__channel:{l}"), B("0")}));
  EXPECT_EQ(t.run({"publish", "other", "x"}), I(0));
  // Publishing from a script delivers too.
  EXPECT_EQ(t.run({"eval", "return redis.call('publish', KEYS[1], ARGV[1])", "1", "redisson_lock__channel:{l}", "1"}), I(3));
  EXPECT_EQ(t.messages.size(), 6u);
  EXPECT_EQ(t.run_all(b, {"punsubscribe"}), (std::vector<Reply>{notice("punsubscribe", "redisson_lock__channel:*", 1)}));
}

TEST(PubSubTest, PublishIsRefusedWhileSubscribedInRespTwo) {
  TestNode t;
  t.run_all(t.conn, {"subscribe", "a"});
  EXPECT_EQ(t.run({"publish", "a", "x"}),
            E("ERR Can't execute 'publish': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"));
  EXPECT_TRUE(t.messages.empty());
}

// RESP3 (checked against redis-server 7.0.15): confirmations and messages are pushes, and a
// subscribed connection may run any command, PING included, with its usual reply.
TEST(PubSubTest, RespThreeConnectionsGetPushesAndKeepRunningCommands) {
  TypedTestNode t;
  const ConnectionId other = t.node->connect();
  t.run({"hello", "3"});
  EXPECT_EQ(t.run_all(t.conn, {"subscribe", "a", "b"}),
            (std::vector<Reply>{P({B("subscribe"), B("a"), I(1)}), P({B("subscribe"), B("b"), I(2)})}));
  EXPECT_EQ(t.run({"get", "k"}), N());
  EXPECT_EQ(t.run({"ping"}), S("PONG"));
  EXPECT_EQ(t.run({"hset", "h", "f", "v"}), I(1));
  EXPECT_EQ(t.run_on(other, {"publish", "a", "hi"}), I(1));
  // The node hands out the message typed; each connection writes it in its protocol.
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0], std::make_pair(t.conn, P({B("message"), B("a"), B("hi")})));
  EXPECT_EQ(t.run({"publish", "b", "self"}), I(1));  // to itself: allowed in RESP3
  EXPECT_EQ(t.messages.size(), 2u);
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe"}),
            (std::vector<Reply>{P({B("unsubscribe"), B("a"), I(1)}), P({B("unsubscribe"), B("b"), I(0)})}));
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe"}), (std::vector<Reply>{P({B("unsubscribe"), N(), I(0)})}));
  // Back in RESP2 while subscribed: the RESP2 rules again.
  t.run_all(t.conn, {"psubscribe", "p*"});
  t.run({"hello", "2"});
  EXPECT_EQ(t.run({"ping"}), A({B("pong"), B("")}));
  EXPECT_TRUE(t.run({"get", "k"}).is_error());
  EXPECT_TRUE(t.run({"hello", "3"}).is_error());  // HELLO is not allowed there either
  EXPECT_EQ(t.run_on(other, {"publish", "px", "m"}), I(1));
  EXPECT_EQ(t.messages.back().second, P({B("pmessage"), B("p*"), B("px"), B("m")}));
}

TEST(PubSubTest, WithoutTypedRepliesPushesAreArrays) {
  TestNode t;
  const ConnectionId other = t.node->connect();
  t.run({"hello", "3"});
  EXPECT_EQ(t.run_all(t.conn, {"subscribe", "a"}), (std::vector<Reply>{notice("subscribe", "a", 1)}));
  EXPECT_EQ(t.run({"get", "k"}), N());  // the connection is RESP3 all the same
  t.run_on(other, {"publish", "a", "hi"});
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].second, A({B("message"), B("a"), B("hi")}));
}

TEST(PubSubTest, SubscriptionsAreNotAllowedInScripts) {
  TestNode t;
  EXPECT_EQ(t.run({"eval", "return redis.call(\"subscribe\",\"x\")", "0"}),
            E("ERR This Redis command is not allowed from script script: e7d45421cfe07574789e1c13ccf1015b1d648fe6, on @user_script:1."));
}


// Sharded pub/sub on a node outside a cluster (checked against redis-server 7.0.15).
TEST(PubSubTest, ShardedChannelsHaveTheirOwnCountsMessagesAndListings) {
  TestNode t;
  const ConnectionId other = t.node->connect();
  EXPECT_EQ(t.run_all(t.conn, {"ssubscribe", "ch1", "ch2"}),
            (std::vector<Reply>{notice("ssubscribe", "ch1", 1), notice("ssubscribe", "ch2", 2)}));
  EXPECT_EQ(t.run_all(t.conn, {"subscribe", "x"}), (std::vector<Reply>{notice("subscribe", "x", 1)}));
  EXPECT_EQ(t.run_all(t.conn, {"ssubscribe", "ch1"}), (std::vector<Reply>{notice("ssubscribe", "ch1", 2)}));
  EXPECT_EQ(t.run({"get", "k"}), E("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                                   "RESET are allowed in this context"));
  t.messages.clear();
  EXPECT_EQ(t.run_on(other, {"spublish", "ch1", "hi"}), I(1));
  EXPECT_EQ(t.run_on(other, {"publish", "ch1", "no"}), I(0));  // the two kinds never meet
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].second, A({B("smessage"), B("ch1"), B("hi")}));
  EXPECT_EQ(t.run_on(other, {"pubsub", "shardchannels"}), A({B("ch1"), B("ch2")}));
  EXPECT_EQ(t.run_on(other, {"pubsub", "shardnumsub", "ch1", "zz"}), A({B("ch1"), I(1), B("zz"), I(0)}));
  EXPECT_EQ(t.run_on(other, {"pubsub", "channels"}), A({B("x")}));
  EXPECT_EQ(t.run_all(other, {"sunsubscribe"}), (std::vector<Reply>{A({B("sunsubscribe"), N(), I(0)})}));
  EXPECT_EQ(t.run({"client", "info"}), E("ERR Can't execute 'client|info': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                                          "PING / QUIT / RESET are allowed in this context"));
  t.run_on(other, {"multi"});
  t.run_on(other, {"ssubscribe", "q"});
  EXPECT_EQ(t.run_on(other, {"exec"}), A({E("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")}));
  EXPECT_EQ(t.run_all(t.conn, {"sunsubscribe", "ch2", "zz"}),
            (std::vector<Reply>{notice("sunsubscribe", "ch2", 1), notice("sunsubscribe", "zz", 1)}));
  EXPECT_EQ(t.run_all(t.conn, {"unsubscribe"}), (std::vector<Reply>{notice("unsubscribe", "x", 0)}));
  EXPECT_EQ(t.run_all(t.conn, {"sunsubscribe"}), (std::vector<Reply>{notice("sunsubscribe", "ch1", 0)}));
  EXPECT_EQ(t.run({"ping"}), S("PONG"));  // out of subscribed mode
}

}  // namespace
}  // namespace lockstep::redis::testing
