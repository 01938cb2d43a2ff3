// JUnit XML, the test-report format CI systems read (Jenkins, GitLab, GitHub actions that
// publish test results): `lockstep explore --junit FILE` writes one test case per seed.
//
// The writer emits the common subset every consumer accepts: <testsuites> holding <testsuite>s
// holding <testcase>s, each passing or carrying one <failure> (the property did not hold) or
// <error> (the run itself failed: a crash, a limit), with a message attribute and a text body.
// No timestamps or durations are written, so the file is a pure function of the results.
#ifndef LOCKSTEP_HARNESS_EXPLORE_JUNIT_H_
#define LOCKSTEP_HARNESS_EXPLORE_JUNIT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lockstep::explore {

struct JUnitCase {
  enum class Kind { kPass, kFailure, kError };
  std::string classname;
  std::string name;
  Kind kind = Kind::kPass;
  std::string type;     // failure/error type ("violation", "unknown", "crash")
  std::string message;  // one line
  std::string text;     // the body: replay command, explanation
};

struct JUnitSuite {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JUnitCase> cases;
};

// The whole document for `suites`, named `name`.
std::string junit_xml(const std::string& name, const std::vector<JUnitSuite>& suites);

// Text escaped for XML 1.0 attribute values and character data: the five markup characters as
// entities; control characters XML 1.0 cannot carry (all below 0x20 except tab, newline and
// carriage return) replaced by '?'.
std::string xml_escape(std::string_view text);

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_JUNIT_H_
