// Benchmark B3: placeholder until it lands (reports itself as not implemented, never a figure).
#include "bench/bench.h"

namespace lockstep::bench {

nlohmann::json run_b3_check(const BenchOptions&) {
  return {{"id", "B3"}, {"status", "not_implemented"}};
}

}  // namespace lockstep::bench
