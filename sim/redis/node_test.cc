#include "sim/redis/node.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/redis/server.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

using Argv = std::vector<std::string>;

TEST(PropagationTest, ScriptEffectsShareOneGroup) {
  TestNode t;
  t.run({"set", "x", "1"});
  uint64_t first = t.effects.back().group;
  std::string at = std::to_string(t.now_ms() + 30000);
  t.run({"eval",
         "redis.call('hset', KEYS[1], 'f', 1); redis.call('pexpire', KEYS[1], 30000); "
         "redis.call('get', KEYS[1] .. 'x'); return redis.call('incr', 'n')",
         "1", "lock"});
  ASSERT_EQ(t.effects.size(), 4u);
  EXPECT_EQ(t.effects[1].argv, (Argv{"hset", "lock", "f", "1"}));
  EXPECT_EQ(t.effects[2].argv, (Argv{"PEXPIREAT", "lock", at}));
  EXPECT_EQ(t.effects[3].argv, (Argv{"incr", "n"}));
  EXPECT_EQ(t.effects[1].group, t.effects[3].group);
  EXPECT_GT(t.effects[1].group, first);
  // A read-only script propagates nothing.
  t.run({"eval", "return redis.call('get', 'n')", "0"});
  EXPECT_EQ(t.effects.size(), 4u);
}

TEST(PropagationTest, SetReplNoneStopsPropagation) {
  TestNode t;
  t.run({"eval", "redis.call('set','a','1'); redis.set_repl(redis.REPL_NONE); redis.call('set','b','2'); "
                 "redis.set_repl(redis.REPL_ALL); redis.call('set','c','3')", "0"});
  ASSERT_EQ(t.effects.size(), 2u);
  EXPECT_EQ(t.effects[0].argv[1], "a");
  EXPECT_EQ(t.effects[1].argv[1], "c");
}

TEST(PropagationTest, DatabaseChangesAreAnnouncedWithSelect) {
  TestNode t;
  t.run({"select", "3"});
  t.run({"set", "k", "v"});
  t.run({"set", "k2", "v"});
  t.run({"eval", "redis.call('select', '0'); redis.call('del', 'zz'); return redis.call('set', 'k', 'v')", "0"});
  ASSERT_EQ(t.effects.size(), 5u);
  EXPECT_EQ(t.effects[0].argv, (Argv{"SELECT", "3"}));
  EXPECT_EQ(t.effects[1].argv, (Argv{"set", "k", "v"}));
  EXPECT_EQ(t.effects[2].argv, (Argv{"set", "k2", "v"}));
  EXPECT_EQ(t.effects[3].argv, (Argv{"SELECT", "0"}));
  EXPECT_EQ(t.effects[4].argv, (Argv{"set", "k", "v"}));
  EXPECT_EQ(t.effects[3].group, t.effects[4].group);
  // The script's SELECT did not change the caller's database.
  EXPECT_EQ(t.run({"get", "k2"}), B("v"));
}

TEST(PropagationTest, PublishAndFlushArePropagated) {
  TestNode t;
  t.run({"publish", "ch", "m"});
  t.run({"flushall"});
  t.run({"del", "nokey"});  // nothing deleted: nothing propagated
  ASSERT_EQ(t.effects.size(), 2u);
  EXPECT_EQ(t.effects[0].argv, (Argv{"publish", "ch", "m"}));
  EXPECT_EQ(t.effects[1].argv, (Argv{"flushall"}));
}

// Replaying a master's effects on a replica reproduces the master's data.
class ReplicationPair {
 public:
  ReplicationPair() {
    replica.node->set_replica(true);
  }
  void run(std::initializer_list<std::string_view> argv) {
    master.run(argv);
    for (; applied < master.effects.size(); applied++) replica.node->apply_replicated(master.effects[applied].argv);
  }
  void expect_same() {
    ASSERT_EQ(master.node->keys_sorted(), replica.node->keys_sorted());
    for (const std::string& k : master.node->keys_sorted()) {
      auto a = master.node->inspect(k);
      auto b = replica.node->inspect(k);
      ASSERT_TRUE(a && b);
      EXPECT_EQ(a->type, b->type) << k;
      EXPECT_EQ(a->strings, b->strings) << k;
      EXPECT_EQ(a->expire_at_ms, b->expire_at_ms) << k;
    }
  }
  TestNode master, replica;
  size_t applied = 0;
};

TEST(ReplicationTest, ReplicaApplyReproducesTheMaster) {
  ReplicationPair p;
  p.run({"set", "s", "v", "ex", "100"});
  p.run({"hset", "h", "a", "1", "b", "2"});
  p.run({"rpush", "l", "x", "y"});
  p.run({"sadd", "set", "3", "1", "z"});
  p.run({"zadd", "z", "1", "a", "2", "b"});
  p.run({"eval", "redis.call('hincrby', KEYS[1], 'a', 5); redis.call('pexpire', KEYS[1], 1000); "
                 "redis.call('select', '2'); redis.call('set', 'other', 'db')", "1", "h"});
  p.run({"lpop", "l"});
  p.run({"zincrby", "z", "5", "a"});
  p.run({"expire", "s", "-1"});
  p.expect_same();
  EXPECT_EQ(p.replica.node->inspect("h")->expire_at_ms, p.master.now_ms() + 1000);
  // SELECT in the stream switched the replica's database too.
  ConnectionId c = p.replica.node->connect();
  EXPECT_EQ(p.replica.run_on(c, {"select", "2"}), OK());
  EXPECT_EQ(p.replica.run_on(c, {"get", "other"}), B("db"));
}

