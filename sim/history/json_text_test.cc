#include "sim/history/json_text.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>

namespace lockstep::history {
namespace {

std::string as_json(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonTextTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(as_json("plain"), "\"plain\"");
  EXPECT_EQ(as_json("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(as_json("l1\nl2\t\r"), "\"l1\\nl2\\t\\r\"");
  EXPECT_EQ(as_json(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(as_json("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // valid UTF-8 kept
  EXPECT_EQ(as_json("\xff\xc3"), "\"\\u00ff\\u00c3\"");   // invalid bytes as Latin-1
}

// Every single byte: printable ASCII (and DEL) is copied, '"' and '\\' are backslashed, other
// control characters and lone high bytes become \u00XX.
TEST(JsonTextTest, EverySingleByte) {
  for (int c = 0; c < 256; ++c) {
    const std::string in(1, static_cast<char>(c));
    const std::string got = as_json(in);
    if (c == '"' || c == '\\') {
      EXPECT_EQ(got, std::string("\"\\") + in + "\"") << c;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      EXPECT_EQ(got.size(), 4u) << c;
    } else if (c >= 0x20 && c < 0x80) {
      EXPECT_EQ(got, "\"" + in + "\"") << c;
    } else {
      static const char kHex[] = "0123456789abcdef";
      EXPECT_EQ(got, std::string("\"\\u00") + kHex[c >> 4] + kHex[c & 15] + "\"") << c;
    }
  }
}

TEST(JsonTextTest, IntegersIncludingExtremes) {
  std::string out;
  append_json_int(out, INT64_MIN);
  out += ' ';
  append_json_int(out, 0);
  out += ' ';
  append_json_int(out, 42);
  EXPECT_EQ(out, "-9223372036854775808 0 42");
}

RC_GTEST_PROP(JsonTextProp, AnyBytesGiveParseableJsonAndValidUtf8RoundTrips,
              (std::string bytes)) {
  const std::string text = as_json(bytes);
  nlohmann::json parsed = nlohmann::json::parse(text);  // throws (fails the test) if invalid
  RC_ASSERT(parsed.is_string());
  bool ascii = true;
  for (unsigned char c : bytes) ascii = ascii && c < 0x80;
  if (ascii) RC_ASSERT(parsed.get<std::string>() == bytes);
}

// json_read_back says what a JSON reader gets back from any bytes: mixed valid UTF-8, lone high
// bytes, truncated sequences and surrogates included.
RC_GTEST_PROP(JsonTextProp, ReadBackIsWhatAReaderGets, ()) {
  const auto piece = rc::gen::element<std::string>("a", "\"", "\x01", "\xc3\xa9", "\xe2\x82\xac",
                                                   "\xf0\x9f\x98\x80", "\xff", "\x80", "\xc3",
                                                   "\xed\xa0\x80", "\xe2\x82", "\x7f");
  const auto pieces = *rc::gen::container<std::vector<std::string>>(piece);
  std::string bytes;
  for (const std::string& p : pieces) bytes += p;
  const std::string parsed = nlohmann::json::parse(as_json(bytes)).get<std::string>();
  std::string read_back;
  const bool changed = json_read_back(bytes, read_back);
  RC_ASSERT((changed ? read_back : bytes) == parsed);
  RC_ASSERT(changed == (parsed != bytes));
}

TEST(JsonTextTest, ReadBackOfLoneHighBytes) {
  std::string out;
  EXPECT_FALSE(json_read_back("caf\xc3\xa9 plain", out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(json_read_back("a\xff" "b", out));
  EXPECT_EQ(out, "a\xc3\xbf" "b");
}

// Every byte value at every place of strings up to 40 bytes long, among bytes that need no
// escaping: json_plain tests blocks of sixteen (SSE2), words of eight or single bytes, by the
// string's length, and a byte must be caught wherever it sits in its block (in a word, its
// neighbours' borrows must neither hide it nor invent one).
TEST(JsonTextTest, PlainCatchesEveryByteAtEveryPlace) {
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (int c = 0; c < 256; ++c) {
        for (const char fill : {'a', ' ', '~', '#', ']'}) {
          std::string s(len, fill);
          s[at] = static_cast<char>(c);
          const bool want = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
          ASSERT_EQ(json_plain(s), want) << "len " << len << " at " << at << " byte " << c;
        }
      }
    }
  }
}

// json_plain agrees with a byte-by-byte reading of its definition, whatever the length and
// wherever the odd byte sits (the blocks of eight and the tail).
RC_GTEST_PROP(JsonTextProp, PlainMatchesItsDefinition, ()) {
  const auto byte = rc::gen::oneOf(rc::gen::inRange<int>('a', 'z' + 1), rc::gen::inRange<int>(0, 256),
                                   rc::gen::element<int>('"', '\\', 0x1f, 0x20, 0x7f, 0x80, 0xff));
  const auto codes = *rc::gen::container<std::vector<int>>(byte);
  std::string s;
  bool want = true;
  for (int c : codes) {
    s += static_cast<char>(c);
    want = want && c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }
  RC_ASSERT(json_plain(s) == want);
  if (want) RC_ASSERT(as_json(s) == "\"" + s + "\"");
}

}  // namespace
}  // namespace lockstep::history
