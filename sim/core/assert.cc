#include "sim/core/assert.h"

#include <cstdio>
#include <cstdlib>

namespace lockstep {

void assert_fail(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "lockstep: assertion failed: %s at %s:%d\n", condition, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace lockstep
