// libFuzzer target for the history reader: any bytes must give a History or a clear error,
// never a crash; a parsed history must survive every checker (with a small search budget). The
// reader on two threads must agree with the reader on one: the same error, or the same verdicts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "checker/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lockstep::checker;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  lockstep::Result<History> h = parse_history_text(text, "fuzz");
  lockstep::Result<History> two = parse_history_text(text, "fuzz", ReadOptions{.threads = 2});
  if (h.ok() != two.ok()) std::abort();
  if (!h.ok()) {
    if (h.status().message() != two.status().message()) std::abort();
    return 0;
  }
  CheckOptions options;
  options.search_budget = 2000;
  const CheckResult r = check_history(h.value(), options);
  const std::string json = r.to_json().dump();
  if (check_history(two.value(), options).to_json().dump() != json) std::abort();
  return 0;
}
