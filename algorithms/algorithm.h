// AlgorithmInfo: what the registry knows of one lock algorithm (its name, lock kind, options,
// scripts, coverage points, and how to make its client), and the registry itself.
//
// Algorithms are written in the runtime's vocabulary (runtime/: Task, Runtime, LockClient, ...),
// which this header brings into lockstep::algorithms for every algorithm that includes it.
// Registering one is a line of CMake in its folder (algorithms/CMakeLists.txt,
// lockstep_add_algorithms); the registry's list is generated from those lines.
#ifndef LOCKSTEP_ALGORITHMS_ALGORITHM_H_
#define LOCKSTEP_ALGORITHMS_ALGORITHM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/coverage_point.h"
#include "runtime/lock_client.h"
#include "runtime/runtime.h"
#include "sim/core/status.h"

namespace lockstep::algorithms {

using namespace ::lockstep::runtime;  // NOLINT(build/namespaces): see the header comment

// A registered algorithm.
struct AlgorithmInfo {
  std::string name;         // as scenarios spell it: "set-nx-px", "redisson-lock", ...
  std::string lock_kind;    // the history header's lock_kind: reentrant, rwlock, simple, redlock
  std::string description;  // one line for `lockstep list`
  bool fair = false;        // grants must follow enqueue order (history header `fair`)
  bool modes = false;       // supports read/write modes (read-write lock)
  bool multi_master = false;  // needs N independent masters (RedLock)
  bool lock_objects = false;  // its lock objects carry state: scenario steps may name them
  bool interrupts = false;    // its flows react to Thread.interrupt() and Future.cancel()
  // Checks the scenario's `algorithm.options` object. Errors name the JSON path, built from
  // `path` ("/algorithm/options"), what was expected and what was found.
  std::function<Status(const nlohmann::json& options, const std::string& path)> validate;
  // Documented options with their defaults (for `lockstep list` and the docs).
  nlohmann::json option_defaults;
  // Optional: extra history-header fields this algorithm's runs need (e.g. the fair lock's
  // {"thread_wait_ms": 5000} with its profile's default resolved). REQUIRES: validated options.
  std::function<nlohmann::json(const nlohmann::json& options)> history_header;
  // Optional: the lease an acquisition without one gets (REQUIRES: validated options). Empty: such
  // an acquisition has no lease of its own and the algorithm keeps it with a watchdog of the
  // client's lock_watchdog_timeout_ms, as Redisson does, and the history says so. Set: the
  // workload asks for this lease instead, and the history records it as the acquisition's lease;
  // 0 is no lease at all (the key never expires by itself; the history says "lease_ms": null).
  std::function<int64_t(const nlohmann::json& options)> default_lease_ms;
  // With default_lease_ms: whether the client, with these (validated) options, keeps renewing that
  // lease while it holds (a refresh timer, as redis-semaphore's Mutex has), so a hold may outlast
  // it (derived profiles, harness/explore). Unset: it never does.
  std::function<bool(const nlohmann::json& options)> renews_default_lease;
  // Coverage (docs/coverage.md): the Lua scripts a client with these (validated) options may
  // send, and the client-side states its clients report with Runtime::cover.
  std::function<std::vector<const Script*>(const nlohmann::json& options)> scripts;
  std::vector<CoveragePoint> coverage_points;
  // Builds the client for one client process. REQUIRES: validate(options) succeeded.
  std::function<std::unique_ptr<LockClient>(Runtime& runtime, const nlohmann::json& options)> make;
};

// All registered algorithms, in name order.
const std::vector<AlgorithmInfo>& algorithms();
// nullptr when no algorithm has that name.
const AlgorithmInfo* find_algorithm(std::string_view name);

// Helpers for validate(): an options object whose keys are all in `allowed`, and typed fields.
Status check_known_fields(const nlohmann::json& options, const std::string& path,
                          const std::vector<std::string>& allowed);
Status check_int_field(const nlohmann::json& options, const std::string& path,
                       const std::string& field, int64_t min, int64_t max);
Status check_bool_field(const nlohmann::json& options, const std::string& path,
                        const std::string& field);
Status check_string_field(const nlohmann::json& options, const std::string& path,
                          const std::string& field, const std::vector<std::string>& allowed);

}  // namespace lockstep::algorithms

#endif  // LOCKSTEP_ALGORITHMS_ALGORITHM_H_
