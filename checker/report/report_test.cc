#include "checker/report/report.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "checker/report/files.h"
#include "checker/report/page.h"

namespace lockstep::report {
namespace {

using json = nlohmann::json;

const char* kHistory = R"({"lockstep_history": 1, "scenario": "s", "seed": 2, "lock_kind": "simple", "nodes": ["node0"]}
{"t": 0, "type": "hold_begin", "thread": "c1/t0", "lock": "</script><script>alert(1)</script>", "op": 1}
{"t": 5000, "type": "hold_end", "thread": "c1/t0", "lock": "</script><script>alert(1)</script>", "reason": "unlock"}
{"t": 9000, "type": "end", "complete": true}
)";

json result() {
  return json::parse(R"({"lockstep_result": 1, "scenario": "demo <b>", "file": "demo.json", "seed": 7,
    "algorithm": "set-nx-px", "expect": {"verdict": "ok"}, "verdict": "violation", "expected": false,
    "outcome": "expected ok: the checkers answered violation", "replay": "lockstep run demo.json --seed 7",
    "history": "history.jsonl",
    "faults": [{"fault": 1, "kind": "pause", "target": "c1", "at_ms": 2, "params": {"duration_ms": 35000}}],
    "properties": [{"name": "mutual_exclusion", "verdict": "violation", "reason": "1 overlap",
                    "explanation": {"text": "A paused 35 s > lease 30 s & B acquired", "facts": {}}},
                   {"name": "fencing", "verdict": "not_applicable", "reason": "no writes"}]})");
}

std::string render(const json& r) {
  std::istringstream in(kHistory);
  Result<std::string> page = render_report(r, in, "history.jsonl");
  EXPECT_TRUE(page.ok()) << (page.ok() ? "" : page.status().message());
  return page.ok() ? page.value() : "";
}

TEST(ReportPageTest, HasTheHeaderVerdictsViolationAndData) {
  const std::string page = render(result());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<h1>demo &lt;b&gt; <span class=\"verdict v-violation\">violation</span></h1>"), std::string::npos);
  EXPECT_NE(page.find("<code class=\"replay\" id=\"replay\">lockstep run demo.json --seed 7</code>"), std::string::npos);
  EXPECT_NE(page.find("<tr data-property=\"mutual_exclusion\" data-verdict=\"violation\">"), std::string::npos);
  EXPECT_NE(page.find("<div class=\"violation\" id=\"violation-0\" data-property=\"mutual_exclusion\">"), std::string::npos);
  EXPECT_NE(page.find("A paused 35 s &gt; lease 30 s &amp; B acquired"), std::string::npos);
  EXPECT_NE(page.find("data-zoom-violation=\"0\""), std::string::npos);
  EXPECT_NE(page.find("<canvas id=\"timeline\""), std::string::npos);
  EXPECT_NE(page.find("id=\"render-status\" data-status=\"pending\""), std::string::npos);
  EXPECT_NE(page.find("window.onerror"), std::string::npos);
  EXPECT_NE(page.find("<td>pause</td><td>c1</td>"), std::string::npos);
}

TEST(ReportPageTest, AMutantRunSaysSoInTheHeader) {
  EXPECT_EQ(render(result()).find("id=\"mutant\""), std::string::npos);
  json r = result();
  r["mutant"] = {{"name", "rlock_unlock_no_owner_check"}, {"replaces", "rlock_unlock"},
                 {"broken", "no owner check"}, {"caught_by", "mutual_exclusion"}};
  const std::string page = render(r);
  EXPECT_NE(page.find("<b id=\"mutant\" style=\"color:#9a0000\">rlock_unlock_no_owner_check</b> replaces <code>rlock_unlock</code>"),
            std::string::npos);
  EXPECT_NE(page.find("not the real algorithm"), std::string::npos);
}

