// Helpers every benchmark shares: the median of repeated figures and a description of the
// machine the figures were taken on (reported beside them, since the machines are small and
// shared).
#ifndef LOCKSTEP_BENCH_BENCH_UTIL_H_
#define LOCKSTEP_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep::bench {

// The median of `v` (the mean of the middle two for an even count).
// REQUIRES: !v.empty().
double median(std::vector<double> v);

// {"cores": N, "cpu": "<model name>", "load_average_1min": x} from /proc; "unknown" / -1 where
// unreadable.
nlohmann::json machine();

// A field of /proc/self/status ("VmRSS", "VmHWM") in bytes; 0 if unavailable.
int64_t proc_status_bytes(const std::string& field);

// Runs `measure` in a forked child and returns what it returned, so that a peak RSS (VmHWM) is
// the measurement's own; {"status": "error", ...} if the child fails. A bare fork, not
// explore::run_tasks: a pool worker starts with ~1.7 MB more resident, which B5's baseline
// would absorb (it measured 170 bytes per client less that way).
nlohmann::json run_in_child(const std::function<nlohmann::json()>& measure);

}  // namespace lockstep::bench

#endif  // LOCKSTEP_BENCH_BENCH_UTIL_H_
