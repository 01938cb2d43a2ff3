#include "runtime/coverage_point.h"

#include <string_view>

#include "sim/core/assert.h"

namespace lockstep::runtime::coverage {
namespace {

constexpr CoveragePoint kAll[] = {
    {kBusyNoWait, "a try-lock without waiting found the lock taken"},
    {kWaitForUnlock, "an acquisition found the lock taken and waits for it"},
    {kWokenByMessage, "a waiter was woken by the unlock message"},
    {kWokenByTtl, "a waiter's wait ended at the lock's TTL with no message"},
    {kRetrySleep, "an acquisition found the lock taken and sleeps before retrying"},
    {kWaitTimeRanOut, "a try-lock's wait time ran out"},
    {kSubscribeFailed, "the subscription to the unlock channel was not confirmed"},
    {kNotSynced, "a grant not confirmed by the replicas was undone"},
    {kInterruptedInFlight, "an interrupt or cancel landed while a lock command was in flight"},
    {kQuorumReached, "a quorum of masters granted the lock"},
    {kQuorumShort, "too few masters granted the lock: the round was undone"},
    {kValidityNotPositive, "a quorum granted the lock but its validity was used up"},
    {kSubLockUnknown, "a master's answer to an acquisition never came"},
    {kRedlockWaitRanOut, "a RedLock attempt's wait time ran out before a quorum"},
    {kRenewed, "a renewal extended the lease"},
    {kRenewalLost, "a renewal found the lock gone: the client knows its hold is lost"},
    {kRenewalError, "a renewal failed (error or no reply)"},
    {kReleased, "an unlock released the lock"},
    {kCountDecremented, "an unlock lowered a reentrant hold count"},
    {kUnlockNotHeld, "an unlock found the lock not held by this thread"},
    {kCommandResent, "a command was re-sent after a timeout"},
    {kCommandTimedOut, "a command got no reply after its last attempt"},
};

const CoveragePoint& find(std::string_view name) {
  for (const CoveragePoint& p : kAll) {
    if (p.name == name) return p;
  }
  LS_ASSERT(false && "undeclared coverage point");
  return kAll[0];
}

}  // namespace

bool known(std::string_view name) {
  for (const CoveragePoint& p : kAll) {
    if (p.name == name) return true;
  }
  return false;
}

std::vector<CoveragePoint> declare(const std::vector<std::string>& names) {
  std::vector<CoveragePoint> out;
  for (const std::string& n : names) {
    if (n != kCommandResent && n != kCommandTimedOut) out.push_back(find(n));
  }
  out.push_back(find(kCommandResent));
  out.push_back(find(kCommandTimedOut));
  return out;
}

std::vector<CoveragePoint> declare(std::initializer_list<const char*> names) {
  std::vector<CoveragePoint> out;
  for (const char* n : names) out.push_back(find(n));
  out.push_back(find(kCommandResent));
  out.push_back(find(kCommandTimedOut));
  return out;
}

}  // namespace lockstep::runtime::coverage
