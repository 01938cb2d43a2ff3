#include "harness/explore/junit.h"

#include <cstdint>

#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

struct Counts {
  size_t tests = 0;
  size_t failures = 0;
  size_t errors = 0;
};

Counts count(const std::vector<JUnitCase>& cases) {
  Counts c;
  for (const JUnitCase& k : cases) {
    ++c.tests;
    if (k.kind == JUnitCase::Kind::kFailure) ++c.failures;
    if (k.kind == JUnitCase::Kind::kError) ++c.errors;
  }
  return c;
}

std::string counts_attrs(const Counts& c) {
  return " tests=\"" + std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) +
         "\" errors=\"" + std::to_string(c.errors) + "\"";
}

void write_case(const JUnitCase& k, std::string& out) {
  out += "    <testcase classname=\"" + xml_escape(k.classname) + "\" name=\"" + xml_escape(k.name) + "\"";
  if (k.kind == JUnitCase::Kind::kPass) {
    out += "/>\n";
    return;
  }
  const char* tag = k.kind == JUnitCase::Kind::kFailure ? "failure" : "error";
  out += ">\n      <";
  out += tag;
  out += " type=\"" + xml_escape(k.type) + "\" message=\"" + xml_escape(k.message) + "\">";
  out += xml_escape(k.text);
  out += "</";
  out += tag;
  out += ">\n    </testcase>\n";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids these even as character references.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  LS_ASSERT(out.size() >= text.size());
  return out;
}

std::string junit_xml(const std::string& name, const std::vector<JUnitSuite>& suites) {
  Counts total;
  for (const JUnitSuite& s : suites) {
    const Counts c = count(s.cases);
    total.tests += c.tests;
    total.failures += c.failures;
    total.errors += c.errors;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + xml_escape(name) + "\"" + counts_attrs(total) + ">\n";
  for (const JUnitSuite& s : suites) {
    out += "  <testsuite name=\"" + xml_escape(s.name) + "\"" + counts_attrs(count(s.cases)) + " skipped=\"0\">\n";
    if (!s.properties.empty()) {
      out += "    <properties>\n";
      for (const auto& [k, v] : s.properties) {
        out += "      <property name=\"" + xml_escape(k) + "\" value=\"" + xml_escape(v) + "\"/>\n";
      }
      out += "    </properties>\n";
    }
    for (const JUnitCase& k : s.cases) write_case(k, out);
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  LS_ASSERT(total.failures + total.errors <= total.tests);
  return out;
}

}  // namespace lockstep::explore
