// The differential test: RapidCheck-generated command sequences run on the Redis node model
// (in-process Node::execute, real clock) and on a real redis-server 7.0, with identical replies
// required (the exceptions, each narrow, are stated in compare.h and docs/differential.md).
//
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
  const auto result = rc::detail::checkTestable(
      [r, family] {
        const std::vector<Step> steps = *gen_sequence(family);
        const std::string report = r->run(steps);
        if (!report.empty()) RC_FAIL("model and redis-server disagree:\n" + report);
      },
      metadata, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (!result.template is<rc::detail::SuccessResult>()) FAIL() << message.str();
  std::cout << "[differential] seed " << params.seed << ": " << params.maxSuccess << " sequences, "
            << r->steps_run() - before << " steps (incl. shrinking) matched\n";
}

TEST(ModelVsRedis, KeysAndStrings) { check_family(Family::kKeysAndStrings, 100); }
TEST(ModelVsRedis, Collections) { check_family(Family::kCollections, 100); }
TEST(ModelVsRedis, LuaReplyConversion) { check_family(Family::kScripts, 100); }
TEST(ModelVsRedis, SeedScripts) { check_family(Family::kSeedScripts, 100); }
TEST(ModelVsRedis, PubSub) { check_family(Family::kPubSub, 50); }
TEST(ModelVsRedis, Everything) { check_family(Family::kEverything, 100); }

}  // namespace
}  // namespace lockstep::differential
