#include "checker/report/report.h"

#include <filesystem>
#include <utility>

#include "checker/report/files.h"
#include "checker/report/page.h"
#include "sim/core/assert.h"
#include "sim/core/json_keys.h"
#include "sim/core/zstd_file.h"

namespace lockstep::report {
namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxResultBytes = uint64_t{256} << 20;

// Where the result says its history is: "history" (lockstep run) or "source" (lockstep check),
// as the key and its value; an empty value when it names none.
std::pair<std::string, std::string> history_named_by(const json& result) {
  for (const char* key : {"history", "source"}) {
    auto it = result.find(key);
    if (it != result.end() && it->is_string() && !it->get<std::string>().empty()) return {key, it->get<std::string>()};
  }
  return {"", ""};
}

// The history a result names (at /`key`), relative to the result's directory. A result file may
// come from anywhere, so it may name only a file inside that directory: an absolute path, one
// that climbs out with "..", or one that leads out through a symbolic link is refused (the user
// can still name any file with --history).
Result<std::string> history_beside(const std::string& result_path, const std::string& key, const std::string& named) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(result_path).parent_path();
  const std::string where = result_path + ": /" + key + ": \"" + named + "\" ";
  const std::string shown_dir = dir.empty() ? std::string(".") : dir.string();
  const std::string advice = "; a report reads only a history inside the result's directory (" + shown_dir +
                             "): give the file with --history PATH to read it anyway";
  const fs::path p(named);
  if (p.has_root_name() || p.has_root_directory()) return Status::error(where + "is an absolute path" + advice);
  const fs::path norm = p.lexically_normal();
  if (!norm.empty() && *norm.begin() == "..") return Status::error(where + "leaves the result's directory" + advice);
  const fs::path full = dir / norm;
  std::error_code ec;
  if (fs::exists(full, ec)) {
    const fs::path real = fs::canonical(full, ec);
    const fs::path real_dir = ec ? fs::path() : fs::canonical(dir.empty() ? fs::path(".") : dir, ec);
    if (ec) return Status::error(where + "cannot be resolved: " + ec.message());
    const fs::path rel = real.lexically_relative(real_dir);
    if (rel.empty() || *rel.begin() == "..") {
      return Status::error(where + "leads out of the result's directory through a symbolic link (to " + real.string() + ")" + advice);
    }
  }
  return full.string();
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

namespace {

// The report of `result` from the history at `path` (compressed with zstd or not).
Result<std::string> render_report_from(const json& result, const std::string& path, const std::string& cannot_open,
                                       const ReportOptions& options) {
  Result<std::unique_ptr<TextInput>> in = TextInput::open(path);
  if (!in.ok()) return Status::error(path + ": " + cannot_open);
  Result<std::string> page = render_report(result, in.value()->stream(), path, options);
  // A history that ends early because it could not be read or decompressed is an error, not a
  // shorter timeline.
  if (Status st = in.value()->error(); !st.ok()) return st;
  return page;
}

}  // namespace

Status write_run_report(const json& result, const std::string& history_path, const std::string& out_path) {
  Result<std::string> page = render_report_from(result, history_path, "cannot open the history for the report", {});
  if (!page.ok()) return page.status();
  return write_file_atomically(out_path, page.value());
}

Status write_report_from_result(const std::string& result_path, const std::string& history_path,
                                const std::string& out_path, const ReportOptions& options) {
  if (Status st = refuse_overwriting_input("report", "-o", out_path, result_path, "the result", "the report"); !st.ok()) return st;
  Result<std::string> text = read_text_file(result_path, kMaxResultBytes);
  if (!text.ok()) return text.status();
  json result = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) {
    const std::string_view first = std::string_view(text.value()).substr(0, text.value().find('\n'));
    if (first.find("\"lockstep_history\"") != std::string_view::npos) {
      return Status::error(result_path + ": is a history (JSON Lines), not a result.json: give the run's result.json (the "
                           "history beside it is found), or a result.json with --history " + result_path);
    }
    return Status::error(result_path + ": not valid JSON (expected a result.json)");
  }
  if (const std::optional<std::string> dup = duplicate_key(text.value())) {
    return Status::error(result_path + ": " + *dup + ": duplicate key (each key may appear once in an object)");
  }
  if (!result.is_object() || !result.contains("lockstep_result")) {
    // Another lockstep output given for a run's result: say which, and where its report is.
    struct Other {
      const char* key;
      const char* what;
    };
    static constexpr Other kOthers[] = {
        {"lockstep_explore", "an exploration's summary (explore.json), not a run's result.json: replay a failing seed "
                             "(its `lockstep run ... --seed N`, as explore lists them), or take the shrunk run's "
                             "shrunk/result.json, and report that"},
        {"lockstep_sweep", "a sweep's rates (sweep.json), not a run's result.json: its plot is sweep.svg beside it"},
        {"lockstep_scorecard", "a scorecard (scorecard.json), not a run's result.json: its page is scorecard.html "
                               "beside it, and each cell's run is under runs/"},
    };
    for (const Other& other : kOthers) {
      if (result.is_object() && result.contains(other.key)) return Status::error(result_path + ": is " + other.what);
    }
    return Status::error(result_path + ": not a lockstep result (expected an object with \"lockstep_result\": 1)");
  }
  if (!result.contains("properties") || !result["properties"].is_array()) {
    return Status::error(result_path + ": /properties: expected an array of property verdicts");
  }
  for (size_t i = 0; i < result["properties"].size(); ++i) {
    const json& p = result["properties"][i];
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("verdict") || !p["verdict"].is_string()) {
      return Status::error(result_path + ": /properties/" + std::to_string(i) +
                           ": expected a property verdict (an object with \"name\" and \"verdict\" strings)");
    }
  }
  for (const char* key : {"history", "source"}) {
    if (result.contains(key) && !result[key].is_string()) {
      return Status::error(result_path + ": /" + key + ": expected the history's file name, a string");
    }
  }
  std::string hist = history_path;
  if (hist.empty()) {
    const auto [key, named] = history_named_by(result);
    if (named.empty()) {
      return Status::error(result_path + ": names no history (no \"history\" or \"source\"); give it with --history");
    }
    if (named == "<stdin>") {  // `lockstep check - --json`: the history came through a pipe
      return Status::error(result_path + ": the history was read from standard input; give it with --history PATH");
    }
    Result<std::string> beside = history_beside(result_path, key, named);
    if (!beside.ok()) return beside.status();
    hist = beside.value();
  }
  if (Status st = refuse_overwriting_input("report", "-o", out_path, hist, "the history", "the report"); !st.ok()) return st;
  Result<std::string> page = render_report_from(result, hist, "cannot open the history (named by " + result_path + ")", options);
  if (!page.ok()) return page.status();
  return write_file_atomically(out_path, page.value());
}

}  // namespace lockstep::report
