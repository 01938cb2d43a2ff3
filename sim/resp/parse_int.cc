#include "sim/resp/parse_int.h"

#include <limits>

#include "sim/core/assert.h"

namespace lockstep::resp {
namespace {

// Redis's LONG_STR_SIZE: a length field of 21 characters or more is never a number.
constexpr size_t kMaxIntChars = 21;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<int64_t> redis_string_to_int64(std::string_view text) {
  if (text.empty() || text.size() >= kMaxIntChars) return std::nullopt;
  if (text == "0") return 0;
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative) i++;
  // The first digit must be 1-9: "-0", "01" and "-" alone are refused, as in Redis.
  if (i == text.size() || text[i] < '1' || text[i] > '9') return std::nullopt;
  uint64_t magnitude = 0;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (; i < text.size(); i++) {
    if (!is_digit(text[i])) return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (magnitude > kMax / 10) return std::nullopt;
    magnitude *= 10;
    if (magnitude > kMax - digit) return std::nullopt;
    magnitude += digit;
  }
  LS_ASSERT(magnitude > 0);
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMaxPositive + 1) return std::nullopt;
    // Two's complement negation through unsigned arithmetic avoids overflow at INT64_MIN.
    return static_cast<int64_t>(0 - magnitude);
  }
  if (magnitude > kMaxPositive) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

}  // namespace lockstep::resp
