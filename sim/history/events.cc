#include "sim/history/events.h"

namespace lockstep::history {

std::string_view to_string(LockMode m) {
  switch (m) {
    case LockMode::kExclusive: return "exclusive";
    case LockMode::kRead: return "read";
    case LockMode::kWrite: return "write";
  }
  return "exclusive";
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::kLock: return "lock";
    case OpKind::kTryLock: return "try_lock";
    case OpKind::kUnlock: return "unlock";
    case OpKind::kForceUnlock: return "force_unlock";
    case OpKind::kRenew: return "renew";
  }
  return "lock";
}

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kFail: return "fail";
    case Outcome::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(HoldEnd r) {
  switch (r) {
    case HoldEnd::kUnlock: return "unlock";
    case HoldEnd::kCrash: return "crash";
    case HoldEnd::kLost: return "lost";
    case HoldEnd::kEnd: return "end";
  }
  return "end";
}

}  // namespace lockstep::history
