#include "sim/history/json_text.h"

#include <array>
#include <charconv>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/core/assert.h"

namespace lockstep::history {
namespace {

const char kHex[] = "0123456789abcdef";

// kPlain[c]: byte c is copied as is (printable ASCII other than '"' and '\\'). One table load
// per byte instead of four compares: this loop runs over every string of the history.
constexpr std::array<bool, 256> make_plain_table() {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
  return t;
}
constexpr std::array<bool, 256> kPlain = make_plain_table();

void append_u00(std::string& out, unsigned char c) {
  out += "\\u00";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
size_t utf8_length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0xff >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

namespace {

// Whether no byte of `w` needs escaping (its high bit set, below 0x20, '"' or '\\'). Each test
// is exact for "some byte of the word" (a subtraction's borrow only reaches bytes above one
// that already tests true).
bool word_plain(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const uint64_t quote = w ^ (kOnes * '"');
  const uint64_t backslash = w ^ (kOnes * '\\');
  const uint64_t control = (w - kOnes * 0x20) & ~w;
  const uint64_t zero_quote = (quote - kOnes) & ~quote;
  const uint64_t zero_backslash = (backslash - kOnes) & ~backslash;
  return ((w | control | zero_quote | zero_backslash) & kHigh) == 0;
}

}  // namespace

bool json_plain(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
#if defined(__SSE2__)
  // Sixteen bytes at a time, the last block overlapping the one before it. A byte is plain when
  // it is above 0x1f as a signed byte (which leaves out 0x80-0xff too) and not '"' or '\\'.
  if (n >= 16) {
    const __m128i space = _mm_set1_epi8(0x1f);
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    auto block_plain = [&](const char* at) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      const __m128i escaped = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
      return _mm_movemask_epi8(_mm_andnot_si128(escaped, _mm_cmpgt_epi8(v, space))) == 0xffff;
    };
    for (size_t i = 0; i + 16 < n; i += 16) {
      if (!block_plain(p + i)) return false;
    }
    return block_plain(p + n - 16);
  }
#endif
  // Eight bytes at a time, the last word overlapping the one before it; a string shorter than
  // eight bytes byte by byte.
  uint64_t w = 0;
  if (n < sizeof(w)) {
    for (size_t i = 0; i < n; ++i) {
      if (!kPlain[static_cast<unsigned char>(p[i])]) return false;
    }
    return true;
  }
  for (size_t i = 0; i + sizeof(w) < n; i += sizeof(w)) {
    std::memcpy(&w, p + i, sizeof(w));
    if (!word_plain(w)) return false;
  }
  std::memcpy(&w, p + n - sizeof(w), sizeof(w));
  return word_plain(w);
}

void append_json_string(std::string& out, std::string_view s) {
  // The common case (a short plain string) in one append: the quotes and the text together.
  constexpr size_t kShort = 128;
  if (s.size() <= kShort && json_plain(s)) {
    char quoted[kShort + 2];
    quoted[0] = '"';
    std::memcpy(quoted + 1, s.data(), s.size());
    quoted[s.size() + 1] = '"';
    out.append(quoted, s.size() + 2);
    return;
  }
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run of characters that need no escaping in one append (most strings
    // are plain ASCII: lock names, tokens, commands).
    size_t run = i;
    while (run < s.size() && kPlain[static_cast<unsigned char>(s[run])]) ++run;
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x80) {
      append_u00(out, c);
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      append_u00(out, c);
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  LS_ASSERT(i == s.size());
  out += '"';
}

bool json_read_back(std::string_view s, std::string& out) {
  size_t i = 0;
  // ASCII reads back as itself: eight bytes at a time while no high bit is set.
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  for (uint64_t word = 0; i + sizeof(word) <= s.size(); i += sizeof(word)) {
    std::memcpy(&word, s.data() + i, sizeof(word));
    if ((word & kHighBits) != 0) break;
  }
  while (i < s.size()) {  // ASCII and valid UTF-8 read back as themselves
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n == 0) break;
    i += n;
  }
  if (i == s.size()) return false;
  out.assign(s.data(), i);
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : utf8_length(s, i);
    if (n > 0) {
      out.append(s.data() + i, n);
      i += n;
      continue;
    }
    out += static_cast<char>(0xc0 | (c >> 6));  // U+0080..U+00FF in two bytes
    out += static_cast<char>(0x80 | (c & 0x3f));
    ++i;
  }
  return true;
}

void append_json_int(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  LS_ASSERT(ec == std::errc());
  out.append(buf, end);
}

}  // namespace lockstep::history
