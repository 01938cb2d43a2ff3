#include "harness/explore/bug_class.h"

#include <algorithm>
#include <optional>
#include <set>

#include "sim/core/fault_kind.h"

namespace lockstep::explore {

std::string bug_class(const scenario::Scenario& s, const nlohmann::json& faults, const Cause& cause) {
  if (cause.property == "fencing") return "stale-write";
  if (cause.algorithm_itself) {
    return cause.property == "mutual_exclusion" || cause.property == "linearizability"
               ? "lease-shorter-than-work"
               : "algorithm-itself:" + cause.property;
  }
  if (cause.cause.empty() || !cause.sufficient) return "unproven";
  const bool redlock = s.algorithm == "redisson-redlock" || s.algorithm == "redlock-spec";
  const bool fair = s.algorithm == "redisson-fair-lock";
  auto is_node = [&](const std::string& target) {
    return std::find(s.node_names.begin(), s.node_names.end(), target) != s.node_names.end();
  };
  std::set<std::string> classes;
  for (int64_t id : cause.cause) {
    for (const nlohmann::json& f : faults) {
      if (f.value("fault", int64_t{-1}) != id) continue;
      const std::string name = f.value("kind", "");
      const std::string target = f.contains("target") && f["target"].is_string() ? f["target"].get<std::string>() : "";
      const bool node = is_node(target);
      const std::optional<FaultKind> kind = parse_fault_kind(name);
      if (!kind.has_value()) {
        classes.insert(name);
        continue;
      }
      switch (*kind) {
        case FaultKind::kFailover:
          classes.insert("failover-before-replication");
          break;
        case FaultKind::kCrash:
        case FaultKind::kRestart:
          if (node) {
            classes.insert(redlock ? "redlock-restart" : "restart-without-persistence");
          } else {
            classes.insert(fair && (cause.property == "liveness" || cause.property == "fairness") ? "fair-dead-waiter"
                                                                                                : "client-crash");
          }
          break;
        case FaultKind::kPause:
          classes.insert(node ? "node-pause" : redlock ? "redlock-gc-pause" : "holder-pause");
          break;
        case FaultKind::kClockJump:
        case FaultKind::kClockDrift:
        case FaultKind::kClockOffset:
          classes.insert(node ? "node-clock" : "client-clock");
          break;
        case FaultKind::kLoseReply:
          classes.insert("lost-reply");
          break;
        case FaultKind::kDrop:
        case FaultKind::kDelay:
        case FaultKind::kPartition:
          classes.insert("network");
          break;
        case FaultKind::kReplicationLag:
          classes.insert("replication-lag");
          break;
        case FaultKind::kInterrupt:
        case FaultKind::kCancel:
          classes.insert(name);
          break;
      }
    }
  }
  std::string out;
  for (const std::string& c : classes) out += (out.empty() ? "" : "+") + c;
  return out.empty() ? "unproven" : out;
}

}  // namespace lockstep::explore
