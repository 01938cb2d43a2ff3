// Helpers every benchmark shares: the median of repeated figures and a description of the
// machine the figures were taken on (reported beside them, since the machines are small and
// shared).
#ifndef LOCKSTEP_BENCH_BENCH_UTIL_H_
#define LOCKSTEP_BENCH_BENCH_UTIL_H_

#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep::bench {

// The median of `v` (the mean of the middle two for an even count).
// REQUIRES: !v.empty().
double median(std::vector<double> v);

// {"cores": N, "cpu": "<model name>", "load_average_1min": x} from /proc; "unknown" / -1 where
// unreadable.
nlohmann::json machine();

}  // namespace lockstep::bench

#endif  // LOCKSTEP_BENCH_BENCH_UTIL_H_