// Issue 9: the proven cause sits beside the story, with the replays that prove it.
TEST(ReportPageTest, ShowsTheCauseProvenByReplay) {
  json r = result();
  EXPECT_EQ(render(r).find("class=\"cause\""), std::string::npos);
  r["causes"] = {{"mutual_exclusion",
                  {{"text", "verified by replay: without fault #1 (pause c1 at 2.000 s) the violation does not happen"},
                   {"replays", {{{"kept", json::array()}, {"violated", false}}, {{"kept", {1}}, {"violated", true}}}}}}};
  const std::string page = render(r);
  EXPECT_NE(page.find("<b>Cause</b>: verified by replay: without fault #1 (pause c1 at 2.000 s)"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>none</td><td>no</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>#1</td><td>yes</td></tr>"), std::string::npos);
}

TEST(ReportPageTest, IsSelfContained) {
  const std::string page = render(result());
  for (const char* remote : {"http://", "https://", "src=", "<link", "@import", "url("}) {
    EXPECT_EQ(page.find(remote), std::string::npos) << remote;
  }
}

TEST(ReportPageTest, DataCannotCloseTheScriptElement) {
  const std::string page = render(result());
  // The lock name is embedded, but only as \u003c/script>...
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  // Exactly three script elements: the error handler, the data and the code.
  size_t n = 0;
  for (size_t p = page.find("<script"); p != std::string::npos; p = page.find("<script", p + 1)) ++n;
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(script_safe_json(json{{"a", "<!--"}}), "{\"a\":\"\\u003c!--\"}");
}

TEST(ReportPageTest, SameInputSameBytes) { EXPECT_EQ(render(result()), render(result())); }

TEST(ReportPageTest, NoViolationSaysSo) {
  json r = result();
  r["properties"][0]["verdict"] = "ok";
  const std::string page = render(r);
  EXPECT_NE(page.find("None: no property was violated."), std::string::npos);
  EXPECT_EQ(page.find("id=\"btn-violation\""), std::string::npos);
}

class ReportFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("lockstep_report_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void put(const std::string& name, const std::string& text) { ASSERT_TRUE(write_file_atomically(path(name), text).ok()); }
  std::filesystem::path dir_;
};

// `--json /dev/null` or a FIFO: the existing special file is written in place, never replaced by
// a renamed regular file (as root, /dev/null itself was replaced); a directory is an error.
TEST_F(ReportFilesTest, ASpecialFileIsWrittenInPlace) {
  ASSERT_TRUE(write_file_atomically("/dev/null", "{}\n").ok());
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  EXPECT_FALSE(std::filesystem::exists("/dev/null.tmp"));

  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(in), {});
  });
  EXPECT_TRUE(write_file_atomically(fifo, "through the pipe").ok());
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));

  EXPECT_EQ(write_file_atomically(dir_.string(), "x").message(), dir_.string() + ": is a directory, not a file");
}

TEST_F(ReportFilesTest, RendersFromAResultAndTheHistoryBesideIt) {
  put("result.json", result().dump());
  put("history.jsonl", kHistory);
  Status s = write_report_from_result(path("result.json"), "", path("out.html"));
  ASSERT_TRUE(s.ok()) << s.message();
  Result<std::string> page = read_text_file(path("out.html"), 1 << 24);
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page.value().find("data-property=\"mutual_exclusion\""), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path("out.html.tmp")));
}

TEST_F(ReportFilesTest, BadInputsGetClearErrors) {
  auto err = [&](const std::string& result_file, const std::string& hist) {
    Status s = write_report_from_result(path(result_file), hist, path("out.html"));
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(std::filesystem::exists(path("out.html")));
    return s.ok() ? std::string() : s.message();
  };
  EXPECT_NE(err("missing.json", "").find("missing.json: input: no such file"), std::string::npos);
  put("bad.json", "{not json");
  EXPECT_NE(err("bad.json", "").find("bad.json: not valid JSON"), std::string::npos);
  put("other.json", "{\"a\": 1}");
  EXPECT_NE(err("other.json", "").find("not a lockstep result"), std::string::npos);
  // Another lockstep output says what it is.
  put("explore.json", "{\"lockstep_explore\": 1, \"failures\": []}");
  EXPECT_NE(err("explore.json", "").find("explore.json: is an exploration's summary (explore.json), not a run's result.json: replay a failing seed"),
            std::string::npos);
  put("sweep.json", "{\"lockstep_sweep\": 1}");
  EXPECT_NE(err("sweep.json", "").find("sweep.json: is a sweep's rates (sweep.json), not a run's result.json: its plot is sweep.svg beside it"),
            std::string::npos);
  put("nohist.json", result().dump());
  EXPECT_NE(err("nohist.json", "").find("history.jsonl: cannot open the history (named by"), std::string::npos);
  // A `check - --json` result: the history came from standard input, so there is no file to open.
  json piped = result();
  piped.erase("history");
  piped["source"] = "<stdin>";
  put("piped.json", piped.dump());
  EXPECT_NE(err("piped.json", "").find("piped.json: the history was read from standard input; give it with --history PATH"),
            std::string::npos) << err("piped.json", "");
  put("badhist.jsonl", "{\"lockstep_history\": 1}\nnot json\n");
  EXPECT_NE(err("nohist.json", path("badhist.jsonl")).find("badhist.jsonl:2: expected a JSON object"), std::string::npos);
}

