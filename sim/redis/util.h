// Number parsing, number formatting and glob matching with Redis 7.0's exact rules.
//
// Redis accepts integers only in canonical form (no sign '+', no leading zeros, no spaces) and
// prints doubles as "%.17g" with "inf"/"-inf"; clients and the lock scripts see these strings, so
// the model must produce and accept exactly the same ones. Everything here is pure and
// allocation-free unless it returns a std::string.
#ifndef LOCKSTEP_SIM_REDIS_UTIL_H_
#define LOCKSTEP_SIM_REDIS_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::redis {

// Parses a 64-bit integer as Redis's string2ll does: optional '-', digits, no leading zeros, no
// '+', no spaces, at most 20 characters. Returns false for anything else or on overflow.
bool parse_int64(std::string_view s, int64_t* out);

// Parses a double as Redis's getDoubleFromObject does (strtod on the whole string; empty strings,
// leading spaces, trailing garbage, NaN and overflow are rejected; "inf" is accepted).
bool parse_double(std::string_view s, double* out);
// Redis's string2ld: strtold over the whole text (no leading space, not empty, not NaN, no
// overflow or underflow to zero), as INCRBYFLOAT and HINCRBYFLOAT read their operands.
bool parse_long_double(std::string_view s, long double* out);
// ld2string(..., LD_STR_HUMAN): "%.17Lf" with trailing zeros (and a trailing point) removed,
// "-0" as "0" — how INCRBYFLOAT and HINCRBYFLOAT write their results. REQUIRES: finite.
std::string format_long_double_human(long double value);

// Formats a double as Redis replies with it in RESP2: "inf", "-inf", otherwise "%.17g".
std::string format_double(double value);
// Writes "%.17g" of `value` into `buf` (at least 32 bytes) and returns the length. This is how
// Redis turns a Lua number argument of redis.call into a string ("inf", "-nan" included).
size_t format_double_g17(double value, char* buf);

// Decimal text of an integer.
std::string int_to_string(int64_t value);
// Writes the decimal text of `value` into `buf` (at least 21 bytes); returns the length.
size_t format_int64(int64_t value, char* buf);

// Redis's glob-style pattern match (stringmatchlen): '*', '?', '[...]' with '^' negation and
// ranges, and '\' escapes. Iterative, so it cannot blow the stack or go exponential.
bool glob_match(std::string_view pattern, std::string_view text, bool nocase = false);

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
inline char ascii_upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
// Lower-cases the ASCII letters of 8 bytes at once (bytes >= 0x80 are left alone).
inline uint64_t ascii_lower8(uint64_t x) {
  const uint64_t high = 0x8080808080808080ull;
  uint64_t low7 = x & ~high;
  uint64_t above_z = low7 + 0x2525252525252525ull;  // sets 0x80 in bytes > 'Z'
  uint64_t from_a = low7 + 0x3F3F3F3F3F3F3F3Full;   // sets 0x80 in bytes >= 'A'
  uint64_t upper = (from_a ^ above_z) & ~x & high;  // 'A'..'Z' and ASCII
  return x | (upper >> 2);
}

// ASCII case-insensitive equality, as Redis's strcasecmp on option names.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_UTIL_H_
