#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15 (multi.c and processCommand's queuing).

TEST(MultiTest, QueuesAndRunsAtExecErrorsInsideDoNotAbort) {
  TestNode t;
  EXPECT_EQ(t.run({"multi"}), S("OK"));
  EXPECT_EQ(t.run({"set", "a", "1"}), S("QUEUED"));
  EXPECT_EQ(t.run({"incr", "a"}), S("QUEUED"));
  EXPECT_EQ(t.run({"lpush", "a", "x"}), S("QUEUED"));
  EXPECT_EQ(t.run({"get", "a"}), S("QUEUED"));
  EXPECT_EQ(t.run({"exec"}),
            A({S("OK"), I(2), E("WRONGTYPE Operation against a key holding the wrong kind of value"), B("2")}));
  EXPECT_EQ(t.run({"get", "a"}), B("2"));
  EXPECT_EQ(t.run({"exec"}), E("ERR EXEC without MULTI"));
  EXPECT_EQ(t.run({"discard"}), E("ERR DISCARD without MULTI"));
}

TEST(MultiTest, RefusedWhileQueuingAbortsExec) {
  TestNode t;
  t.run({"multi"});
  EXPECT_EQ(t.run({"set", "a", "1"}), S("QUEUED"));
  EXPECT_EQ(t.run({"nosuch", "x"}), E("ERR unknown command 'nosuch', with args beginning with: 'x' "));
  EXPECT_EQ(t.run({"get"}), E("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(t.run({"multi"}), E("ERR MULTI calls can not be nested"));      // does not abort
  EXPECT_EQ(t.run({"watch", "a"}), E("ERR WATCH inside MULTI is not allowed"));  // nor this
  EXPECT_EQ(t.run({"exec"}), E("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_EQ(t.run({"get", "a"}), N());
  // EXEC refused itself aborts with the reason, in or out of MULTI.
  t.run({"multi"});
  EXPECT_EQ(t.run({"exec", "x"}),
            E("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command"));
  EXPECT_EQ(t.run({"exec"}), E("ERR EXEC without MULTI"));
  // DISCARD and RESET leave MULTI.
  t.run({"multi"});
  t.run({"set", "a", "1"});
  EXPECT_EQ(t.run({"discard"}), S("OK"));
  t.run({"multi"});
  EXPECT_EQ(t.run({"reset"}), S("RESET"));
  EXPECT_EQ(t.run({"exec"}), E("ERR EXEC without MULTI"));
  EXPECT_EQ(t.run({"get", "a"}), N());
}

TEST(MultiTest, WatchedKeyWrittenByAnotherConnectionFailsExec) {
  TestNode t;
  const ConnectionId other = t.node->connect();
  t.run({"set", "k", "1"});
  EXPECT_EQ(t.run({"watch", "k", "k", "missing"}), S("OK"));
  t.run_on(other, {"set", "k", "1"});  // the same value still touches it
  t.run({"multi"});
  t.run({"incr", "k"});
  EXPECT_EQ(t.run({"exec"}), Reply::nil_array());
  EXPECT_EQ(t.run({"get", "k"}), B("1"));
  // EXEC forgot the watches: the next transaction runs.
  t.run({"multi"});
  t.run({"incr", "k"});
  EXPECT_EQ(t.run({"exec"}), A({I(2)}));
  // UNWATCH forgets them too.
  t.run({"watch", "k"});
  t.run({"unwatch"});
  t.run_on(other, {"set", "k", "5"});
  t.run({"multi"});
  EXPECT_EQ(t.run({"exec"}), A({}));
}

TEST(MultiTest, OnlyWhatChangedIsTouched) {
  TestNode t;
  const ConnectionId other = t.node->connect();
  auto exec_runs = [&t] {
    t.run({"multi"});
    t.run({"ping"});
    return t.run({"exec"}) == A({S("PONG")});
  };
  t.run({"watch", "missing"});
  t.run_on(other, {"del", "missing"});  // nothing deleted
  t.run_on(other, {"set", "unrelated", "1"});
  EXPECT_TRUE(exec_runs());
  t.run({"watch", "unrelated"});
  t.run_on(other, {"copy", "unrelated", "dst"});  // COPY changes only its destination
  EXPECT_TRUE(exec_runs());
  t.run({"watch", "dst2"});
  t.run_on(other, {"copy", "unrelated", "dst2"});
  EXPECT_FALSE(exec_runs());
  t.run({"watch", "unrelated"});
  t.run_on(other, {"eval", "redis.call('set', 'unrelated', 'x') return 1", "0"});  // a script's write
  EXPECT_FALSE(exec_runs());
  t.run({"watch", "unrelated"});
  t.run_on(other, {"select", "1"});
  t.run_on(other, {"set", "unrelated", "1"});  // another database
  EXPECT_TRUE(exec_runs());
  t.run({"watch", "unrelated", "missing"});
  t.run({"flushdb"});  // touches the watched keys that exist
  EXPECT_FALSE(exec_runs());
  t.run({"watch", "missing"});
  t.run({"flushall"});
  EXPECT_TRUE(exec_runs());
}

TEST(MultiTest, ExpiryOfAWatchedKey) {
  TestNode t;
  auto exec_runs = [&t] {
    t.run({"multi"});
    t.run({"ping"});
    return t.run({"exec"}) == A({S("PONG")});
  };
  // Live at WATCH, logically expired at EXEC (not yet deleted): EXEC fails.
  t.run({"set", "k", "1", "px", "100"});
  t.run({"watch", "k"});
  t.advance_ms(200);
  EXPECT_FALSE(exec_runs());
  // Already expired at WATCH: its deletion by expiry is no change.
  t.run({"set", "e", "1", "px", "100"});
  t.advance_ms(200);
  t.run({"watch", "e"});
  EXPECT_EQ(t.run({"get", "e"}), N());  // lazy expiry deletes it
  EXPECT_TRUE(exec_runs());
  // ... but a write after that deletion is.
  t.run({"set", "e", "1", "px", "100"});
  t.advance_ms(200);
  t.run({"watch", "e"});
  t.run({"get", "e"});
  t.run({"set", "e", "2"});
  EXPECT_FALSE(exec_runs());
}

TEST(MultiTest, ExecIsOneAtomicGroupOfEffects) {
  TestNode t;
  t.run({"set", "before", "1"});
  t.run({"multi"});
  t.run({"set", "a", "1"});
  t.run({"get", "a"});
  t.run({"incr", "a"});
  t.run({"exec"});
  t.run({"set", "after", "1"});
  ASSERT_EQ(t.effects.size(), 4u);
  EXPECT_EQ(t.effects[1].argv, (std::vector<std::string>{"set", "a", "1"}));
  EXPECT_EQ(t.effects[2].argv, (std::vector<std::string>{"incr", "a"}));
  EXPECT_EQ(t.effects[1].group, t.effects[2].group);
  EXPECT_NE(t.effects[0].group, t.effects[1].group);
  EXPECT_NE(t.effects[2].group, t.effects[3].group);
}

TEST(MultiTest, ReplicaRefusesQueuedWrites) {
  TestNode t;
  t.node->set_replica(true);
  t.run({"multi"});
  EXPECT_EQ(t.run({"set", "a", "1"}), E("READONLY You can't write against a read only replica."));
  EXPECT_EQ(t.run({"get", "a"}), S("QUEUED"));
  EXPECT_EQ(t.run({"exec"}), E("EXECABORT Transaction discarded because of previous errors."));
}

}  // namespace
}  // namespace lockstep::redis::testing
