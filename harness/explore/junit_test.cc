#include "harness/explore/junit.h"

#include <gtest/gtest.h>

namespace lockstep::explore {
namespace {

TEST(JUnitTest, EscapesMarkupAndDropsForbiddenControlCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz\n", 6)), "x?y\tz\n");
  EXPECT_EQ(xml_escape("t=30.002 s → B"), "t=30.002 s → B");
}

TEST(JUnitTest, WritesSuitesCasesAndCounts) {
  JUnitSuite suite;
  suite.name = "watchdog-pause";
  suite.properties = {{"file", "s.json"}};
  JUnitCase pass{"lockstep.watchdog-pause", "seed 1"};
  JUnitCase fail{"lockstep.watchdog-pause", "seed 2", JUnitCase::Kind::kFailure, "violation",
                 "violation of mutual_exclusion (expected ok)", "replay: lockstep run s.json --seed 2\nA <paused>"};
  JUnitCase err{"lockstep.watchdog-pause", "seed 3", JUnitCase::Kind::kError, "crashed", "killed by signal 6", ""};
  suite.cases = {pass, fail, err};
  const std::string xml = junit_xml("lockstep explore", {suite});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_NE(xml.find("<testsuites name=\"lockstep explore\" tests=\"3\" failures=\"1\" errors=\"1\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"watchdog-pause\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\">"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"file\" value=\"s.json\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"lockstep.watchdog-pause\" name=\"seed 1\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"violation\" message=\"violation of mutual_exclusion (expected ok)\">"
                     "replay: lockstep run s.json --seed 2\nA &lt;paused&gt;</failure>"),
            std::string::npos);
  EXPECT_NE(xml.find("<error type=\"crashed\" message=\"killed by signal 6\"></error>"), std::string::npos);
  EXPECT_EQ(xml.substr(xml.size() - 14), "</testsuites>\n");
}

TEST(JUnitTest, AnEmptySuiteIsStillWellFormed) {
  const std::string xml = junit_xml("x", {JUnitSuite{"empty", {}, {}}});
  EXPECT_NE(xml.find("<testsuite name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n  </testsuite>"),
            std::string::npos) << xml;
}

}  // namespace
}  // namespace lockstep::explore
