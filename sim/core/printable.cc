#include "sim/core/printable.h"

#include <cstdint>

namespace lockstep {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence starting at text[i], or 0 when the byte there does not
// start one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
size_t sequence_length(std::string_view text, size_t i) {
  const uint8_t b = static_cast<uint8_t>(text[i]);
  if (b < 0x80) return 1;
  size_t n = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;  // overlong
    if (b == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;  // overlong
    if (b == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  const uint8_t second = static_cast<uint8_t>(text[i + 1]);
  if (second < lo || second > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (!is_continuation(static_cast<uint8_t>(text[i + k]))) return 0;
  }
  return n;
}

bool is_control(std::string_view text, size_t i, size_t len) {
  const uint8_t b = static_cast<uint8_t>(text[i]);
  if (len == 1) return b < 0x20 || b == 0x7F;
  return len == 2 && b == 0xC2 && static_cast<uint8_t>(text[i + 1]) <= 0x9F;  // U+0080-U+009F
}

void escape(uint8_t b, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

std::string escape_text(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t len = sequence_length(text, i);
    if (len == 0) {
      escape(static_cast<uint8_t>(text[i]), out);
      ++i;
      continue;
    }
    if (is_control(text, i, len) && !(keep_newlines && text[i] == '\n')) {
      for (size_t k = 0; k < len; ++k) escape(static_cast<uint8_t>(text[i + k]), out);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escape_text(text, false); }

std::string printable_lines(std::string_view text) { return escape_text(text, true); }

bool is_printable(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = sequence_length(text, i);
    if (len == 0 || is_control(text, i, len)) return false;
    i += len;
  }
  return true;
}

size_t find_control_character(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = sequence_length(text, i);
    if (len != 0 && is_control(text, i, len)) return i;
    i += len == 0 ? 1 : len;
  }
  return std::string_view::npos;
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./:=+,@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace lockstep
