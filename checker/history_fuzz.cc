// libFuzzer target for the history reader: any bytes must give a History or a clear error,
// never a crash; a parsed history must survive every checker (with a small search budget). The
// reader on two threads must agree with the reader on one: the same error, or the same records
// in brief (their counts; ReaderThreads.* in history_parse_test.cc compares them whole).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "checker/check.h"

namespace {

auto brief(const lockstep::checker::History& h) {
  return std::make_tuple(h.lines, h.complete, h.end_t, h.syms.size(), h.ops.size(), h.holds.size(), h.execs.size(),
                         h.writes.size(), h.expires.size(), h.data_losses.size(), h.states.size(), h.node_events.size(),
                         h.faults.size(), h.key_pool.size(), h.publish_events, h.deliver_events);
}

}  // namespace

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
  if (brief(h.value()) != brief(two.value())) std::abort();
  CheckOptions options;
  options.search_budget = 2000;
  const CheckResult r = check_history(h.value(), options);
  (void)r.to_json().dump();
  return 0;
}
