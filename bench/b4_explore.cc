// Benchmark B4: placeholder until it lands (reports itself as not implemented, never a figure).
#include "bench/bench.h"

namespace lockstep::bench {

nlohmann::json run_b4_explore(const BenchOptions&) {
  return {{"id", "B4"}, {"status", "not_implemented"}};
}

}  // namespace lockstep::bench
