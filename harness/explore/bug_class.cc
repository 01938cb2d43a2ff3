#include "harness/explore/bug_class.h"

#include <algorithm>
#include <set>

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
      const std::string kind = f.value("kind", "");
      const std::string target = f.contains("target") && f["target"].is_string() ? f["target"].get<std::string>() : "";
      const bool node = is_node(target);
      if (kind == "failover") {
        classes.insert("failover-before-replication");
      } else if (kind == "crash" || kind == "restart") {
        if (node) {
          classes.insert(redlock ? "redlock-restart" : "restart-without-persistence");
        } else {
          classes.insert(fair && (cause.property == "liveness" || cause.property == "fairness") ? "fair-dead-waiter"
                                                                                              : "client-crash");
        }
      } else if (kind == "pause") {
        classes.insert(node ? "node-pause" : redlock ? "redlock-gc-pause" : "holder-pause");
      } else if (kind == "clock_jump" || kind == "clock_drift" || kind == "clock_offset") {
        classes.insert(node ? "node-clock" : "client-clock");
      } else if (kind == "lose_reply") {
        classes.insert("lost-reply");
      } else if (kind == "drop" || kind == "delay" || kind == "partition") {
        classes.insert("network");
      } else if (kind == "replication_lag") {
        classes.insert("replication-lag");
      } else {
        classes.insert(kind);
      }
    }
  }
  std::string out;
  for (const std::string& c : classes) out += (out.empty() ? "" : "+") + c;
  return out.empty() ? "unproven" : out;
}

}  // namespace lockstep::explore