TEST(ReplicationTest, ExpiryOnTheMasterReachesTheReplicaAsDel) {
  ReplicationPair p;
  p.run({"set", "k", "v", "px", "10"});
  p.master.advance_ms(20);
  p.replica.advance_ms(20);
  EXPECT_EQ(p.master.node->active_expire_cycle(), 1u);
  p.run({"ping"});  // delivers the pending effects
  EXPECT_EQ(p.replica.node->dbsize(), 0u);
}

TEST(LifecycleTest, SnapshotRestoreReset) {
  TestNode t;
  t.run({"set", "a", "1", "px", "5000"});
  t.run({"hset", "h", "f", "v"});
  t.run({"select", "5"});
  t.run({"set", "in5", "x"});
  std::string sha = t.run({"script", "load", "return 1"}).str;
  std::unique_ptr<Dataset> snap = t.node->snapshot();
  EXPECT_EQ(snap->key_count(), 3u);
  t.run({"flushall"});
  EXPECT_EQ(t.node->dbsize(), 0u);
  t.node->restore(*snap);
  EXPECT_EQ(t.node->dbsize(), 2u);
  EXPECT_EQ(t.run({"get", "in5"}), B("x"));
  EXPECT_EQ(t.run({"select", "0"}), OK());
  EXPECT_EQ(t.run({"pttl", "a"}), I(5000));
  // Mutating the restored node leaves the snapshot alone.
  t.run({"del", "h"});
  EXPECT_EQ(snap->key_count(), 3u);
  // A restart loses keys, scripts and connections.
  t.node->reset();
  EXPECT_EQ(t.node->dbsize(), 0u);
  ConnectionId c = t.node->connect();
  EXPECT_GT(c, t.conn);  // connection ids are never reused
  EXPECT_EQ(t.run_on(c, {"evalsha", sha, "0"}), E("NOSCRIPT No matching script. Please use EVAL."));
  t.node->restore(*snap);
  EXPECT_EQ(t.run_on(c, {"hget", "h", "f"}), B("v"));
  // Expired keys in a snapshot expire lazily after a restore.
  t.advance_ms(6000);
  EXPECT_EQ(t.run_on(c, {"get", "a"}), N());
}

TEST(LifecycleTest, InspectDumpsEveryType) {
  TestNode t;
  t.run({"set", "s", "v", "pxat", "2000000"});
  t.run({"hset", "h", "b", "2", "a", "1"});
  t.run({"rpush", "l", "x", "y"});
  t.run({"sadd", "set", "2", "1"});
  t.run({"zadd", "z", "0.5", "m", "-1", "n"});
  auto s = t.node->inspect("s");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->type, "string");
  EXPECT_EQ(s->strings, (Argv{"v"}));
  EXPECT_EQ(s->expire_at_ms, 2000000);
  EXPECT_EQ(t.node->inspect("h")->strings, (Argv{"b", "2", "a", "1"}));
  EXPECT_EQ(t.node->inspect("h")->expire_at_ms, -1);
  EXPECT_EQ(t.node->inspect("l")->strings, (Argv{"x", "y"}));
  EXPECT_EQ(t.node->inspect("set")->strings, (Argv{"1", "2"}));
  EXPECT_EQ(t.node->inspect("z")->strings, (Argv{"n", "-1", "m", "0.5"}));
  EXPECT_EQ(t.node->inspect("z")->type, "zset");
  EXPECT_FALSE(t.node->inspect("nokey"));
  uint64_t before = t.node->commands_executed();
  t.run({"ping"});
  EXPECT_EQ(t.node->commands_executed(), before + 1);
}

TEST(LifecycleTest, DisconnectDropsSubscriptions) {
  TestNode t;
  ConnectionId sub = t.node->connect();
  t.run_all(sub, {"subscribe", "ch"});
  EXPECT_EQ(t.run({"publish", "ch", "m"}), I(1));
  t.node->disconnect(sub);
  t.node->disconnect(sub);  // unknown ids are ignored
  EXPECT_EQ(t.run({"publish", "ch", "m"}), I(0));
}

