#include "checker/report/report.h"

#include <filesystem>
#include <fstream>

#include "checker/report/files.h"
#include "checker/report/page.h"
#include "sim/core/assert.h"

namespace lockstep::report {
namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxResultBytes = uint64_t{256} << 20;

// Where the result says its history is: "history" (lockstep run) or "source" (lockstep check).
std::string history_named_by(const json& result) {
  for (const char* key : {"history", "source"}) {
    auto it = result.find(key);
    if (it != result.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  }
  return "";
}

}  // namespace

Result<std::string> render_report(const json& result, std::istream& history, const std::string& history_name,
                                  const ReportOptions& options) {
  LS_ASSERT(result.is_object());
  const std::vector<ViolationMark> marks = violation_marks(result);
  Result<json> t = build_timeline(history, history_name, marks, options.limits);
  if (!t.ok()) return t.status();
  std::string page = render_page(result, t.value());
  LS_ASSERT(!page.empty());
  return page;
}

Status write_run_report(const json& result, const std::string& history_path, const std::string& out_path) {
  std::ifstream in(history_path, std::ios::binary);
  if (!in) return Status::error(history_path + ": cannot open the history for the report");
  Result<std::string> page = render_report(result, in, history_path);
  if (!page.ok()) return page.status();
  return write_file_atomically(out_path, page.value());
}

Status write_report_from_result(const std::string& result_path, const std::string& history_path,
                                const std::string& out_path, const ReportOptions& options) {
  Result<std::string> text = read_text_file(result_path, kMaxResultBytes);
  if (!text.ok()) return text.status();
  json result = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) return Status::error(result_path + ": not valid JSON (expected a result.json)");
  if (!result.is_object() || !result.contains("lockstep_result")) {
    return Status::error(result_path + ": not a lockstep result (expected an object with \"lockstep_result\": 1)");
  }
  if (!result.contains("properties") || !result["properties"].is_array()) {
    return Status::error(result_path + ": /properties: expected an array of property verdicts");
  }
  std::string hist = history_path;
  if (hist.empty()) {
    const std::string named = history_named_by(result);
    if (named.empty()) {
      return Status::error(result_path + ": names no history (no \"history\" or \"source\"); give it with --history");
    }
    const std::filesystem::path p(named);
    hist = p.is_absolute() ? named : (std::filesystem::path(result_path).parent_path() / p).string();
  }
  std::ifstream in(hist, std::ios::binary);
  if (!in) return Status::error(hist + ": cannot open the history (named by " + result_path + ")");
  Result<std::string> page = render_report(result, in, hist, options);
  if (!page.ok()) return page.status();
  return write_file_atomically(out_path, page.value());
}

}  // namespace lockstep::report
