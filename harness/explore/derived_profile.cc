#include "harness/explore/derived_profile.h"

#include <algorithm>

#include "algorithms/algorithm.h"
#include "harness/scenario/parse.h"
#include "runtime/runtime.h"
#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

using nlohmann::json;

json range(int64_t lo, int64_t hi) { return json::array({lo, std::max(lo, hi)}); }


}  // namespace

ProfileTimings profile_timings(const std::string& algorithm, const json& options) {
  ProfileTimings t;
  const runtime::ClientOptions client;
  t.command_timeout_ms = client.timeout_ms;
  // The lease a call without one (lease -1, two of the generator's three choices) gets: the
  // watchdog timeout for Redisson's locks, the same client option for set-nx-px's renewal loop
  // and redlock-spec's extension, setnx-naive's default_lease_ms. A liveness bound below it
  // would report every orphaned key (a lost reply's) as stuck.
  t.lease_ms = client.lock_watchdog_timeout_ms;
  if (algorithm == "setnx-naive") {
    t.renews = false;  // SETNX + EXPIRE once: nothing extends it
    t.lease_ms = options.is_object() && options.contains("default_lease_ms") ? options["default_lease_ms"].get<int64_t>() : 30'000;
  }
  // An algorithm that gives a call without a lease a lease of its own (AlgorithmInfo::
  // default_lease_ms: the ecosystem's locks) keeps it for that lease and no longer, unless it
  // refreshes it (renews_default_lease); with none at all (0) the key never expires, and the
  // timings keep the watchdog's typical 30 s.
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(algorithm);
  if (info != nullptr && info->default_lease_ms) {
    t.renews = info->renews_default_lease && info->renews_default_lease(options.is_object() ? options : json::object());
    const int64_t lease = info->default_lease_ms(options.is_object() ? options : json::object());
    if (lease > 0) t.lease_ms = lease;
  }
  return t;
}

