// The report page's HTML: the static parts (header, verdicts, violations, faults table, notes)
// written here, so they read fine even without JavaScript, and the timeline data plus the
// script that draws it embedded inline. Internal to checker/report.
#ifndef LOCKSTEP_CHECKER_REPORT_PAGE_H_
#define LOCKSTEP_CHECKER_REPORT_PAGE_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace lockstep::report {

// The whole document for a result and the timeline build_timeline made from its history.
std::string render_page(const nlohmann::json& result, const nlohmann::json& timeline);

// Text escaped for HTML element content and attribute values.
std::string html_escape(std::string_view text);

// JSON text safe inside <script type="application/json">: every '<' becomes \u003c, so no
// "</script>" or "<!--" in the data can end or confuse the element.
std::string script_safe_json(const nlohmann::json& j);

}  // namespace lockstep::report

#endif  // LOCKSTEP_CHECKER_REPORT_PAGE_H_
