// Loads reports into headless Chromium with --dump-dom and reads the DOM the page's script left:
// the page must render (#render-status data-status="rendered"), record no script error
// (#script-errors data-errors="0"), and show and mark the violation. A page with a planted
// script error must be caught the same way, which proves the check can fail.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "checker/report/files.h"
#include "checker/report/report.h"
#include "harness/explore/scorecard.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// c1 takes L with a 3 s lease and is paused for 6 s; the key expires and c2 takes L while c1
// still believes it holds it: a mutual exclusion violation.
const char* kViolating = R"({
  "name": "report-pause", "duration_ms": 12000,
  "algorithm": {"name": "set-nx-px", "options": {"retry_delay_ms": 20}},
  "network": {"latency": 500},
  "clients": {"count": 2},
  "workload": {"script": [
    {"threads": "c1", "steps": [{"op": "lock", "lock": "L", "lease_ms": 3000, "at_ms": 1000,
                                 "then": [{"op": "hold", "ms": 1000}, {"op": "unlock", "lock": "L"}]}]},
    {"threads": "c2", "steps": [{"op": "lock", "lock": "L", "lease_ms": 3000, "at_ms": 1500,
                                 "then": [{"op": "hold", "ms": 500}, {"op": "unlock", "lock": "L"}]}]}]},
  "faults": {"schedule": [{"kind": "pause", "at_ms": 1200, "target": "c1", "duration_ms": 6000}]},
  "checks": {"properties": ["mutual_exclusion"]}
})";

std::string find_chromium() {
  if (const char* env = std::getenv("LOCKSTEP_CHROMIUM"); env != nullptr && *env != '\0') return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const fs::path p = fs::path(dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

class ChromiumReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium; .ci/install-deps installs it)";
    dir_ = fs::temp_directory_path() / ("lockstep_chromium_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs the scenario into dir/name and returns the report's path.
  std::string run_into(const std::string& text, const std::string& name) {
    Result<scenario::Scenario> s = scenario::parse_scenario_text(text, name + ".json");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
    scenario::RunOptions o;
    o.out_dir = (dir_ / name).string();
    Result<scenario::RunReport> r = scenario::run_scenario(s.value(), o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
    return o.out_dir + "/report.html";
  }

  // The DOM after the page's scripts ran, as headless Chromium dumps it.
  std::string dump_dom(const std::string& html) {
    const std::string out = (dir_ / "dom.html").string();
    const std::string cmd = "timeout 120 " + chromium_ +
                            " --headless --no-sandbox --disable-gpu --disable-background-networking"
                            " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
                            (dir_ / "profile").string() + " --dump-dom 'file://" + fs::absolute(html).string() + "' > '" +
                            out + "' 2> '" + (dir_ / "chromium.log").string() + "'";
    const int rc = std::system(cmd.c_str());
    EXPECT_EQ(rc, 0) << "chromium failed; see its log: " << dump_log();
    Result<std::string> dom = report::read_text_file(out, 1 << 28);
    EXPECT_TRUE(dom.ok());
    return dom.ok() ? dom.value() : "";
  }
  std::string dump_log() {
    Result<std::string> log = report::read_text_file((dir_ / "chromium.log").string(), 1 << 24);
    return log.ok() ? log.value().substr(0, 4000) : "(no log)";
  }

  std::string chromium_;
  fs::path dir_;
};

TEST_F(ChromiumReportTest, AViolationReportRendersWithoutErrorsAndShowsTheViolation) {
  const std::string html = run_into(kViolating, "violating");
  ASSERT_TRUE(fs::exists(html));
  const std::string dom = dump_dom(html);
  ASSERT_FALSE(dom.empty());
  EXPECT_NE(dom.find("<div id=\"script-errors\" data-errors=\"0\"></div>"), std::string::npos)
      << dom.substr(dom.find("script-errors") == std::string::npos ? 0 : dom.find("script-errors"), 2000);
  EXPECT_NE(dom.find("data-status=\"rendered\""), std::string::npos) << "the script did not finish";
  EXPECT_NE(dom.find("data-violations-drawn=\"1\""), std::string::npos) << "the violation was not marked on the timeline";
  EXPECT_NE(dom.find("<div class=\"violation\" id=\"violation-0\" data-property=\"mutual_exclusion\">"), std::string::npos);
  EXPECT_NE(dom.find("c2/t0 acquired L"), std::string::npos) << "the explanation is shown";
  EXPECT_NE(dom.find("lockstep run violating.json --seed 1"), std::string::npos) << "the replay command is shown";
  EXPECT_NE(dom.find("data-rows=\"4\""), std::string::npos) << "network, c1/t0, c2/t0, node0";
  // Issue 9: the page shades exactly the overlap of the two holds (c2's begin to c1's end, from
  // result.json's counterexample) and opens zoomed to the violation, not on the whole run.
  Result<std::string> result = report::read_text_file((dir_ / "violating" / "result.json").string(), 1 << 24);
  ASSERT_TRUE(result.ok());
  const nlohmann::json r = nlohmann::json::parse(result.value());
  const nlohmann::json* ce = nullptr;
  for (const nlohmann::json& p : r["properties"]) {
    if (p["name"] == "mutual_exclusion") ce = &p["counterexample"];
  }
  ASSERT_NE(ce, nullptr);
  const int64_t o0 = std::max((*ce)["first"]["begin_us"].get<int64_t>(), (*ce)["second"]["begin_us"].get<int64_t>());
  const int64_t o1 = std::min((*ce)["first"]["end_us"].get<int64_t>(), (*ce)["second"]["end_us"].get<int64_t>());
  EXPECT_NE(dom.find("data-shaded=\"" + std::to_string(o0) + "," + std::to_string(o1) + "\""), std::string::npos)
      << dom.substr(dom.find("render-status"), 600);
  const size_t v = dom.find("data-view=\"");
  ASSERT_NE(v, std::string::npos);
  const std::string view = dom.substr(v + 11, dom.find('"', v + 11) - v - 11);
  EXPECT_NE(view, "0,12000000") << "the page opened on the whole run";
  const int64_t v0 = std::stoll(view.substr(0, view.find(','))), v1 = std::stoll(view.substr(view.find(',') + 1));
  EXPECT_LE(v0, o0);
  EXPECT_GE(v1, o1);
}

TEST_F(ChromiumReportTest, APageWithAScriptErrorIsCaught) {
  const std::string html = run_into(kViolating, "broken");
  Result<std::string> page = report::read_text_file(html, 1 << 28);
  ASSERT_TRUE(page.ok());
  std::string broken = page.value();
  broken.insert(broken.rfind("</body>"), "<script>no_such_function();</script>\n");
  const std::string path = (dir_ / "broken.html").string();
  ASSERT_TRUE(report::write_file_atomically(path, broken).ok());
  const std::string dom = dump_dom(path);
  EXPECT_NE(dom.find("data-errors=\"1\""), std::string::npos);
  EXPECT_NE(dom.find("no_such_function"), std::string::npos);
}

TEST_F(ChromiumReportTest, ALargeDownsampledReportStillRenders) {
  // Many operations with tiny embed limits: the page says it is thinned and still draws.
  nlohmann::json j = nlohmann::json::parse(kViolating);
  j["clients"] = {{"count", 6}};
  j["duration_ms"] = 60000;
  j["workload"] = nlohmann::json::parse(R"({"generator": {"ops_per_thread": 60, "locks": ["L", "M", "N"],
      "lease_ms": [3000], "hold_ms": [5, 50], "think_ms": [0, 20], "wait_ms": [5000]}})");
  j["faults"]["schedule"][0]["target"] = "c1";
  const std::string html_run = run_into(j.dump(), "large");
  const std::string dir = fs::path(html_run).parent_path().string();
  report::ReportOptions o;
  o.limits.holds = 50;
  o.limits.ops = 50;
  o.limits.execs = 50;
  const std::string html = (dir_ / "large-small.html").string();
  ASSERT_TRUE(report::write_report_from_result(dir + "/result.json", "", html, o).ok());
  const std::string dom = dump_dom(html);
  EXPECT_NE(dom.find("<div id=\"script-errors\" data-errors=\"0\"></div>"), std::string::npos);
  EXPECT_NE(dom.find("data-status=\"rendered\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"downsampled\""), std::string::npos);
  EXPECT_NE(dom.find("showing 50 of "), std::string::npos);
}

