// Benchmark B1: placeholder until it lands (reports itself as not implemented, never a figure).
#include "bench/bench.h"

namespace lockstep::bench {

nlohmann::json run_b1_script(const BenchOptions&) {
  return {{"id", "B1"}, {"status", "not_implemented"}};
}

}  // namespace lockstep::bench
