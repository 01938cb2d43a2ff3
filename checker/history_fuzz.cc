// libFuzzer target for the history reader: any bytes must give a History or a clear error,
// never a crash; a parsed history must survive every checker (with a small search budget).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checker/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lockstep::checker;
  lockstep::Result<History> h = parse_history_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!h.ok()) return 0;
  CheckOptions options;
  options.search_budget = 2000;
  const CheckResult r = check_history(h.value(), options);
  (void)r.to_json().dump();
  return 0;
}
