#include "checker/report/timeline.h"

#include <gtest/gtest.h>

#include <sstream>

#include "checker/report/sampler.h"

namespace lockstep::report {
namespace {

using json = nlohmann::json;

// c10/t0 takes L on node0 (SET NX PX), is paused; L expires; c2/t0 takes it: an overlap.
const char* kHistory = R"({"lockstep_history": 1, "scenario": "s", "seed": 2, "lock_kind": "simple", "nodes": ["node0"], "duration_ms": 10000}
{"t": 0, "type": "invoke", "id": 1, "thread": "c10/t0", "owner": "a", "lock": "L", "op": "lock", "lease_ms": 1000}
{"t": 100, "type": "exec", "node": "node0", "seq": 1, "local_ms": 0, "conn": "c10", "command": "SET", "op": 1, "args": ["L", "a:1", "NX", "PX", "1000"], "reply": {"ok": "OK"}}
{"t": 200, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1}
{"t": 200, "type": "hold_begin", "thread": "c10/t0", "owner": "a", "lock": "L", "mode": "exclusive", "op": 1}
{"t": 300, "type": "invoke", "id": 2, "thread": "c2/t0", "owner": "b", "lock": "L", "op": "lock", "lease_ms": 1000}
{"t": 400, "type": "exec", "node": "node0", "seq": 2, "local_ms": 0, "conn": "c2", "command": "SET", "op": 2, "args": ["L", "b:1", "NX", "PX", "1000"], "reply": null}
{"t": 500, "type": "fault", "fault": 1, "kind": "pause", "target": "c10", "phase": "start", "params": {"duration_ms": 3}}
{"t": 1100, "type": "expire", "node": "node0", "key": "L", "local_ms": 1}
{"t": 1200, "type": "exec", "node": "node0", "seq": 3, "local_ms": 1, "conn": "c2", "command": "SET", "op": 2, "args": ["L", "b:1", "NX", "PX", "1000"], "reply": {"ok": "OK"}}
{"t": 1300, "type": "complete", "id": 2, "outcome": "ok", "acquired": true, "count": 1}
{"t": 1300, "type": "hold_begin", "thread": "c2/t0", "owner": "b", "lock": "L", "mode": "exclusive", "op": 2}
{"t": 3500, "type": "fault", "fault": 1, "kind": "pause", "target": "c10", "phase": "end"}
{"t": 3600, "type": "hold_end", "thread": "c10/t0", "lock": "L", "reason": "unlock"}
{"t": 3600, "type": "invoke", "id": 3, "thread": "c10/t0", "owner": "a", "lock": "L", "op": "unlock"}
{"t": 3700, "type": "exec", "node": "node0", "seq": 4, "local_ms": 3, "conn": "c10", "command": "EVALSHA", "script": "unlock", "op": 3, "keys": ["L"], "args": ["a:1"], "reply": 0}
{"t": 3800, "type": "complete", "id": 3, "outcome": "ok", "released": false}
{"t": 4000, "type": "hold_end", "thread": "c2/t0", "lock": "L", "reason": "unlock"}
{"t": 4000, "type": "invoke", "id": 4, "thread": "c2/t0", "owner": "b", "lock": "L", "op": "unlock"}
{"t": 4100, "type": "exec", "node": "node0", "seq": 5, "local_ms": 4, "conn": "c2", "command": "EVALSHA", "script": "unlock", "op": 4, "keys": ["L"], "args": ["b:1"], "reply": 1}
{"t": 4200, "type": "data_loss", "node": "node0", "reason": "restart", "keys": ["X"]}
{"t": 4300, "type": "fault", "fault": 2, "kind": "clock_jump", "target": "node0", "phase": "instant", "params": {"delta_ms": 5}}
{"t": 10000, "type": "end", "complete": true}
)";

const json kResult = json::parse(R"({"lockstep_result": 1, "properties": [
  {"name": "mutual_exclusion", "verdict": "violation", "reason": "overlap",
   "counterexample": {"first": {"thread": "c10/t0", "begin_us": 200, "end_us": 3600},
                      "second": {"thread": "c2/t0", "begin_us": 1300, "end_us": 4000}},
   "explanation": {"text": "...", "facts": {"chain": [{"event": "expire", "node": "node0", "t_us": 1100}]}}},
  {"name": "fencing", "verdict": "ok", "reason": "no fenced writes"}]})");

