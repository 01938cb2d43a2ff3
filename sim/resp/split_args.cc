#include "sim/resp/split_args.h"

#include "sim/core/assert.h"

namespace lockstep::resp {
namespace {

// C's isspace() in the "C" locale, which is what Redis uses to skip blanks.
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// The line seen as a NUL-terminated C string: reading past the end yields '\0'.
struct Cursor {
  std::string_view line;
  size_t i = 0;
  char at(size_t offset = 0) const { return i + offset < line.size() ? line[i + offset] : '\0'; }
};

// One step inside "double quotes". Returns false on unbalanced quotes; sets `done` at the close.
bool step_double_quoted(Cursor& c, std::string& token, bool& done) {
  if (c.at() == '\\' && c.at(1) == 'x' && is_hex(c.at(2)) && is_hex(c.at(3))) {
    token.push_back(static_cast<char>(hex_value(c.at(2)) * 16 + hex_value(c.at(3))));
    c.i += 3;
  } else if (c.at() == '\\' && c.at(1) != '\0') {
    c.i++;
    switch (c.at()) {
      case 'n': token.push_back('\n'); break;
      case 'r': token.push_back('\r'); break;
      case 't': token.push_back('\t'); break;
      case 'b': token.push_back('\b'); break;
      case 'a': token.push_back('\a'); break;
      default: token.push_back(c.at()); break;
    }
  } else if (c.at() == '"') {
    // A closing quote must be followed by a space or the end of the line.
    if (c.at(1) != '\0' && !is_space(c.at(1))) return false;
    done = true;
  } else if (c.at() == '\0') {
    return false;
  } else {
    token.push_back(c.at());
  }
  return true;
}

// One step inside 'single quotes'. Returns false on unbalanced quotes; sets `done` at the close.
bool step_single_quoted(Cursor& c, std::string& token, bool& done) {
  if (c.at() == '\\' && c.at(1) == '\'') {
    c.i++;
    token.push_back('\'');
  } else if (c.at() == '\'') {
    if (c.at(1) != '\0' && !is_space(c.at(1))) return false;
    done = true;
  } else if (c.at() == '\0') {
    return false;
  } else {
    token.push_back(c.at());
  }
  return true;
}

// Reads one token starting at a non-blank character. Returns false on unbalanced quotes.
bool read_token(Cursor& c, std::string& token) {
  bool in_double = false;
  bool in_single = false;
  bool done = false;
  const size_t start = c.i;
  while (!done) {
    LS_ASSERT(c.i <= c.line.size());
    if (in_double) {
      if (!step_double_quoted(c, token, done)) return false;
    } else if (in_single) {
      if (!step_single_quoted(c, token, done)) return false;
    } else {
      switch (c.at()) {
        case ' ': case '\n': case '\r': case '\t': case '\0': done = true; break;
        case '"': in_double = true; break;
        case '\'': in_single = true; break;
        default: token.push_back(c.at()); break;
      }
    }
    if (c.at() != '\0') c.i++;
  }
  LS_ASSERT(c.i > start || c.at() == '\0');
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> split_inline_args(std::string_view line) {
  const size_t nul = line.find('\0');
  if (nul != std::string_view::npos) line = line.substr(0, nul);
  Cursor c{line, 0};
  std::vector<std::string> args;
  // Every iteration consumes at least one byte, so the loop is bounded by the line length.
  while (true) {
    while (c.at() != '\0' && is_space(c.at())) c.i++;
    if (c.at() == '\0') return args;
    std::string token;
    if (!read_token(c, token)) return std::nullopt;
    args.push_back(std::move(token));
    LS_ASSERT(args.size() <= line.size());
  }
}

std::string quote_inline_arg(std::string_view arg) {
  std::string out = "\"";
  static const char kHex[] = "0123456789abcdef";
  for (char ch : arg) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace lockstep::resp
