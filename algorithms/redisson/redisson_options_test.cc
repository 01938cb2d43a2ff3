// Redisson options: profiles, overrides, and the error messages for bad values.
#include "algorithms/redisson/redisson_options.h"

#include <gtest/gtest.h>

namespace lockstep::algorithms::redisson {
namespace {

using nlohmann::json;

Result<RedissonOptions> parse(const json& j, std::vector<std::string> names = fair_option_names()) {
  return parse_options(j, "/algorithm/options", names);
}

TEST(RedissonOptionsTest, ClassicIsTheDefaultProfileAndMatchesTheSeeds) {
  Result<RedissonOptions> r = parse(json::object());
  ASSERT_TRUE(r.ok());
  const RedissonOptions& o = r.value();
  EXPECT_EQ(o.profile, Profile::kClassic);
  EXPECT_EQ(o.retry_attempts, -1);  // the client's
  EXPECT_EQ(o.effective_retry_attempts(3, false), 3);
  EXPECT_EQ(o.retry_delay, RetryDelay::kFixed);
  EXPECT_FALSE(o.unlock_latch);
  EXPECT_EQ(o.unlock_script, UnlockScript::kExistsCheck);
  EXPECT_FALSE(o.sync_replicas);
  EXPECT_EQ(o.watchdog_after_failure, WatchdogAfterFailure::kStop);
  EXPECT_EQ(o.fair_thread_wait_ms, 5000);
  EXPECT_EQ(o.fair_script, FairScript::kSeed);
  EXPECT_FALSE(o.fair_acquire_failed_on_timeout);
  EXPECT_TRUE(o.read_lease_max);
}

TEST(RedissonOptionsTest, CurrentProfileChangesEveryVersionedBehaviour) {
  Result<RedissonOptions> r = parse(json{{"profile", "current"}});
  ASSERT_TRUE(r.ok());
  const RedissonOptions& o = r.value();
  EXPECT_EQ(o.profile, Profile::kCurrent);
  EXPECT_EQ(o.effective_retry_attempts(3, false), 4);
  // Regression (issue 9): a client retry_attempts the scenario gives beats the profile's 4.
  EXPECT_EQ(o.effective_retry_attempts(0, true), 0);
  EXPECT_EQ(o.retry_delay, RetryDelay::kEqualJitter);
  EXPECT_TRUE(o.merged_acquire);
  EXPECT_TRUE(o.unlock_latch);
  EXPECT_EQ(o.latch_request_id, LatchRequestId::kPerCall);
  EXPECT_TRUE(o.sync_replicas);
  EXPECT_EQ(o.watchdog_after_failure, WatchdogAfterFailure::kReschedule);
  EXPECT_EQ(o.fair_thread_wait_ms, 300000);
  EXPECT_EQ(o.fair_script, FairScript::kCurrent);
  EXPECT_TRUE(o.fair_acquire_failed_on_timeout);
  EXPECT_EQ(o.read_renew, ReadRenew::kOwnOnly);
}

TEST(RedissonOptionsTest, EachBehaviourCanBeOverriddenOnTopOfAProfile) {
  Result<RedissonOptions> r =
      parse(json{{"profile", "current"}, {"unlock_latch", false}, {"thread_wait_ms", 5000},
                 {"watchdog_after_failure", "stop"}, {"retry_attempts", 0}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().unlock_latch);
  EXPECT_EQ(r.value().fair_thread_wait_ms, 5000);
  EXPECT_EQ(r.value().watchdog_after_failure, WatchdogAfterFailure::kStop);
  EXPECT_EQ(r.value().effective_retry_attempts(3, false), 0);
  EXPECT_EQ(r.value().effective_retry_attempts(2, true), 0);  // the algorithm's own option beats the client's
  EXPECT_TRUE(r.value().sync_replicas);  // untouched: still the profile's
}

TEST(RedissonOptionsTest, BadValuesNameTheJsonPathTheExpectationAndWhatWasFound) {
  Result<RedissonOptions> r = parse(json{{"profile", "newest"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/algorithm/options/profile: expected one of \"classic\", \"current\", found string "
            "\"newest\"");
  r = parse(json{{"thread_wait_ms", -5}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/algorithm/options/thread_wait_ms: expected an "
                                      "integer in [0, "),
            std::string::npos);
  r = parse(json{{"unlock_latch", "yes"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/algorithm/options/unlock_latch: expected true or false, found string \"yes\"");
  r = parse(json{{"retry_delay_base_ms", 5000}, {"retry_delay_max_ms", 100}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("retry_delay_base_ms: expected at most"), std::string::npos);
}

TEST(RedissonOptionsTest, OptionsOfAnotherAlgorithmAreUnknownHere) {
  Result<RedissonOptions> r = parse(json{{"thread_wait_ms", 1000}}, common_option_names());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/algorithm/options/thread_wait_ms: unknown option"),
            std::string::npos);
  r = parse(json::array(), common_option_names());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/algorithm/options: expected an object"), std::string::npos);
}

TEST(RedissonOptionsTest, DescribeListsBothProfileDefaultsForEveryOption) {
  json d = describe(rwlock_option_names());
  ASSERT_EQ(d.size(), rwlock_option_names().size());
  for (const json& item : d) {
    EXPECT_TRUE(item.contains("classic")) << item;
    EXPECT_TRUE(item.contains("current")) << item;
    EXPECT_FALSE(item["doc"].get<std::string>().empty()) << item;
  }
  EXPECT_EQ(d[0]["name"], "profile");
  EXPECT_EQ(d[1]["classic"], "client");
  EXPECT_EQ(d[1]["current"], 4);
}

// Regression (issue 9): the fair lock and the read-write lock have unlock scripts of their own;
// the RLock's unlock_script (and merged_acquire) were accepted there and ignored.
TEST(RedissonOptionsTest, RlockScriptOptionsAreRefusedWhereTheyDoNotApply) {
  for (const auto& names : {fair_option_names(), rwlock_option_names()}) {
    for (const char* option : {"unlock_script", "merged_acquire"}) {
      json o = {{option, option == std::string("unlock_script") ? json("owner_check") : json(true)}};
      Result<RedissonOptions> r = parse_options(o, "/algorithm/options", names);
      ASSERT_FALSE(r.ok()) << option;
      EXPECT_NE(r.status().message().find(std::string("/algorithm/options/") + option + ": unknown option"),
                std::string::npos)
          << r.status().message();
    }
  }
  EXPECT_TRUE(parse_options(json{{"unlock_script", "owner_check"}}, "/algorithm/options", common_option_names()).ok());
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