json build(const std::string& text, const TimelineLimits& limits = {}) {
  std::istringstream in(text);
  Result<json> t = build_timeline(in, "h.jsonl", violation_marks(kResult), limits);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.status().message());
  return t.ok() ? t.value() : json();
}

std::string s(const json& t, const json& idx) { return t["strs"][idx.get<size_t>()]; }

TEST(TimelineTest, ViolationMarksTakeTheTimesAndNamesMentioned) {
  const std::vector<ViolationMark> m = violation_marks(kResult);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].property, "mutual_exclusion");
  EXPECT_EQ(m[0].t0_us, 200);
  EXPECT_EQ(m[0].t1_us, 4000);
  EXPECT_EQ(m[0].names, (std::vector<std::string>{"c10/t0", "c2/t0", "node0"}));
  // Issue 9: the page shades exactly the overlap of the two holds: [1300, 3600].
  EXPECT_EQ(m[0].overlap_t0_us, 1300);
  EXPECT_EQ(m[0].overlap_t1_us, 3600);
}

TEST(TimelineTest, OnlyTwoHoldsThatOverlapGiveAnOverlapWindow) {
  const json no_overlap = json::parse(R"({"properties": [{"name": "liveness", "verdict": "violation",
      "counterexample": {"waiter": "c1/t0", "from_us": 10, "to_us": 90}}]})");
  const std::vector<ViolationMark> m = violation_marks(no_overlap);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].overlap_t0_us, -1);
  // A second hold still open at the end lasts to the story's end.
  const json open = json::parse(R"({"properties": [{"name": "mutual_exclusion", "verdict": "violation",
      "counterexample": {"first": {"thread": "c1/t0", "begin_us": 100, "end_us": 900},
                         "second": {"thread": "c2/t0", "begin_us": 500}}}]})");
  const std::vector<ViolationMark> o = violation_marks(open);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].overlap_t0_us, 500);
  EXPECT_EQ(o[0].overlap_t1_us, 900);
  const json page_item = [&] {
    std::istringstream in(kHistory);
    Result<json> t = build_timeline(in, "h.jsonl", o, TimelineLimits{});
    return t.ok() ? t.value()["violations"][0] : json();
  }();
  EXPECT_EQ(page_item["o0"], 500);
  EXPECT_EQ(page_item["o1"], 900);
}

TEST(TimelineTest, RowsAreNetworkThenThreadsInNaturalOrderThenNodes) {
  const json t = build(kHistory);
  ASSERT_EQ(t["rows"].size(), 4u);
  EXPECT_EQ(t["rows"][0]["name"], "network");
  EXPECT_EQ(t["rows"][1]["name"], "c2/t0");
  EXPECT_EQ(t["rows"][2]["name"], "c10/t0");
  EXPECT_EQ(t["rows"][3]["name"], "node0");
  EXPECT_EQ(t["rows"][3]["kind"], "node");
  EXPECT_EQ(t["t_end"], 10000);
  EXPECT_TRUE(t["complete"].get<bool>());
}

TEST(TimelineTest, HoldsOpsAndKeyLifetimes) {
  const json t = build(kHistory);
  ASSERT_EQ(t["holds"].size(), 2u);
  // [row, lock, t0, t1, mode, end, token, op], by start time.
  EXPECT_EQ(t["holds"][0][0], 2);
  EXPECT_EQ(t["holds"][0][2], 200);
  EXPECT_EQ(t["holds"][0][3], 3600);
  EXPECT_EQ(s(t, t["holds"][0][5]), "unlock");
  EXPECT_EQ(t["holds"][1][0], 1);
  EXPECT_EQ(t["holds"][1][2], 1300);
  ASSERT_EQ(t["ops"].size(), 4u);
  EXPECT_EQ(s(t, t["ops"][2][2]), "unlock");
  EXPECT_EQ(t["ops"][2][6], 0);  // released: false
  // Key lifetimes: c10's grant at 100 until the expiry at 1100; c2's grant at 1200 until its
  // release at 4100. c10's late unlock (reply 0) does not end c2's key.
  ASSERT_EQ(t["keys"].size(), 2u);
  EXPECT_EQ(t["keys"][0][3], 100);
  EXPECT_EQ(t["keys"][0][4], 1100);
  EXPECT_EQ(s(t, t["keys"][0][5]), "expired");
  EXPECT_EQ(t["keys"][0][6], 2);
  EXPECT_EQ(t["keys"][1][3], 1200);
  EXPECT_EQ(t["keys"][1][4], 4100);
  EXPECT_EQ(s(t, t["keys"][1][5]), "released");
  EXPECT_EQ(t["keys"][1][0], 3);  // on node0's row
}

