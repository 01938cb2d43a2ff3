#include "harness/explore/derived_profile.h"

#include <gtest/gtest.h>

#include "algorithms/algorithm.h"
#include "harness/explore/explore.h"
#include "harness/scenario/parse.h"

namespace lockstep::explore {
namespace {

// Every algorithm's derived profile is a scenario that parses and runs, with the magnitudes
// docs/cli.md promises: pauses up to twice the lease, holds up to 1.5 leases, client crashes.
TEST(DerivedProfileTest, EveryAlgorithmsProfileParsesAndScalesWithItsLease) {
  for (const algorithms::AlgorithmInfo& a : algorithms::algorithms()) {
    Result<nlohmann::json> j = derive_profile(a.name, nlohmann::json::object());
    ASSERT_TRUE(j.ok()) << a.name << ": " << j.status().message();
    Result<scenario::Scenario> s = scenario::parse_scenario_text(j.value().dump(), a.name + "-derived.json");
    ASSERT_TRUE(s.ok()) << a.name << ": " << s.status().message();
    const ProfileTimings t = profile_timings(a.name, nlohmann::json::object());
    const nlohmann::json& kinds = j.value()["faults"]["random"]["kinds"];
    int64_t pause_max = 0;
    for (const nlohmann::json& k : kinds) {
      if (k["kind"] == "pause") pause_max = k["duration_ms"][1].get<int64_t>();
    }
    EXPECT_EQ(pause_max, 2 * t.lease_ms) << a.name;
    // Holds outlive the lease only where something renews it (else they would break the lock
    // by themselves in nearly every seed).
    EXPECT_EQ(j.value()["workload"]["generator"]["hold_ms"][1].get<int64_t>(),
              t.renews ? t.lease_ms * 3 / 2 : t.lease_ms / 2) << a.name;
    // Renewing: the watchdog locks, and the ecosystem's locks that refresh their own lease.
    const bool own_lease = static_cast<bool>(a.default_lease_ms);
    EXPECT_EQ(t.renews, a.name != "setnx-naive" && (!own_lease || (a.renews_default_lease && a.renews_default_lease(nlohmann::json::object())))) << a.name;
    if (a.name == "redis-semaphore-mutex") {
      EXPECT_TRUE(t.renews);
    }
    if (a.name == "redsync" || a.name == "redis-py-lock") {
      EXPECT_FALSE(t.renews);
    }
    // Node clock jumps are a kind of their own, aimed at the nodes only.
    int node_jump_kinds = 0;
    for (const nlohmann::json& k : kinds) {
      if (k["kind"] != "clock_jump" || !k.contains("targets")) continue;
      bool nodes_only = true;
      for (const nlohmann::json& target : k["targets"]) nodes_only &= s.value().is_node(target.get<std::string>());
      node_jump_kinds += nodes_only;
    }
    EXPECT_EQ(node_jump_kinds, 1) << a.name;
    EXPECT_EQ(j.value()["topology"]["kind"], a.multi_master ? "independent" : "replicated") << a.name;
    // A few seeds run without an error (violations are findings, not errors).
    ExploreOptions o;
    o.range = SeedRange{1, 3};
    Result<ExploreSummary> sum = run_explore(s.value(), o);
    ASSERT_TRUE(sum.ok()) << a.name;
    EXPECT_EQ(sum.value().verdicts.count("error"), 0u) << a.name;
    EXPECT_EQ(sum.value().verdicts.count("crashed"), 0u) << a.name;
  }
  EXPECT_EQ(profile_timings("redisson-lock", {}).lease_ms, 30000);
  // Every algorithm's call without a lease gets 30 s by default (the renewal loop's, the
  // extension's, setnx-naive's default_lease_ms), so the profile's bound leaves room for it.
  EXPECT_EQ(profile_timings("set-nx-px", {}).lease_ms, 30000);
  EXPECT_EQ(profile_timings("redlock-spec", {}).lease_ms, 30000);
  EXPECT_EQ(profile_timings("setnx-naive", {{"default_lease_ms", 5000}}).lease_ms, 5000);
}

TEST(DerivedProfileTest, BadAlgorithmsAndOptionsAreNamed) {
  Result<nlohmann::json> none = derive_profile("nope", nlohmann::json::object());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no algorithm named \"nope\""), std::string::npos);
  Result<nlohmann::json> bad = derive_profile("redisson-lock", {{"profile", "ancient"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--options/profile"), std::string::npos) << bad.status().message();
}

// RedLocks run on 3 masters unless --masters says 5 (or another odd count up to 9); a
// single-master lock refuses it; the lease swarm and the failovers on events are in the profile.
TEST(DerivedProfileTest, RedLocksTakeTheirMastersAndTheSwarmIsThere) {
  for (int masters : {0, 5}) {
    Result<nlohmann::json> p = derive_profile("redlock-spec", nlohmann::json::object(), masters);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p.value()["topology"]["masters"], masters == 0 ? 3 : 5);
    Result<scenario::Scenario> s = scenario::parse_scenario_text(p.value().dump(), "p.json");
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s.value().node_names.size(), masters == 0 ? 3u : 5u);
  }
  EXPECT_NE(derive_profile("redlock-spec", nlohmann::json::object(), 4).status().message().find("odd number"), std::string::npos);
  EXPECT_NE(derive_profile("set-nx-px", nlohmann::json::object(), 5).status().message().find("single-master"), std::string::npos);
  Result<nlohmann::json> p = derive_profile("redisson-lock", nlohmann::json::object());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value()["workload"]["generator"]["lease_swarm"]["lease_ms"], nlohmann::json::array({10000}));
  bool failover_on_events = false;
  for (const nlohmann::json& k : p.value()["faults"]["random"]["kinds"]) {
    failover_on_events |= k["kind"] == "failover" && k.value("on_percent", 0) == 50;
  }
  EXPECT_TRUE(failover_on_events);
}

}  // namespace
}  // namespace lockstep::explore
