#include "sim/redis/util.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/core/assert.h"

namespace lockstep::redis {

bool parse_int64(std::string_view s, int64_t* out) {
  LS_ASSERT(out != nullptr);
  // Redis refuses anything longer than the longest int64 text ("-9223372036854775808").
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) return false;
  }
  // The first digit must be 1-9: "007", "-0" and "+1" are not canonical integers.
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  // Up to 19 digits cannot overflow 64 bits; the range check below catches int64 overflow.
  if (s.size() - i > 19) return false;
  for (; i < s.size(); i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

bool parse_double(std::string_view s, double* out) {
  LS_ASSERT(out != nullptr);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  // strtod needs a NUL-terminated string; a stack buffer covers every sane number.
  char stack_buf[128];
  std::vector<char> heap_buf;
  char* buf = stack_buf;
  if (s.size() >= sizeof(stack_buf)) {
    heap_buf.resize(s.size() + 1);
    buf = heap_buf.data();
  }
  s.copy(buf, s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(buf, &end);
  if (static_cast<size_t>(end - buf) != s.size()) return false;
  if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL || value == 0.0)) return false;
  if (std::isnan(value)) return false;
  *out = value;
  return true;
}

size_t format_double_g17(double value, char* buf) {
  LS_ASSERT(buf != nullptr);
  // Fast path for integral values that "%.17g" prints as plain digits (|v| < 1e17; -0 excluded
  // because it prints as "-0").
  if (value == std::floor(value) && std::fabs(value) < 1e15 && !(value == 0 && std::signbit(value))) {
    return format_int64(static_cast<int64_t>(value), buf);
  }
  int n = std::snprintf(buf, 32, "%.17g", value);
  LS_ASSERT(n > 0 && n < 32);
  return static_cast<size_t>(n);
}

std::string format_double(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[32];
  size_t n = format_double_g17(value, buf);
  return std::string(buf, n);
}

bool parse_long_double(std::string_view s, long double* out) {
  constexpr size_t kMaxChars = 5 * 1024;  // MAX_LONG_DOUBLE_CHARS
  if (s.empty() || s.size() >= kMaxChars) return false;
  const std::string buf(s);  // NUL-terminated for strtold
  if (std::isspace(static_cast<unsigned char>(buf[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(buf.c_str(), &end);
  if (*end != '\0' || std::isnan(v)) return false;
  if (errno == ERANGE && (std::isinf(v) || std::fpclassify(v) == FP_ZERO)) return false;
  *out = v;
  return true;
}

std::string format_long_double_human(long double value) {
  LS_ASSERT(std::isfinite(value));
  char buf[5 * 1024];
  int n = std::snprintf(buf, sizeof buf, "%.17Lf", value);
  LS_ASSERT(n > 0 && static_cast<size_t>(n) < sizeof buf);
  std::string out(buf, static_cast<size_t>(n));
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  if (out == "-0") out = "0";
  return out;
}

size_t format_int64(int64_t value, char* buf) {
  LS_ASSERT(buf != nullptr);
  auto [end, ec] = std::to_chars(buf, buf + 21, value);
  LS_ASSERT(ec == std::errc());
  return static_cast<size_t>(end - buf);
}

std::string int_to_string(int64_t value) {
  char buf[21];
  return std::string(buf, format_int64(value, buf));
}

namespace {

// Redis compares pattern and text bytes as (signed) chars; ranges use the same ordering.
int char_at(std::string_view s, size_t i) {
  return i < s.size() ? static_cast<int>(static_cast<signed char>(s[i])) : 0;
}

int fold(int c, bool nocase) { return nocase && c >= 'A' && c <= 'Z' ? c + 32 : c; }

// Matches one bracket class starting just after '[' at `p` against `c`. Sets *next to the pattern
// index after the class. Mirrors stringmatchlen: an unterminated class runs to the end of the
// pattern, "\x" escapes x, "a-z" is a range (reversed ranges are swapped).
bool match_class(std::string_view pat, size_t p, int c, bool nocase, size_t* next) {
  const size_t n = pat.size();
  bool negate = p < n && pat[p] == '^';
  if (negate) p++;
  bool match = false;
  for (size_t guard = 0; guard <= n + 1; guard++) {
    if (p < n && pat[p] == '\\' && n - p >= 2) {
      p++;
      if (char_at(pat, p) == c) match = true;
    } else if (p < n && pat[p] == ']') {
      break;
    } else if (p >= n) {
      p = n - 1;  // the class ends with the pattern: *next below becomes n
      break;
    } else if (n - p >= 3 && pat[p + 1] == '-') {
      int start = char_at(pat, p), end = char_at(pat, p + 2);
      if (start > end) std::swap(start, end);
      int cc = c;
      if (nocase) {
        start = fold(start, true);
        end = fold(end, true);
        cc = fold(cc, true);
      }
      p += 2;
      if (cc >= start && cc <= end) match = true;
    } else if (fold(char_at(pat, p), nocase) == fold(c, nocase)) {
      match = true;
    }
    p++;
  }
  *next = p + 1;
  return negate ? !match : match;
}

// Matches the single-character element at pattern index p (not '*') against c.
bool match_element(std::string_view pat, size_t p, int c, bool nocase, size_t* next) {
  char pc = pat[p];
  if (pc == '?') {
    *next = p + 1;
    return true;
  }
  if (pc == '[') return match_class(pat, p + 1, c, nocase, next);
  if (pc == '\\' && pat.size() - p >= 2) p++;
  *next = p + 1;
  return fold(char_at(pat, p), nocase) == fold(c, nocase);
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text, bool nocase) {
  // Redis's matcher never enters its loop for an empty text: only an empty pattern matches it.
  if (text.empty()) return pattern.empty();
  const size_t none = static_cast<size_t>(-1);
  size_t p = 0, s = 0, star_p = none, star_s = 0;
  // Each backtrack advances star_s, so the loop is bounded by |text| * (|pattern| + 1).
  while (s < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*') p++;
      if (p == pattern.size()) return true;
      star_p = p;
      star_s = s;
      continue;
    }
    size_t next = 0;
    if (p < pattern.size() && match_element(pattern, p, char_at(text, s), nocase, &next)) {
      p = next;
      s++;
      continue;
    }
    if (star_p == none) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < pattern.size() && pattern[p] == '*') p++;
  return p >= pattern.size();
}

}  // namespace lockstep::redis
