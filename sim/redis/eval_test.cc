// EVAL/EVALSHA/SCRIPT: the script cache, shebangs, numkeys and read-only runs
// (replies checked against redis-server 7.0.15).
#include "sim/redis/eval.h"

#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

TEST(EvalTest, NumkeysErrors) {
  TestNode t;
  EXPECT_EQ(t.run({"eval", "return 1"}), E("ERR wrong number of arguments for 'eval' command"));
  EXPECT_EQ(t.run({"eval", "return 1", "x"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"eval", "return 1", "-1"}), E("ERR Number of keys can't be negative"));
  EXPECT_EQ(t.run({"eval", "return 1", "2", "a"}), E("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(t.run({"eval", "return 1", "1"}), E("ERR Number of keys can't be greater than number of args"));
}

TEST(EvalTest, ScriptCache) {
  TestNode t;
  const std::string sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";
  EXPECT_EQ(t.run({"evalsha", "abc", "0"}), E("NOSCRIPT No matching script. Please use EVAL."));
  EXPECT_EQ(t.run({"evalsha", sha, "0"}), E("NOSCRIPT No matching script. Please use EVAL."));
  EXPECT_EQ(t.run({"script", "load", "return 1"}), B(sha));
  EXPECT_EQ(t.run({"evalsha", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"}), I(1));
  EXPECT_EQ(t.run({"evalsha", sha + " ", "0"}), E("NOSCRIPT No matching script. Please use EVAL."));
  EXPECT_EQ(t.run({"script", "exists", sha, "abc", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"}), A({I(1), I(0), I(1)}));
  EXPECT_EQ(t.run({"evalsha_ro", sha, "0"}), I(1));
  EXPECT_EQ(t.run({"script", "flush", "async"}), OK());
  EXPECT_EQ(t.run({"evalsha", sha, "0"}), E("NOSCRIPT No matching script. Please use EVAL."));
  // EVAL caches what it runs.
  EXPECT_EQ(t.run({"eval", "return 1", "0"}), I(1));
  EXPECT_EQ(t.run({"evalsha", sha, "0"}), I(1));
  // The error of an EVALSHA names the digest in lower case.
  t.run({"script", "load", "error(\"x\")"});
  EXPECT_EQ(t.run({"evalsha", "ADA89932DB851CA262F39D814CE59006E53278CC", "0"}),
            E("ERR user_script:1: x script: ada89932db851ca262f39d814ce59006e53278cc, on @user_script:1."));
}

TEST(EvalTest, ScriptSubcommands) {
  TestNode t;
  EXPECT_EQ(t.run({"script", "exists"}), E("ERR wrong number of arguments for 'script|exists' command"));
  EXPECT_EQ(t.run({"script", "load"}), E("ERR wrong number of arguments for 'script|load' command"));
  EXPECT_EQ(t.run({"script", "flush", "sync"}), OK());
  EXPECT_EQ(t.run({"script", "flush", "bad"}), E("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(t.run({"script", "flush", "a", "b"}), E("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(t.run({"script", "foo"}), E("ERR unknown subcommand 'foo'. Try SCRIPT HELP."));
  EXPECT_EQ(t.run({"script"}), E("ERR wrong number of arguments for 'script' command"));
  EXPECT_EQ(t.run({"script", "kill"}), E("NOTBUSY No scripts in execution right now."));
  Reply help = t.run({"script", "help"});
  ASSERT_EQ(help.elements.size(), 17u);
  EXPECT_EQ(help.elements[0], S("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
}

TEST(EvalTest, Shebangs) {
  TestNode t;
  EXPECT_EQ(t.run({"eval", "#!lua\nreturn 1", "0"}), I(1));
  EXPECT_EQ(t.run({"eval", "#!lua flags=\nreturn 1", "0"}), I(1));
  EXPECT_EQ(t.run({"eval", "#!lua flags=no-writes,allow-stale,allow-oom,no-cluster,allow-cross-slot-keys\nreturn 1", "0"}), I(1));
  std::string ro = "#!lua flags=no-writes\nreturn redis.call(\"set\",\"a\",\"b\")";
  EXPECT_EQ(t.run({"eval", ro, "0"}),
            E("ERR Write commands are not allowed from read-only scripts. script: " + sha1_hex(ro) + ", on @user_script:2."));
  std::string err = "#!lua flags=no-writes\nerror(\"x\")";
  EXPECT_EQ(t.run({"eval", err, "0"}), E("ERR user_script:2: x script: " + sha1_hex(err) + ", on @user_script:2."));
  EXPECT_EQ(t.run({"eval", "#!lua flags=bogus\nreturn 1", "0"}), E("ERR Unexpected flag in script shebang: bogus"));
  EXPECT_EQ(t.run({"eval", "#!luax\nreturn 1", "0"}), E("ERR Unexpected engine in script shebang: #!luax"));
  EXPECT_EQ(t.run({"eval", "#!lua name=x\nreturn 1", "0"}), E("ERR Unknown lua shebang option: name=x"));
  EXPECT_EQ(t.run({"eval", "#!lua", "0"}), E("ERR Invalid script shebang"));
}

TEST(EvalTest, ReadOnlyRuns) {
  TestNode t;
  std::string w = "return redis.call(\"set\",\"a\",\"b\")";
  EXPECT_EQ(t.run({"eval_ro", w, "0"}),
            E("ERR Write commands are not allowed from read-only scripts. script: " + sha1_hex(w) + ", on @user_script:1."));
  EXPECT_EQ(t.run({"eval_ro", "return redis.call(\"get\",\"a\")", "0"}), N());
  EXPECT_TRUE(t.run({"eval_ro", "return redis.call('publish','c','m')", "0"}).str.find("Write commands are not allowed") != std::string::npos);
  EXPECT_EQ(t.run({"eval_ro", "#!lua\nreturn 1", "0"}), E("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(t.run({"eval_ro", "#!lua flags=no-writes\nreturn 1", "0"}), I(1));
}

TEST(ShebangTest, Parse) {
  uint32_t flags = 0;
  size_t len = 0;
  std::string error;
  EXPECT_TRUE(parse_shebang("return 1", &flags, &len, &error));
  EXPECT_EQ(flags, kScriptCompat);
  EXPECT_EQ(len, 0u);
  EXPECT_TRUE(parse_shebang("#!lua flags=no-writes,allow-oom\nreturn 1", &flags, &len, &error));
  EXPECT_EQ(flags, kScriptNoWrites | kScriptAllowOom);
  EXPECT_EQ(len, 31u);
  EXPECT_FALSE(parse_shebang("#!lua flags=no-writes,,x\n", &flags, &len, &error));
  EXPECT_EQ(error, "Unexpected flag in script shebang: ");
}

}  // namespace
}  // namespace lockstep::redis::testing
