// The differential test: RapidCheck-generated command sequences run on the Redis node model
// (in-process Node::execute, real clock) and on a real redis-server 7.0, with identical replies
// required (the exceptions, each narrow, are stated in compare.h and docs/differential.md).
//
// Every sequence runs twice: over connections that speak RESP2, then over connections that
// speak RESP3 (HELLO 3), each side's replies read as a client of that protocol reads them.
// A failure prints the shrunk sequence with both sides' replies, step by step.
// CI mode runs about 550 sequences; LOCKSTEP_DIFF_LONG=1 runs 20 times more, and
// LOCKSTEP_DIFF_COUNT=N runs N per family. The RapidCheck seed is fixed (so CI is repeatable)
// unless LOCKSTEP_DIFF_SEED=N or RC_PARAMS="seed=N" gives one.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <iostream>

#include "tests/differential/diff_runner.h"

namespace lockstep::differential {
namespace {

DiffRunner* runner() {
  static std::unique_ptr<DiffRunner> r = [] {
    auto created = DiffRunner::create();
    if (!created.ok()) {
      std::cerr << "differential: " << created.status().message() << "\n";
      return std::unique_ptr<DiffRunner>();
    }
    return std::move(created.value());
  }();
  return r.get();
}

int sequences(int ci_count) {
  if (const char* n = std::getenv("LOCKSTEP_DIFF_COUNT")) return std::max(1, std::atoi(n));
  if (const char* l = std::getenv("LOCKSTEP_DIFF_LONG"); l != nullptr && std::string(l) == "1") {
    return ci_count * 20;
  }
  return ci_count;
}

uint64_t seed(uint64_t configured) {
  if (const char* s = std::getenv("LOCKSTEP_DIFF_SEED")) return std::strtoull(s, nullptr, 10);
  const char* rc = std::getenv("RC_PARAMS");
  if (rc != nullptr && std::string(rc).find("seed=") != std::string::npos) return configured;
  return 20260101;
}

void check_family(Family family, int ci_count) {
  DiffRunner* r = runner();
  ASSERT_NE(r, nullptr) << "cannot start redis-server (see stderr)";
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = sequences(ci_count);
  params.seed = seed(params.seed);
  rc::detail::TestMetadata metadata;
  metadata.id = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  metadata.description = metadata.id;
  const uint64_t before = r->steps_run();
  // The last disagreement seen: printed with the failure, since RapidCheck's own message may
  // carry the description of a later, passing re-run of the shrunk case.
  std::string last_report;
  const auto result = rc::detail::checkTestable(
      [r, family, &last_report] {
        const std::vector<Step> steps = *gen_sequence(family);
        for (int protocol : {2, 3}) {
          const std::string report = r->run(steps, protocol);
          if (!report.empty()) {
            last_report = report;
            RC_FAIL("model and redis-server disagree:\n" + report);
          }
        }
      },
      metadata, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (!result.template is<rc::detail::SuccessResult>()) {
    FAIL() << message.str() << "\nlast disagreement seen:\n" << last_report;
  }
  std::cout << "[differential] seed " << params.seed << ": " << params.maxSuccess
            << " sequences, each in RESP2 and RESP3, " << r->steps_run() - before
            << " steps (incl. shrinking) matched\n";
}

TEST(ModelVsRedis, KeysAndStrings) { check_family(Family::kKeysAndStrings, 100); }
TEST(ModelVsRedis, Collections) { check_family(Family::kCollections, 100); }
TEST(ModelVsRedis, LuaReplyConversion) { check_family(Family::kScripts, 100); }
TEST(ModelVsRedis, SeedScripts) { check_family(Family::kSeedScripts, 100); }
TEST(ModelVsRedis, PubSub) { check_family(Family::kPubSub, 50); }
TEST(ModelVsRedis, Functions) { check_family(Family::kFunctions, 60); }
TEST(ModelVsRedis, Everything) { check_family(Family::kEverything, 100); }

}  // namespace
}  // namespace lockstep::differential

namespace lockstep::differential {
namespace {

// Issue 10: the sandbox attacks, replayed on both sides: precompiled chunks are refused and no
// script can change what another sees through the shared string metatable or library tables.
TEST(ModelVsRedis, SandboxAttacks) {
  DiffRunner* r = runner();
  ASSERT_NE(r, nullptr) << "cannot start redis-server (see stderr)";
  // A string.dump output, as bytes: both sides produce the same chunk for the same function
  // (Lua 5.1, same word sizes), compared first.
  std::vector<Step> steps = {
      {0, {"EVAL", "return string.dump(function() return 42 end)", "0"}, CompareRule::kExact},
      {0, {"EVAL", "rawset(getmetatable(''), '__index', {sub = function() return 'pwn' end}) return 1", "0"}},
      {1, {"EVAL", "return ARGV[1]:sub(1, 3)", "0", "abcdef"}},
      {0, {"EVAL", "getmetatable('').__index = {} return 1", "0"}},
      {0, {"EVAL", "getmetatable('').__index.sub = nil return 1", "0"}},
      {0, {"EVAL", "setmetatable(getmetatable(''), nil) return 1", "0"}},
      {0, {"EVAL", "rawset(string, 'sub', nil) return 1", "0"}},
      {0, {"EVAL", "string.sub = nil return 1", "0"}},
      {0, {"EVAL", "rawset(_G, 'x', 1) return 1", "0"}},
      {1, {"EVAL", "return {getmetatable('').__index == string, ARGV[1]:upper()}", "0", "ok"}},
      {0, {"EVAL", "return loadstring(string.dump(function() return 1 end))", "0"}},
  };
  EXPECT_EQ(r->run(steps), "");
  EXPECT_EQ(r->run(steps, 3), "");
  // The dumped chunk itself, through EVAL and SCRIPT LOAD.
  const std::string dump = "\x1bLuaQ";
  const std::vector<Step> binary = {{0, {"EVAL", dump + std::string("\0\x01\x04\x08\x04\x08\0", 7), "0"}},
                                    {0, {"SCRIPT", "LOAD", dump + std::string("\0\x01\x04\x08\x04\x08\0", 7)}}};
  EXPECT_EQ(r->run(binary), "");
}

}  // namespace
}  // namespace lockstep::differential

namespace lockstep::differential {
namespace {

// Issue 10: every reply type the model gives, in both protocols (RESP3: map, set, double, null,
// verbatim string, push; RESP2: what each becomes), on fixed steps that are sure to produce
// them; the generated sequences cover them again at random.
TEST(ModelVsRedis, ReplyTypesInBothProtocols) {
  DiffRunner* r = runner();
  ASSERT_NE(r, nullptr) << "cannot start redis-server (see stderr)";
  const std::vector<Step> steps = {
      {0, {"ZADD", "z", "1.5", "m", "0.1", "n", "inf", "o"}},
      {0, {"ZSCORE", "z", "m"}},
      {0, {"ZSCORE", "z", "o"}},
      {0, {"ZSCORE", "z", "nosuch"}},
      {0, {"ZINCRBY", "z", "1", "m"}},
      {0, {"ZADD", "z", "INCR", "2", "n"}},
      {0, {"ZADD", "z", "NX", "INCR", "2", "n"}},
      {0, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}},
      {0, {"ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES"}},
      {0, {"ZRANGE", "z", "0", "-1"}},
      {0, {"ZRANK", "z", "nosuch"}},
      {0, {"HSET", "h", "f1", "v1", "f2", "v2"}},
      {0, {"HGETALL", "h"}},
      {0, {"HGETALL", "nosuch"}},
      {0, {"HMGET", "h", "f1", "nosuch"}},
      {0, {"SADD", "s", "1", "2", "3"}},
      {0, {"SMEMBERS", "s"}},
      {0, {"SMEMBERS", "nosuch"}},
      {0, {"GET", "nosuch"}},
      {0, {"MGET", "h", "nosuch"}},
      {0, {"LPOP", "nosuch", "2"}},
      {0, {"LINDEX", "nosuch", "0"}},
      {0, {"CONFIG", "GET", "databases"}},
      {0, {"CLIENT", "GETNAME"}},
      {0, {"COMMAND", "INFO", "nosuch"}},
      {0, {"COMMAND", "DOCS", "nosuch"}},
      {0, {"INFO", "keyspace"}},
      {0, {"EXISTS", "h", "s"}},
      {0, {"EVAL", "return {double=0.1}", "0"}},
      {0, {"EVAL", "redis.setresp(3) return {true, false, redis.call('zscore', 'z', 'm')}", "0"}},
      {0, {"EVAL", "redis.setresp(3) return redis.call('hgetall', 'h')", "0"}},
      {0, {"EVAL", "return {map={a=1}, set={b=true}}", "0"}},
      {1, {"SUBSCRIBE", "ch"}},
      {0, {"PUBLISH", "ch", "hello"}},
      {1, {"PING"}},
      {1, {"GET", "nosuch"}},
      {1, {"UNSUBSCRIBE"}, CompareRule::kUnsubscribeAll},
      {1, {"HELLO", "2"}, CompareRule::kHello},
      {1, {"HGETALL", "h"}},
      {1, {"HELLO", "3", "SETNAME", "x"}, CompareRule::kHello},
      {1, {"HGETALL", "h"}},
      {1, {"RESET"}},
      {1, {"HGETALL", "h"}},
  };
  EXPECT_EQ(r->run(steps, 2), "");
  EXPECT_EQ(r->run(steps, 3), "");
}

}  // namespace
}  // namespace lockstep::differential