// Issue 14: `report -o` naming its own input overwrote it silently.
TEST_F(ReportFilesTest, RefusesToWriteOverItsOwnInput) {
  put("result.json", result().dump());
  put("history.jsonl", kHistory);
  const std::string result_text = read_text_file(path("result.json"), 1 << 24).value();
  Status s = write_report_from_result(path("result.json"), "", path("result.json"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "-o " + path("result.json") + ": is the result " + path("result.json") +
                             ", the report's own input; write the report to another file");
  // Another spelling of the same file, and the history.
  s = write_report_from_result(path("result.json"), "", (dir_ / "." / "history.jsonl").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(": is the history " + path("history.jsonl") + ", the report's own input"), std::string::npos)
      << s.message();
  s = write_report_from_result(path("result.json"), path("history.jsonl"), path("history.jsonl"));
  ASSERT_FALSE(s.ok());
  // The temporary file the page goes to first must not be an input either.
  put("h.jsonl.tmp", kHistory);
  s = write_report_from_result(path("result.json"), path("h.jsonl.tmp"), path("h.jsonl"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("its temporary file " + path("h.jsonl.tmp") + " is the history"), std::string::npos) << s.message();
  EXPECT_EQ(read_text_file(path("result.json"), 1 << 24).value(), result_text);
  EXPECT_EQ(read_text_file(path("history.jsonl"), 1 << 24).value(), kHistory);
  EXPECT_EQ(read_text_file(path("h.jsonl.tmp"), 1 << 24).value(), kHistory);
  ASSERT_TRUE(write_report_from_result(path("result.json"), "", path("out.html")).ok());
}

// Issue 14: a result.json naming "../../../../etc/passwd" as its history made `report` read
// that file. A result may name only a history inside its own directory; --history can name any.
TEST_F(ReportFilesTest, AHistoryOutsideTheResultsDirectoryIsRefused) {
  put("history.jsonl", kHistory);
  auto named = [&](const std::string& history) {
    json r = result();
    r["history"] = history;
    put("r.json", r.dump());
    Status s = write_report_from_result(path("r.json"), "", path("out.html"));
    return s.ok() ? std::string("(written)") : s.message();
  };
  const std::string advice = "; a report reads only a history inside the result's directory (" + dir_.string() +
                             "): give the file with --history PATH to read it anyway";
  EXPECT_EQ(named("../../../../etc/passwd"),
            path("r.json") + ": /history: \"../../../../etc/passwd\" leaves the result's directory" + advice);
  EXPECT_EQ(named("/etc/passwd"), path("r.json") + ": /history: \"/etc/passwd\" is an absolute path" + advice);
  EXPECT_EQ(named("sub/../../x.jsonl"), path("r.json") + ": /history: \"sub/../../x.jsonl\" leaves the result's directory" + advice);
  EXPECT_FALSE(std::filesystem::exists(path("out.html")));
  EXPECT_EQ(named("sub/../history.jsonl"), "(written)");
  EXPECT_EQ(named("./history.jsonl"), "(written)");
  // "source" (a result of lockstep check --json) is held to the same rule.
  json c = result();
  c.erase("history");
  c["source"] = "/etc/passwd";
  put("c.json", c.dump());
  Status s = write_report_from_result(path("c.json"), "", path("out2.html"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(": /source: \"/etc/passwd\" is an absolute path"), std::string::npos) << s.message();
  // A symbolic link out of the directory is refused too.
  const std::filesystem::path outside = dir_.string() + "_outside.jsonl";
  { std::ofstream(outside) << kHistory; }
  std::filesystem::create_symlink(outside, dir_ / "link.jsonl");
  EXPECT_NE(named("link.jsonl").find("\"link.jsonl\" leads out of the result's directory through a symbolic link (to " +
                                     outside.string() + ")"),
            std::string::npos);
  // Named explicitly, any file is read.
  json r = result();
  r["history"] = "../../../../etc/passwd";
  put("r.json", r.dump());
  s = write_report_from_result(path("r.json"), outside.string(), path("out3.html"));
  EXPECT_TRUE(s.ok()) << s.message();
  std::filesystem::remove(outside);
}

}  // namespace
}  // namespace lockstep::report