// The scorecard's page (lockstep scorecard): Chromium parses the matrix, every cell is there with
// its verdict, and a cell's link leads to a run report that itself renders without errors.
TEST_F(ChromiumReportTest, TheScorecardPageShowsItsMatrixAndItsLinksLeadToRenderedReports) {
  const std::string edge = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/edge/";
  Result<explore::Scorecard> card = explore::run_scorecard(
      {edge + "redisson-lock-short-lease.json", edge + "redlock-spec-restart-no-persistence.json"},
      {{"set-nx-px", ""}, {"redsync", ""}}, dir_.string());
  ASSERT_TRUE(card.ok()) << card.status().message();
  const std::string page = (dir_ / "scorecard.html").string();
  ASSERT_TRUE(report::write_file_atomically(page, card.value().to_html()).ok());
  const std::string dom = dump_dom(page);
  ASSERT_FALSE(dom.empty());
  size_t cells = 0;
  for (size_t at = dom.find("<td class="); at != std::string::npos; at = dom.find("<td class=", at + 1)) ++cells;
  EXPECT_EQ(cells, 4u) << dom.substr(0, 3000);
  EXPECT_NE(dom.find("<th>redsync</th>"), std::string::npos);
  EXPECT_NE(dom.find("data-verdict=\"violation\""), std::string::npos);
  EXPECT_NE(dom.find("does not apply"), std::string::npos);
  const std::string link = "runs/set-nx-px/redisson-lock-short-lease/report.html";
  EXPECT_NE(dom.find("href=\"" + link + "\""), std::string::npos);
  const std::string linked = dump_dom((dir_ / link).string());
  EXPECT_NE(linked.find("data-status=\"rendered\""), std::string::npos) << "the linked report did not render";
  EXPECT_NE(linked.find("<div id=\"script-errors\" data-errors=\"0\"></div>"), std::string::npos);
}

}  // namespace
}  // namespace lockstep
