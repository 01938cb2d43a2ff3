#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15 (one connection per blocking call).

std::vector<std::string> Argv(std::initializer_list<std::string> a) { return a; }

TEST(BlockingPopTest, ArgumentsAreCheckedBeforeAnythingBlocks) {
  TestNode t;
  EXPECT_EQ(t.run({"blpop", "k"}), E("ERR wrong number of arguments for 'blpop' command"));
  EXPECT_EQ(t.run({"blpop", "k", "nan"}), E("ERR timeout is not a float or out of range"));
  EXPECT_EQ(t.run({"blpop", "k", " 1"}), E("ERR timeout is not a float or out of range"));
  EXPECT_EQ(t.run({"blpop", "k", "-1"}), E("ERR timeout is negative"));
  // Beyond 64 bits of milliseconds Redis's cast makes the timeout negative.
  EXPECT_EQ(t.run({"blpop", "k", "9.3e15"}), E("ERR timeout is negative"));
  EXPECT_EQ(t.run({"blpop", "k", "inf"}), E("ERR timeout is negative"));
  EXPECT_EQ(t.run({"brpop", "k", "9223372036854775"}), E("ERR timeout is out of range"));
  // Keys are checked in order: a string before a list is WRONGTYPE.
  EXPECT_EQ(t.run({"set", "s", "x"}), OK());
  EXPECT_EQ(t.run({"rpush", "l", "a"}), I(1));
  EXPECT_EQ(t.run({"blpop", "s", "l", "0"}), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_TRUE(t.blocks.empty());
  EXPECT_EQ(t.run({"llen", "l"}), I(1));
}

TEST(BlockingPopTest, AListWithElementsIsPoppedAtOnceAndPropagatedAsAPop) {
  TestNode t;
  EXPECT_EQ(t.run({"lpush", "k", "a", "b", "c"}), I(3));
  t.effects.clear();
  EXPECT_EQ(t.run({"blpop", "k", "0"}), A({B("k"), B("c")}));
  EXPECT_EQ(t.run({"brpop", "k", "0"}), A({B("k"), B("a")}));
  EXPECT_EQ(t.run({"blpop", "missing", "k", "0"}), A({B("k"), B("b")}));
  EXPECT_EQ(t.run({"exists", "k"}), I(0));  // the last pop removed the key
  ASSERT_EQ(t.effects.size(), 3u);
  EXPECT_EQ(t.effects[0].argv, Argv({"LPOP", "k"}));
  EXPECT_EQ(t.effects[1].argv, Argv({"RPOP", "k"}));
  EXPECT_EQ(t.effects[2].argv, Argv({"LPOP", "k"}));
  EXPECT_TRUE(t.blocks.empty());
}

TEST(BlockingPopTest, BlockedClientsAreServedByALaterPushFirstBlockedFirstServed) {
  TestNode t;
  const ConnectionId a = t.node->connect();
  const ConnectionId b = t.node->connect();
  EXPECT_TRUE(t.run_all(a, {"blpop", "q1", "q2", "5"}).empty());
  EXPECT_TRUE(t.run_all(b, {"brpop", "q2", "5"}).empty());
  ASSERT_EQ(t.blocks.size(), 2u);
  EXPECT_EQ(t.blocks[0], std::make_pair(a, t.now_ms() + 5000));
  EXPECT_EQ(t.blocks[1], std::make_pair(b, t.now_ms() + 5000));
  t.effects.clear();
  EXPECT_EQ(t.run({"rpush", "q2", "x", "y", "z"}), I(3));
  // a pops the head, b (BRPOP) the tail.
  ASSERT_EQ(t.unblocked.size(), 2u);
  EXPECT_EQ(t.unblocked[0], std::make_pair(a, A({B("q2"), B("x")})));
  EXPECT_EQ(t.unblocked[1], std::make_pair(b, A({B("q2"), B("z")})));
  EXPECT_EQ(t.run({"lrange", "q2", "0", "-1"}), A({B("y")}));
  ASSERT_EQ(t.effects.size(), 3u);
  EXPECT_EQ(t.effects[0].argv, Argv({"rpush", "q2", "x", "y", "z"}));
  EXPECT_EQ(t.effects[1].argv, Argv({"LPOP", "q2"}));
  EXPECT_EQ(t.effects[2].argv, Argv({"RPOP", "q2"}));
  // Served clients are no longer blocked: another push stays in the list.
  EXPECT_EQ(t.run({"rpush", "q1", "w"}), I(1));
  EXPECT_EQ(t.unblocked.size(), 2u);
}

TEST(BlockingPopTest, TheClientIsServedWithWhatTheWholeCommandLeft) {
  TestNode t;
  const ConnectionId a = t.node->connect();
  EXPECT_TRUE(t.run_all(a, {"blpop", "q", "0"}).empty());
  EXPECT_EQ(t.run({"eval", "redis.call('rpush','q','v'); redis.call('del','q'); redis.call('rpush','q','w'); return 1", "0"}), I(1));
  ASSERT_EQ(t.unblocked.size(), 1u);
  EXPECT_EQ(t.unblocked[0], std::make_pair(a, A({B("q"), B("w")})));
  // A key that held another type meanwhile does not unblock anybody; a list does.
  EXPECT_TRUE(t.run_all(a, {"blpop", "q4", "0"}).empty());
  EXPECT_EQ(t.run({"set", "q4", "str"}), OK());
  EXPECT_EQ(t.run({"del", "q4"}), I(1));
  EXPECT_EQ(t.unblocked.size(), 1u);
  EXPECT_EQ(t.run({"rpush", "q4", "z"}), I(1));
  ASSERT_EQ(t.unblocked.size(), 2u);
  EXPECT_EQ(t.unblocked[1], std::make_pair(a, A({B("q4"), B("z")})));
}

TEST(BlockingPopTest, TimeoutsPassOnTheNodeClockAndAnswerNil) {
  TestNode t;
  const ConnectionId a = t.node->connect();
  const ConnectionId b = t.node->connect();
  const ConnectionId c = t.node->connect();
  EXPECT_TRUE(t.run_all(a, {"blpop", "q", "0.05"}).empty());
  EXPECT_TRUE(t.run_all(b, {"blpop", "q", "0.0001"}).empty());   // rounded up to 1 ms
  EXPECT_TRUE(t.run_all(c, {"blpop", "q", "-0.0001"}).empty());  // rounded up to 0: forever
  ASSERT_EQ(t.blocks.size(), 3u);
  EXPECT_EQ(t.blocks[1].second, t.now_ms() + 1);
  EXPECT_EQ(t.blocks[2].second, 0);
  t.advance_ms(1);
  EXPECT_EQ(t.node->time_out_blocked(), 0u);  // not yet past b's deadline
  t.advance_ms(1);
  EXPECT_EQ(t.node->time_out_blocked(), 1u);
  ASSERT_EQ(t.unblocked.size(), 1u);
  EXPECT_EQ(t.unblocked[0], std::make_pair(b, NA()));
  t.advance_ms(48);
  EXPECT_EQ(t.node->time_out_blocked(), 0u);
  t.advance_ms(1);
  EXPECT_EQ(t.node->time_out_blocked(), 1u);
  EXPECT_EQ(t.unblocked[1], std::make_pair(a, NA()));
  t.advance_ms(1'000'000);
  EXPECT_EQ(t.node->time_out_blocked(), 0u);  // c waits forever
  EXPECT_EQ(t.run({"lpush", "q", "v"}), I(1));
  EXPECT_EQ(t.unblocked[2], std::make_pair(c, A({B("q"), B("v")})));
}

TEST(BlockingPopTest, InsideExecAndScriptsNothingBlocks) {
  TestNode t;
  EXPECT_EQ(t.run({"multi"}), S("OK"));
  EXPECT_EQ(t.run({"blpop", "k", "0"}), S("QUEUED"));
  EXPECT_EQ(t.run({"exec"}), A({NA()}));
  EXPECT_EQ(t.run({"multi"}), S("OK"));
  EXPECT_EQ(t.run({"rpush", "m", "1"}), S("QUEUED"));
  EXPECT_EQ(t.run({"blpop", "m", "1"}), S("QUEUED"));
  EXPECT_EQ(t.run({"exec"}), A({I(1), A({B("m"), B("1")})}));
  EXPECT_TRUE(t.blocks.empty());
  const Reply r = t.run({"eval", "return redis.call('blpop','k',0)", "0"});
  ASSERT_TRUE(r.is_error());
  EXPECT_TRUE(r.str.starts_with("ERR This Redis command is not allowed from script")) << r.str;
}

TEST(BlockingPopTest, ADisconnectedClientIsForgottenAndAReplicaSwitchUnblocksWithAnError) {
  TestNode t;
  const ConnectionId a = t.node->connect();
  const ConnectionId b = t.node->connect();
  EXPECT_TRUE(t.run_all(a, {"blpop", "q", "0"}).empty());
  EXPECT_TRUE(t.run_all(b, {"blpop", "q", "r", "0"}).empty());
  t.node->disconnect(a);
  EXPECT_EQ(t.run({"rpush", "q", "1", "2"}), I(2));
  ASSERT_EQ(t.unblocked.size(), 1u);
  EXPECT_EQ(t.unblocked[0], std::make_pair(b, A({B("q"), B("1")})));
  EXPECT_EQ(t.run({"lrange", "q", "0", "-1"}), A({B("2")}));

  EXPECT_TRUE(t.run_all(b, {"blpop", "empty", "0"}).empty());
  t.node->set_replica(true);
  ASSERT_EQ(t.unblocked.size(), 2u);
  EXPECT_EQ(t.unblocked[1],
            std::make_pair(b, E("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)")));
  EXPECT_EQ(t.run_all(b, {"blpop", "q", "0"}), std::vector<Reply>{E("READONLY You can't write against a read only replica.")});
}

TEST(BlockingPopTest, CommandInfoAndClientListShowBlocking) {
  TestNode t;
  const Reply info = t.run({"command", "info", "blpop"});
  ASSERT_EQ(info.elements.size(), 1u);
  EXPECT_EQ(info.elements[0].elements[1], I(-3));
  EXPECT_EQ(info.elements[0].elements[2], A({S("write"), S("noscript"), S("blocking")}));
  EXPECT_EQ(info.elements[0].elements[3], I(1));
  EXPECT_EQ(info.elements[0].elements[4], I(-2));
  const ConnectionId a = t.node->connect();
  EXPECT_TRUE(t.run_all(a, {"blpop", "q", "0"}).empty());
  const std::string list = t.run({"client", "list"}).str;
  EXPECT_NE(list.find("id=" + std::to_string(a) + " "), std::string::npos);
  EXPECT_NE(list.find("flags=b db=0"), std::string::npos) << list;
}

}  // namespace
}  // namespace lockstep::redis::testing
