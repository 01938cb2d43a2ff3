// Seed 001's MONITOR trace, reproduced: thread A takes "my_first_lock_name" with
// tryLock(600000, 600000), thread B of the same client tries, subscribes, tries again and
// blocks; A unlocks (publishing 0), B is woken, takes the lock and unsubscribes; B unlocks.
// Every command the node received and every redis.call each script made is compared, in order,
// with the seed's trace (thread ids 0 and 1 here for the seed's 1 and 26).
#include <gtest/gtest.h>

#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/redisson/scripts.h"
#include "algorithms/testing/sim_world.h"

namespace lockstep::algorithms::redisson {
namespace {

using testing::SimWorld;
namespace t = testing;

constexpr int64_t kSec = 1'000'000;

TEST(Seed001TraceTest, TheScriptsRunTheCommandsOfTheSeedsMonitorTrace) {
  SimWorld::Options o;
  o.algorithm = "redisson-lock";
  o.threads_per_client = 2;
  o.trace = true;
  SimWorld w(o);
  const std::string lock = "my_first_lock_name";
  w.program(0, 0, 1000, {t::try_lock(lock, 600'000, 600'000), t::sleep(2000), t::unlock(lock)});
  w.program(0, 1, 500'000, {t::try_lock(lock, 600'000, 600'000), t::sleep(1000), t::unlock(lock)});
  w.run_until(10 * kSec);

  const std::string a = w.owner(0, 0), b = w.owner(0, 1);
  const std::string acquire = "EVAL " + scripts::rlock_acquire().sha1 + " 1 " + lock + " 600000 ";
  const std::string release = "EVAL " + scripts::rlock_unlock().sha1 + " 2 " + lock +
                              " redisson_lock__channel:{" + lock + "} 0 30000 ";
  const std::vector<std::string> expected = {
      // Thread A, 1.1.1: tries the lock -> acquired.
      acquire + a, "lua exists " + lock, "lua hset " + lock + " " + a + " 1",
      "lua pexpire " + lock + " 600000",
      // Thread B, 2.1.1: tries -> taken, returns the remaining TTL.
      acquire + b, "lua exists " + lock, "lua hexists " + lock + " " + b, "lua pttl " + lock,
      // 2.1.1.3: subscribes (not a script).
      "SUBSCRIBE redisson_lock__channel:{" + lock + "}",
      // 2.1.1.4: tries again -> still taken.
      acquire + b, "lua exists " + lock, "lua hexists " + lock + " " + b, "lua pttl " + lock,
      // Thread A, 3.1.1: releases and broadcasts the unlock message 0.
      release + a, "lua exists " + lock, "lua hexists " + lock + " " + a,
      "lua hincrby " + lock + " " + a + " -1", "lua del " + lock,
      "lua publish redisson_lock__channel:{" + lock + "} 0",
      // Thread B, 4.1.1.1: woken by the message, tries -> acquired.
      acquire + b, "lua exists " + lock, "lua hset " + lock + " " + b + " 1",
      "lua pexpire " + lock + " 600000",
      // 4.1.1.3: unsubscribes.
      "UNSUBSCRIBE redisson_lock__channel:{" + lock + "}",
      // Thread B, 5.1.1: releases and broadcasts.
      release + b, "lua exists " + lock, "lua hexists " + lock + " " + b,
      "lua hincrby " + lock + " " + b + " -1", "lua del " + lock,
      "lua publish redisson_lock__channel:{" + lock + "} 0"};
  EXPECT_EQ(w.trace(), expected);
}

}  // namespace
}  // namespace lockstep::algorithms::redisson
