// The HTML report of a run: one self-contained file (inline CSS and JavaScript, the data as
// embedded JSON, no network fetches) that shows the scenario, seed and replay command, the
// verdict of each property, each violation with its explanation, and a zoomable timeline drawn
// on a <canvas> (docs/report.md).
//
// Inputs are what `lockstep run` writes: the result (result.json) and the history next to it.
// The page is a pure function of them, so the same run gives the same bytes.
#ifndef LOCKSTEP_CHECKER_REPORT_REPORT_H_
#define LOCKSTEP_CHECKER_REPORT_REPORT_H_

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/report/timeline.h"
#include "sim/core/status.h"

namespace lockstep::report {

struct ReportOptions {
  TimelineLimits limits;
};

// The page for `result` (result.json's content) and its history, read from `history`
// (`history_name` names it in messages).
Result<std::string> render_report(const nlohmann::json& result, std::istream& history,
                                  const std::string& history_name, const ReportOptions& options = {});

// For `lockstep run`: renders the page from the run's result and its history file and writes it
// to `out_path` (through a temporary name).
Status write_run_report(const nlohmann::json& result, const std::string& history_path,
                        const std::string& out_path);

// For `lockstep report RESULT -o FILE`: reads the result file, finds its history (the file the
// result names, relative to the result's directory, unless `history_path` is given) and writes
// the page. Errors name the file and the problem. A result may name only a history inside its
// own directory: an absolute path, a path out of it ("../../etc/passwd") or a symbolic link out
// of it is refused unless `history_path` names the file. `out_path` must not be the result or
// the history (the same file, however spelled): that is refused before anything is written.
Status write_report_from_result(const std::string& result_path, const std::string& history_path,
                                const std::string& out_path, const ReportOptions& options = {});

}  // namespace lockstep::report

#endif  // LOCKSTEP_CHECKER_REPORT_REPORT_H_
