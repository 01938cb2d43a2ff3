// libFuzzer target: the RESP request parser (sim/resp/request_parser.h) on arbitrary bytes.
//
// Beyond "no crash, no sanitizer report", two properties are checked on every input:
// - the outcome (requests, then at most one error) does not depend on how the bytes are split:
//   the input is parsed whole and again in pieces whose sizes come from the input itself
//   (with LineLimit::kStrict; Redis's own line limit depends on splits by design);
// - memory stays within the limits: small limits are set so the fuzzer can reach them, and the
//   buffered bytes never exceed the query limit plus one read.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/resp/request_parser.h"

namespace {

using lockstep::resp::ParseStatus;
using lockstep::resp::RequestLimits;
using lockstep::resp::RequestParser;

RequestLimits small_limits() {
  RequestLimits l;
  l.max_line_bytes = 64;
  l.max_bulk_bytes = 512;
  l.max_multibulk_count = 16;
  l.max_query_bytes = 2048;
  l.line_limit = lockstep::resp::LineLimit::kStrict;  // split-independent by definition
  return l;
}

// Feeds `data` in pieces of the given sizes (cycled) and records every outcome.
std::vector<std::string> transcript(const std::string& data, const std::vector<size_t>& pieces) {
  RequestParser parser(small_limits());
  std::vector<std::string> out;
  size_t at = 0;
  size_t i = 0;
  while (at < data.size()) {
    const size_t n = pieces.empty() ? data.size() : std::max<size_t>(1, pieces[i++ % pieces.size()]);
    const size_t take = std::min(n, data.size() - at);
    parser.feed(std::string_view(data).substr(at, take));
    at += take;
    if (parser.buffered_bytes() > parser.limits().max_query_bytes + take) std::abort();
    for (;;) {
      const ParseStatus s = parser.next();
      if (s == ParseStatus::kNeedMore) break;
      if (s == ParseStatus::kProtocolError) return out.push_back("E" + parser.error()), out;
      if (s == ParseStatus::kQueryLimit) return out.push_back("L"), out;
      if (parser.argv().empty()) std::abort();
      std::string r = "R";
      for (const std::string& a : parser.argv()) r += std::to_string(a.size()) + ":" + a;
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte chooses the split pattern; the rest is the byte stream.
  const size_t step = 1 + data[0] % 7;
  const std::string stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<size_t> pieces;
  for (size_t i = 0; i < stream.size() && pieces.size() < 16; i += step) {
    pieces.push_back(1 + static_cast<uint8_t>(stream[i]) % 13);
  }
  if (transcript(stream, {}) != transcript(stream, pieces)) std::abort();
  return 0;
}
