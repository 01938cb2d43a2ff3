// libFuzzer target for the scenario parser: any bytes either parse into a Scenario or give an
// error naming the file; never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "harness/scenario/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lockstep::Result<lockstep::scenario::Scenario> r =
      lockstep::scenario::parse_scenario_text(text, "fuzz.json");
  if (!r.ok() && r.status().message().rfind("fuzz.json: ", 0) != 0) std::abort();
  return 0;
}
