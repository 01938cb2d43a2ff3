#include "sim/core/printable.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

namespace lockstep {
namespace {

using namespace std::string_literals;

// Issue 14: a scenario named "\u001b[2J ok" cleared the terminal and printed a fake "ok".
TEST(PrintableTest, ControlBytesBecomeHexEscapes) {
  EXPECT_EQ(printable("\x1b[2J ok"), "\\x1b[2J ok");
  EXPECT_EQ(printable("a\0b"s), "a\\x00b");
  EXPECT_EQ(printable("line\nnext\r\t\x7f"), "line\\x0anext\\x0d\\x09\\x7f");
  EXPECT_EQ(printable_lines("line\nnext\r"), "line\nnext\\x0d");
  EXPECT_EQ(printable("plain ascii: ~!@#$%^&*()_+ \\x1b stays"), "plain ascii: ~!@#$%^&*()_+ \\x1b stays");
}

TEST(PrintableTest, Utf8IsKeptAndC1ControlsAndInvalidBytesAreEscaped) {
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x94\x92"), "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x94\x92");
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");  // U+009B, the one-byte CSI
  EXPECT_EQ(printable("\xc2\xa0"), "\xc2\xa0");           // U+00A0 is not a control
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("\xc3"), "\\xc3");                  // cut short
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");         // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xe2\x28\xa1"), "\\xe2(\\xa1");
}

TEST(PrintableTest, FindsControlCharacters) {
  EXPECT_EQ(find_control_character("abc"), std::string_view::npos);
  EXPECT_EQ(find_control_character("ab\x1b"), 2u);
  EXPECT_EQ(find_control_character("\xc3\xa9\xc2\x85"), 2u);
  EXPECT_EQ(find_control_character("\xff"), std::string_view::npos);  // invalid, not a control
  EXPECT_TRUE(is_printable("caf\xc3\xa9"));
  EXPECT_FALSE(is_printable("\xff"));
  EXPECT_FALSE(is_printable("a\nb"));
}

// Any bytes: the output has no control byte and no invalid UTF-8, and escaping twice changes
// nothing more.
RC_GTEST_PROP(PrintableProp, OutputIsAlwaysPrintableAndStable, (const std::string& text)) {
  const std::string once = printable(text);
  RC_ASSERT(is_printable(once));
  RC_ASSERT(printable(once) == once);
  for (char c : once) RC_ASSERT(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
  if (is_printable(text)) RC_ASSERT(once == text);
}

}  // namespace
}  // namespace lockstep

namespace lockstep {
namespace {

TEST(ShellQuoteTest, PlainWordsStayAndOthersAreSingleQuoted) {
  EXPECT_EQ(shell_quote("scenarios/edge/a-b_c.json"), "scenarios/edge/a-b_c.json");
  EXPECT_EQ(shell_quote("my scenario.json"), "'my scenario.json'");
  EXPECT_EQ(shell_quote("it's.json"), "'it'\\''s.json'");
  EXPECT_EQ(shell_quote("$(rm -rf x)"), "'$(rm -rf x)'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace lockstep
