// Benchmark B2: placeholder until it lands (reports itself as not implemented, never a figure).
#include "bench/bench.h"

namespace lockstep::bench {

nlohmann::json run_b2_sim(const BenchOptions&) {
  return {{"id", "B2"}, {"status", "not_implemented"}};
}

}  // namespace lockstep::bench
