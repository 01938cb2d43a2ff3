// Benchmark B5: placeholder until it lands (reports itself as not implemented, never a figure).
#include "bench/bench.h"

namespace lockstep::bench {

nlohmann::json run_b5_memory(const BenchOptions&) {
  return {{"id", "B5"}, {"status", "not_implemented"}};
}

}  // namespace lockstep::bench