TEST(TimelineTest, FaultsMarkersAndViolations) {
  const json t = build(kHistory);
  ASSERT_EQ(t["faults"].size(), 2u);
  // The pause of client c10 is drawn on all its threads' rows.
  EXPECT_EQ(t["faults"][0][3], 500);
  EXPECT_EQ(t["faults"][0][4], 3500);
  EXPECT_EQ(t["faults"][0][6], json::array({2}));
  EXPECT_EQ(s(t, t["faults"][1][7]), "instant");
  EXPECT_EQ(t["faults"][1][6], json::array({3}));
  ASSERT_EQ(t["markers"].size(), 2u);
  EXPECT_EQ(s(t, t["markers"][0][2]), "expire");
  EXPECT_EQ(s(t, t["markers"][1][2]), "data_loss");
  EXPECT_EQ(t["execs"].size(), 5u);
  ASSERT_EQ(t["violations"].size(), 1u);
  EXPECT_EQ(t["violations"][0]["rows"], json::array({1, 2, 3}));
  EXPECT_EQ(t["violations"][0]["t0"], 200);
}

// Each line is read on its own: a field a line leaves out is absent, not the line before's (the
// line parser keeps its last views), and a fault's parameters are shown whatever their JSON.
TEST(TimelineTest, AFieldALineLeavesOutIsAbsent) {
  std::string text = kHistory;
  text.insert(text.find("{\"t\": 4200"),
              R"({"t": 4150, "type": "exec", "node": "node0", "seq": 6, "local_ms": 4, "conn": "c2/pubsub", "command": "SUBSCRIBE", "args": ["ch"], "reply": null})"
              "\n"
              R"({"t": 4160, "type": "fault", "fault": 3, "kind": "failover", "target": "node0", "phase": "instant", "params": {"promoted": "node1", "on": {"event": "granted"}}})"
              "\n");
  const json t = build(text);
  ASSERT_EQ(t["execs"].size(), 6u);
  // [row, t, command, conn, op]: the EVALSHA before it named a script and an op; this one has neither.
  EXPECT_EQ(s(t, t["execs"][4][2]), "EVALSHA unlock");
  EXPECT_EQ(s(t, t["execs"][5][2]), "SUBSCRIBE");
  EXPECT_EQ(s(t, t["execs"][5][3]), "c2/pubsub");
  EXPECT_EQ(t["execs"][5][4], -1);
  ASSERT_EQ(t["faults"].size(), 3u);
  EXPECT_EQ(t["faults"][1][0], 3);  // [id, kind, target, t0, t1, params, rows, phase], by time
  EXPECT_EQ(s(t, t["faults"][1][5]), R"({"on":{"event":"granted"},"promoted":"node1"})");
}

TEST(TimelineTest, CapsKeepTheViolationWindowAndCount) {
  // 2000 short holds long after the violation window, plus the two around it.
  std::string text = kHistory;
  text.erase(text.rfind("{\"t\": 10000"));
  for (int i = 0; i < 2000; ++i) {
    const int64_t t0 = 100'000 + i * 1000;
    text += "{\"t\": " + std::to_string(t0) + ", \"type\": \"hold_begin\", \"thread\": \"c3/t0\", \"lock\": \"M\", \"op\": -1}\n";
    text += "{\"t\": " + std::to_string(t0 + 500) + ", \"type\": \"hold_end\", \"thread\": \"c3/t0\", \"lock\": \"M\", \"reason\": \"unlock\"}\n";
  }
  TimelineLimits limits;
  limits.holds = 100;
  const json t = build(text, limits);
  EXPECT_EQ(t["counts"]["holds"], json::array({100, 2002}));
  ASSERT_EQ(t["holds"].size(), 100u);
  EXPECT_EQ(t["holds"][0][2], 200);   // both violating holds are kept
  EXPECT_EQ(t["holds"][1][2], 1300);
  EXPECT_FALSE(t["complete"].get<bool>());  // no end line
  // Deterministic.
  EXPECT_EQ(build(text, limits).dump(), t.dump());
}