// Any interleaving of these commands leaves a replica fed with the effects equal to the master.
RC_GTEST_PROP(ReplicationTest, RandomWritesReplicateExactly, (std::vector<std::pair<uint8_t, uint8_t>> ops)) {
  ReplicationPair p;
  for (const auto& [op, k] : ops) {
    std::string key = "k" + std::to_string(k % 6);
    std::string num = std::to_string(k % 13);
    switch (op % 10) {
      case 0: p.run({"set", key, num, "px", "50"}); break;
      case 1: p.run({"hincrby", "h" + key, "f", num}); break;
      case 2: p.run({"pexpire", "h" + key, num}); break;
      case 3: p.run({"zadd", "z", num, key}); break;
      case 4: p.run({"sadd", "s", key, num}); break;
      case 5: p.run({"rpush", "l", key}); break;
      case 6: p.run({"lpop", "l"}); break;
      case 7: p.run({"del", key}); break;
      case 8:
        p.run({"eval", "redis.call('hset', KEYS[1], 'a', ARGV[1]); return redis.call('pexpire', KEYS[1], ARGV[1])",
               "1", "h" + key, num});
        break;
      default:
        p.master.advance_ms(k % 40);
        p.replica.advance_ms(k % 40);
        p.master.node->active_expire_cycle();
        p.run({"get", key});
    }
  }
  p.master.advance_ms(1000);
  p.replica.advance_ms(1000);
  p.master.node->active_expire_cycle();
  p.run({"ping"});
  RC_ASSERT(p.master.node->keys_sorted() == p.replica.node->keys_sorted());
  for (const std::string& k : p.master.node->keys_sorted()) {
    RC_ASSERT(p.master.node->inspect(k)->strings == p.replica.node->inspect(k)->strings);
  }
}

std::vector<ConnectionId> ids_in_order(const ClientTable& table) {
  std::vector<ConnectionId> ids;
  table.for_each([&](const Client& c) { ids.push_back(c.id); });
  return ids;
}

Client client_with_id(ConnectionId id) {
  Client c;
  c.id = id;
  return c;
}

TEST(ClientTableTest, FindsAddsAndErasesInIdOrder) {
  ClientTable table;
  EXPECT_EQ(table.find(1), nullptr);
  for (ConnectionId id : {5, 6, 7, 9}) table.add(client_with_id(id));
  EXPECT_EQ(table.size(), 4u);
  EXPECT_EQ(ids_in_order(table), (std::vector<ConnectionId>{5, 6, 7, 9}));
  EXPECT_EQ(table.find(8), nullptr);  // a gap
  EXPECT_EQ(table.find(4), nullptr);  // before the first
  EXPECT_EQ(table.find(10), nullptr);  // after the last
  ASSERT_NE(table.find(7), nullptr);
  EXPECT_EQ(table.find(7)->id, 7u);

  table.erase(6);  // a hole in the middle
  table.erase(6);  // absent: nothing happens
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(table.find(6), nullptr);
  table.erase(5);  // the front: its slots are given back
  table.erase(9);  // the back
  EXPECT_EQ(ids_in_order(table), (std::vector<ConnectionId>{7}));
  table.add(client_with_id(12));
  EXPECT_EQ(ids_in_order(table), (std::vector<ConnectionId>{7, 12}));
  table.erase(7);
  table.erase(12);
  EXPECT_EQ(table.size(), 0u);
  // Empty again: numbering may start anywhere, as after clear().
  table.add(client_with_id(2));
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(2), nullptr);
  table.add(client_with_id(1));
  EXPECT_EQ(ids_in_order(table), (std::vector<ConnectionId>{1}));
}

TEST(ClientTableTest, ClientListStaysInIdOrderAcrossDisconnects) {
  TestNode t;
  const ConnectionId a = t.node->connect();
  const ConnectionId b = t.node->connect();
  t.node->disconnect(t.conn);  // the first connection goes: the front slot is given back
  const ConnectionId c = t.node->connect();
  std::vector<Reply> out;
  std::string_view argv[] = {"client", "list"};
  t.node->execute(b, argv, out);
  ASSERT_EQ(out.size(), 1u);
  const std::string& text = out[0].str;
  const size_t pa = text.find("id=" + std::to_string(a) + " ");
  const size_t pb = text.find("id=" + std::to_string(b) + " ");
  const size_t pc = text.find("id=" + std::to_string(c) + " ");
  ASSERT_NE(pa, std::string::npos);
  ASSERT_NE(pb, std::string::npos);
  ASSERT_NE(pc, std::string::npos);
  EXPECT_LT(pa, pb);
  EXPECT_LT(pb, pc);
  EXPECT_EQ(text.find("id=" + std::to_string(t.conn) + " "), std::string::npos);
}

TEST(NameSetTest, KeepsNamesSortedAndUnique) {
  NameSet set;
  EXPECT_TRUE(set.insert("b"));
  EXPECT_TRUE(set.insert("a"));
  EXPECT_TRUE(set.insert("c"));
  EXPECT_FALSE(set.insert("b"));
  EXPECT_EQ(std::vector<std::string>(set.begin(), set.end()), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(set.erase("b"));
  EXPECT_FALSE(set.erase("b"));
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(set.begin(), set.end()), (std::vector<std::string>{"a", "c"}));
}

}  // namespace
}  // namespace lockstep::redis::testing