Result<json> derive_profile(const std::string& algorithm, const json& options, int masters) {
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(algorithm);
  if (info == nullptr) {
    std::string known;
    for (const algorithms::AlgorithmInfo& a : algorithms::algorithms()) known += (known.empty() ? "" : ", ") + a.name;
    return Status::error("--algorithm: no algorithm named \"" + algorithm + "\" (expected one of " + known + ")");
  }
  if (!options.is_object()) return Status::error("--options: expected a JSON object of algorithm options");
  if (info->validate) {
    Status s = info->validate(options, "--options");
    if (!s.ok()) return s;
  }
  const ProfileTimings t = profile_timings(algorithm, options);
  const int64_t lease = t.lease_ms, cmd = t.command_timeout_ms;
  // Long enough for a hold to outlive its lease, a pause to outlast it and the lock to come back.
  const int64_t duration_ms = std::max<int64_t>(120'000, 5 * lease);

  json j;
  j["name"] = algorithm + "-derived";
  j["description"] = "Derived from " + algorithm + "'s timings (lease " + std::to_string(lease) + " ms, command timeout " +
                     std::to_string(cmd) + " ms) by lockstep explore --algorithm: see docs/cli.md, \"Profiles derived "
                     "from the algorithm\".";
  j["seed"] = 1;
  j["duration_ms"] = duration_ms;
  j["algorithm"] = {{"name", algorithm}};
  if (!options.empty()) j["algorithm"]["options"] = options;
  if (masters != 0 && !info->multi_master) {
    return Status::error("--masters: " + algorithm + " is a single-master lock (it runs on a master with a replica)");
  }
  if (masters != 0 && (masters < 3 || masters > 9 || masters % 2 == 0)) {
    return Status::error("--masters: expected an odd number of masters from 3 to 9, found " + std::to_string(masters));
  }
  if (info->multi_master) {
    j["topology"] = {{"kind", "independent"}, {"masters", masters == 0 ? 3 : masters}};
  } else {
    j["topology"] = {{"kind", "replicated"},
                     {"replicas", 1},
                     {"replication_lag", {{"kind", "uniform"}, {"min_us", 200}, {"max_us", 20'000}}}};
  }
  j["network"] = {{"latency", {{"kind", "uniform"}, {"min_us", 100}, {"max_us", 2000}}}};
  j["clients"] = {{"count", 4}, {"threads", 2}};

  // Holds from 10 ms to 1.5 leases (half a lease without renewal, below): a watchdog hold (-1)
  // that long lives through several
  // renewals (every third of the lease), so a renewal that times out or is lost matters. An
  // explicit lease is twice the reference, longer than any hold, except in the seeds the lease
  // swarm picks (below).
  json gen;
  gen["ops_per_thread"] = 10;
  gen["locks"] = json::array({"L1", "L2"});
  gen["acquire"] = "mixed";
  gen["wait_ms"] = json::array({0, cmd, lease});
  gen["lease_ms"] = json::array({-1, -1, 2 * lease});
  // Swarm: one seed in ten gives every hold a third of the lease, shorter than most holds (the
  // lease-shorter-than-the-work bug, which fails by itself: on in every seed it would drown the
  // faults' findings).
  gen["lease_swarm"] = {{"percent", 10}, {"lease_ms", json::array({std::max<int64_t>(1, lease / 3)})}};
  // A lock that never renews breaks by itself under any hold past its lease: its holds stay
  // within half the lease (the swarm's L/3 still outlives many), so that a fault's bug is not
  // hidden behind that one in nearly every seed.
  gen["hold_ms"] = range(10, t.renews ? lease * 3 / 2 : lease / 2);
  gen["think_ms"] = range(0, cmd / 10);
  gen["start_ms"] = range(0, cmd);
  if (info->modes) gen["read_percent"] = 50;
  // Writes at the end of the hold: after whatever the hold lived through, so a paused or lapsed
  // holder's write is stale (fenced where the algorithm hands out tokens).
  gen["write"] = {{"resource", "R"}, {"fenced", algorithm == "redisson-fenced-lock"}, {"at", "end"}};
  j["workload"] = {{"generator", gen}};

  // Faults in the first part of the run, so the lock has time to come back after the last one.
  // A third of the pauses, crashes and node clock jumps, and a fifth of the partitions, wait
  // for an event of a client instead (a grant, a script of an acquisition, unlock or renewal):
  // the moments the famous bugs need — a holder paused right after its grant, a node lost
  // between a RedLock's sub-locks, a renewal's reply cut off — which a uniformly drawn time
  // rarely hits.
  json kinds = json::array();
  kinds.push_back({{"kind", "pause"}, {"count", range(0, 2)}, {"duration_ms", range(lease / 4, 2 * lease)}, {"on_percent", 33}});
  kinds.push_back({{"kind", "crash"}, {"count", range(0, 2)}, {"restart_after_ms", range(cmd / 3, lease)}, {"on_percent", 33}});
  // Clock jumps of nodes and of clients are separate kinds: a node's jump (a key expiring
  // early) is the famous one, and a third of them come right after a client's event, while a
  // lock is held. A RedLock needs two to lose a quorum it took whole.
  json nodes = json::array(), clients = json::array();
  {
    json bare = j;
    bare["faults"] = json::object();
    Result<scenario::Scenario> parsed = scenario::parse_scenario_text(bare.dump(), algorithm + "-derived.json");
    LS_ASSERT(parsed.ok());
    for (const std::string& n : parsed.value().node_names) nodes.push_back(n);
    for (const scenario::ClientSpec& c : parsed.value().clients) clients.push_back(c.name);
  }
  kinds.push_back({{"kind", "clock_jump"},
                   {"targets", nodes},
                   {"count", range(0, info->multi_master ? 2 : 1)},
                   {"delta_ms", range(-lease / 2, 2 * lease)},
                   {"on_percent", 33}});
  kinds.push_back({{"kind", "clock_jump"}, {"targets", clients}, {"count", range(0, 1)}, {"delta_ms", range(-lease / 2, 2 * lease)}});
  kinds.push_back({{"kind", "partition"},
                   {"count", range(0, 2)},
                   {"duration_ms", range(cmd / 2, 2 * lease)},
                   {"one_way_percent", 50},
                   {"on_percent", 20}});
  kinds.push_back({{"kind", "drop"}, {"count", range(0, 2)}, {"rate_ppm", range(100'000, 1'000'000)}, {"duration_ms", range(cmd / 3, 3 * cmd)}});
  kinds.push_back({{"kind", "delay"}, {"count", range(0, 2)}, {"extra_ms", range(cmd / 4, 2 * cmd)}, {"duration_ms", range(cmd / 3, 3 * cmd)}});
  kinds.push_back({{"kind", "lose_reply"}, {"count", range(0, 3)}, {"replies", range(1, 2)}});
  kinds.push_back({{"kind", "clock_drift"}, {"count", range(0, 1)}, {"drift_ppm", range(-5000, 5000)}, {"duration_ms", range(cmd, lease)}});
  if (!info->multi_master) {
    // Half of the failovers come right after an event of a client (say, a grant), inside the
    // replication lag: the failover-before-replication bug, which a uniform time rarely hits.
    kinds.push_back({{"kind", "failover"}, {"count", range(0, 1)}, {"on_percent", 50}});
    kinds.push_back({{"kind", "replication_lag"}, {"count", range(0, 1)}, {"extra_ms", range(cmd / 10, cmd)}, {"duration_ms", range(cmd, lease)}});
  }
  j["faults"] = {{"random", {{"window_ms", range(0, duration_ms - 2 * lease)}, {"swarm", true}, {"kinds", kinds}}}};
  // A waiter may wait through a lease that has to run out (a crashed holder's) plus a wait
  // estimate: two leases.
  j["checks"] = {{"liveness_bound_ms", 2 * lease + cmd}};
  j["expect"] = {{"verdict", "ok"}};
  return j;
}

}  // namespace lockstep::explore