// The page draws no pub/sub traffic: lines the writer starts as `publish` or `deliver` are passed
// over unparsed, and the page is the same with or without them. Line numbers still count them.
TEST(TimelineTest, PubSubLinesAreSkippedAndStillCounted) {
  std::string with = kHistory;
  const std::string pubsub =
      "{\"t\": 250, \"type\": \"publish\", \"node\": \"node0\", \"channel\": \"c\", \"message\": \"0\", \"receivers\": 1}\n"
      "{\"t\": 250, \"type\": \"deliver\", \"thread\": \"c2/t0\", \"channel\": \"c\", \"message\": \"0\"}\n";
  with.insert(with.find("{\"t\": 300"), pubsub);
  EXPECT_EQ(build(with).dump(), build(kHistory).dump());
  // The bad line after them is named by its line in the file, pub/sub lines included.
  std::istringstream bad(std::string(R"({"lockstep_history": 1})") + "\n" + pubsub + "{\"t\": 1, \"type\": \n");
  Result<json> r = build_timeline(bad, "h.jsonl", {}, TimelineLimits{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "h.jsonl:4: not valid JSON (JSON document ended early in the middle of an object or array.)");
  // Passed over unparsed: what follows the writer's start is not looked at.
  std::istringstream skipped(std::string(R"({"lockstep_history": 1})") + "\n{\"t\": 1, \"type\": \"deliver\", ...\n");
  EXPECT_TRUE(build_timeline(skipped, "s.jsonl", {}, TimelineLimits{}).ok());
  // Written another way, a pub/sub line is parsed like any other (and must be JSON).
  std::istringstream other(std::string(R"({"lockstep_history": 1})") + "\n{\"type\": \"deliver\", \"t\": 1, \n");
  EXPECT_FALSE(build_timeline(other, "o.jsonl", {}, TimelineLimits{}).ok());
}

// The timeline reads lines with the checker's line parser: a bad line gets the words `lockstep
// check` gives it, with its file and line.
TEST(TimelineTest, BadLinesAreNamed) {
  std::istringstream bad(std::string(R"({"lockstep_history": 1})") + "\n{\"t\": 1, \"type\": \n");
  Result<json> r = build_timeline(bad, "h.jsonl", {}, TimelineLimits{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "h.jsonl:2: not valid JSON (JSON document ended early in the middle of an object or array.)");
  std::istringstream wrong_type(std::string(R"({"lockstep_history": 1})") + "\n" +
                                R"({"t": 1, "type": "invoke", "id": 1, "thread": 5})" + "\n");
  Result<json> r3 = build_timeline(wrong_type, "w.jsonl", {}, TimelineLimits{});
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.status().message(), "w.jsonl:2: field 'thread': expected a string, found a number");
  std::istringstream not_history("{\"a\": 1}\n");
  Result<json> r2 = build_timeline(not_history, "x.jsonl", {}, TimelineLimits{});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("x.jsonl:1: not a lockstep history"), std::string::npos);
  std::istringstream empty("");
  EXPECT_FALSE(build_timeline(empty, "e.jsonl", {}, TimelineLimits{}).ok());
}

TEST(TimelineTest, NaturalOrder) {
  EXPECT_TRUE(natural_less("c2", "c10"));
  EXPECT_FALSE(natural_less("c10", "c2"));
  EXPECT_TRUE(natural_less("c1/t2", "c1/t10"));
  EXPECT_TRUE(natural_less("a", "b"));
  EXPECT_TRUE(natural_less("c1", "c1/t0"));
  EXPECT_FALSE(natural_less("c1", "c1"));
  EXPECT_TRUE(natural_less("c007", "c8"));
}

TEST(SamplerTest, ThinsEvenlyAndDeterministically) {
  std::vector<TimeWindow> none;
  Sampler<int> s(10, none);
  for (int i = 0; i < 1000; ++i) s.add(i, i, i);
  const std::vector<int> kept = s.take();
  EXPECT_EQ(kept.size(), 10u);
  EXPECT_EQ(s.total(), 1000u);
  EXPECT_EQ(kept.front(), 0);
  EXPECT_GT(kept.back(), 800);  // spread over the whole range, not the first ten
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1], kept[i]);
}

}  // namespace
}  // namespace lockstep::report
