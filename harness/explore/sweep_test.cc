#include "harness/explore/sweep.h"

#include <gtest/gtest.h>

namespace lockstep::explore {
namespace {

using json = nlohmann::json;

const json kDoc = json::parse(R"({
  "name": "sweep-demo", "duration_ms": 60000, "algorithm": {"name": "set-nx-px"},
  "clients": {"count": 2},
  "workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "lease_ms": 30000}]}]},
  "faults": {"schedule": [{"kind": "pause", "at_ms": 2000, "target": "c1", "duration_ms": 35000}]}})");

TEST(SweepParamTest, ParsesPathRangeAndStep) {
  Result<ParamRange> p = parse_param("/faults/schedule/0/duration_ms=1000..40000:1000");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p.value().pointer, "/faults/schedule/0/duration_ms");
  EXPECT_EQ(p.value().from, 1000);
  EXPECT_EQ(p.value().to, 40000);
  EXPECT_EQ(p.value().step, 1000);
  EXPECT_EQ(p.value().values().size(), 40u);
  EXPECT_EQ(p.value().values().back(), 40000);
}

TEST(SweepParamTest, NegativeValuesAndTheDefaultStep) {
  Result<ParamRange> p = parse_param("/nodes/node0/clock/jumps/0/delta_ms=-5000..5000");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p.value().step, 1000);
  EXPECT_EQ(p.value().values(), (std::vector<int64_t>{-5000, -4000, -3000, -2000, -1000, 0, 1000, 2000, 3000, 4000, 5000}));
  // The step need not divide the span: values stop at or before TO.
  EXPECT_EQ(parse_param("/x=0..10:4").value().values(), (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(parse_param("/x=0..7").value().step, 1);
  EXPECT_EQ(parse_param("/x=3..3").value().values(), (std::vector<int64_t>{3}));
}

TEST(SweepParamTest, RejectsMalformedParams) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"duration_ms=1..2", "JSON pointer starting with '/'"},
      {"/x", "expected PATH=FROM..TO"},
      {"/x=1-2", "expected PATH=FROM..TO"},
      {"/x=a..2", "must be integers"},
      {"/x=1..2.5", "must be integers"},
      {"/x=5..1", "FROM must not be greater than TO"},
      {"/x=1..5:0", "STEP must be an integer > 0"},
      {"/x=1..5:-1", "STEP must be an integer > 0"},
      {"/x=0..100000:1", "more than 1000 values"},
      {"=1..2", "expected PATH=FROM..TO"},
  };
  for (const auto& [text, want] : cases) {
    Result<ParamRange> p = parse_param(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_NE(p.status().message().find(want), std::string::npos) << text << " -> " << p.status().message();
    EXPECT_NE(p.status().message().find(text), std::string::npos) << "names the input";
  }
}

TEST(SweepSubstituteTest, ReplacesTheNumber) {
  Result<json> d = substitute(kDoc, "s.json", "/faults/schedule/0/duration_ms", 123);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d.value()["faults"]["schedule"][0]["duration_ms"], 123);
  EXPECT_EQ(kDoc["faults"]["schedule"][0]["duration_ms"], 35000);  // the original is untouched
}

TEST(SweepSubstituteTest, NamesWhereAPathStops) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/faults/schedule/3/duration_ms", "no element 3 at /faults/schedule (it has 1)"},
      {"/faults/schedul/0", "there is no field \"schedul\" at /faults"},
      {"/nope", "there is no field \"nope\" at the top level"},
      {"/faults/schedule/x", "/faults/schedule is an array: \"x\" is not an index"},
      {"/faults/schedule/01/at_ms", "\"01\" is not an index"},
      {"/name/x", "/name is a string, not an object or array"},
      {"/faults/schedule/0/target", "it holds a string, not an integer"},
      {"/faults", "it holds an object, not an integer"},
      {"/a~2b", "not a JSON pointer"},
  };
  for (const auto& [ptr, want] : cases) {
    Result<json> d = substitute(kDoc, "s.json", ptr, 1);
    ASSERT_FALSE(d.ok()) << ptr;
    EXPECT_EQ(d.status().message().rfind("s.json: --param " + ptr + ": ", 0), 0u) << d.status().message();
    EXPECT_NE(d.status().message().find(want), std::string::npos) << ptr << " -> " << d.status().message();
  }
}

TEST(SweepScenariosTest, ValidatesEveryValue) {
  Result<std::vector<scenario::Scenario>> ok =
      sweep_scenarios(kDoc, "s.json", parse_param("/faults/schedule/0/duration_ms=0..30000:10000").value());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok.value().size(), 4u);
  EXPECT_EQ(ok.value()[2].schedule[0].duration_ms, 20000);
  // A pause cannot last a negative time: the scenario's own validation says so, with the value.
  Result<std::vector<scenario::Scenario>> bad =
      sweep_scenarios(kDoc, "s.json", parse_param("/faults/schedule/0/duration_ms=-10..10:10").value());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--param /faults/schedule/0/duration_ms=-10: the scenario rejects this value"),
            std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("/faults/schedule/0/duration_ms"), std::string::npos);
  // A fault past the end of the run.
  Result<std::vector<scenario::Scenario>> late =
      sweep_scenarios(kDoc, "s.json", parse_param("/faults/schedule/0/at_ms=50000..70000:10000").value());
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("=70000"), std::string::npos) << late.status().message();
}

// Issue 14: a sweep stopped part-way (Ctrl-C) keeps the runs that finished, says it was
// interrupted in every output, and plots only the values that ran.
TEST(SweepRunTest, AStoppedSweepKeepsWhatFinishedAndSaysSo) {
  const ParamRange param = parse_param("/faults/schedule/0/duration_ms=10000..40000:10000").value();
  const std::vector<scenario::Scenario> scenarios = sweep_scenarios(kDoc, "s.json", param).value();
  SweepOptions o;
  o.seeds = SeedRange{1, 3};
  uint64_t finished = 0;
  o.progress = [&](uint64_t done, uint64_t) { finished = done; };
  o.stop = [&] { return finished >= 5; };
  Result<SweepResult> r = run_sweep(scenarios, param, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SweepResult& sweep = r.value();
  EXPECT_TRUE(sweep.interrupted);
  EXPECT_EQ(sweep.runs(), 5u);
  EXPECT_EQ(sweep.rows[0].seeds, 3u);  // runs go out value by value, seed by seed
  EXPECT_EQ(sweep.rows[1].seeds, 2u);
  EXPECT_EQ(sweep.rows[3].seeds, 0u);
  EXPECT_EQ(sweep.to_json().value("interrupted", false), true);
  EXPECT_EQ(sweep.to_text().rfind("interrupted: 5 of 12 runs finished", 0), 0u) << sweep.to_text();
  EXPECT_NE(sweep.to_svg().find("interrupted: 5 of 12 runs"), std::string::npos);
  // A value no seed ran at has no rate: not 0 %, which would read as "ran and found nothing".
  EXPECT_TRUE(sweep.to_json()["rows"][3]["violation_rate"].is_null()) << sweep.to_json()["rows"][3].dump();
  EXPECT_TRUE(sweep.to_json()["rows"][1]["violation_rate"].is_number());
  EXPECT_NE(sweep.to_csv().find("\n40000,0,0,,"), std::string::npos) << sweep.to_csv();
  EXPECT_NE(sweep.to_text().find("       40000     not run\n"), std::string::npos) << sweep.to_text();

  o.stop = nullptr;
  Result<SweepResult> all = run_sweep(scenarios, param, o);
  ASSERT_TRUE(all.ok());
  EXPECT_FALSE(all.value().interrupted);
  EXPECT_EQ(all.value().runs(), 12u);
  EXPECT_FALSE(all.value().to_json().contains("interrupted"));
  // The rows that finished before the stop are the same as in the whole sweep; the stopped
  // sweep's rows also say which seeds ran.
  json stopped_row = sweep.to_json()["rows"][1];
  EXPECT_EQ(stopped_row["ran"], json::parse("[[1, 2]]"));
  stopped_row = sweep.to_json()["rows"][0];
  stopped_row.erase("ran");
  EXPECT_EQ(all.value().to_json()["rows"][0], stopped_row);

  // Resumed from its JSON, the stopped sweep runs the 7 runs left and ends as the whole one.
  Result<SweepResult> before = SweepResult::from_json(sweep.to_json(), "sweep.json");
  ASSERT_TRUE(before.ok()) << before.status().message();
  uint64_t first_done = 0;
  o.progress = [&](uint64_t done, uint64_t) { first_done = first_done == 0 ? done : first_done; };
  Result<SweepResult> resumed = run_sweep(scenarios, param, o, &before.value());
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(first_done, 6u);  // progress counts on from the 5 that ran
  EXPECT_EQ(resumed.value().to_json(), all.value().to_json());
  EXPECT_EQ(resumed.value().to_csv(), all.value().to_csv());

  // A sweep.json whose rows do not add up is refused with the row's path.
  json edited = sweep.to_json();
  edited["rows"][1]["ran"] = json::parse("[[1, 3]]");
  EXPECT_EQ(SweepResult::from_json(edited, "sweep.json").status().message(),
            "sweep.json: /rows/1: its counts do not add up (3 seeds ran, 2 counted): edited by hand?");
  edited["rows"][1]["ran"] = json::parse("[[1, 2], [2, 2]]");
  EXPECT_EQ(SweepResult::from_json(edited, "sweep.json").status().message(),
            "sweep.json: /rows/1/ran/1: seed 2 is in two ranges (edited by hand?)");
  edited["rows"][1].erase("ran");
  EXPECT_EQ(SweepResult::from_json(edited, "sweep.json").status().message(),
            "sweep.json: /rows/1/ran: missing: an interrupted sweep lists the seeds that ran at each value");
}

// A run that ends in an error (here: its event budget) gives no verdict: it is counted as an
// error, left out of its value's rate (not counted as "ran and found nothing"), and said.
TEST(SweepRunTest, RunsWithoutAVerdictAreLeftOutOfTheRate) {
  const json doc = json::parse(R"({
    "name": "sweep-budget", "duration_ms": 20000, "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 3},
    "workload": {"generator": {"ops_per_thread": 50, "locks": ["L"], "lease_ms": [1000], "hold_ms": [10, 50],
                               "think_ms": [0, 20], "wait_ms": [2000]}},
    "limits": {"max_events": 5000}})");
  const ParamRange param = parse_param("/limits/max_events=1000..1001000:1000000").value();
  const std::vector<scenario::Scenario> scenarios = sweep_scenarios(doc, "b.json", param).value();
  SweepOptions o;
  o.seeds = SeedRange{1, 2};
  Result<SweepResult> r = run_sweep(scenarios, param, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SweepResult& sweep = r.value();
  ASSERT_EQ(sweep.rows.size(), 2u);
  EXPECT_EQ(sweep.rows[0].errors, 2u);  // 1,000 events is not enough for any seed
  EXPECT_EQ(sweep.rows[0].judged(), 0u);
  EXPECT_EQ(sweep.rows[0].first_errors, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(sweep.rows[1].errors, 0u);
  EXPECT_EQ(sweep.rows[1].judged(), 2u);
  EXPECT_EQ(sweep.errors(), 2u);
  EXPECT_TRUE(sweep.to_json()["rows"][0]["violation_rate"].is_null()) << sweep.to_json()["rows"][0].dump();
  EXPECT_TRUE(sweep.to_json()["rows"][1]["violation_rate"].is_number());
  EXPECT_NE(sweep.to_csv().find("\n1000,2,0,,0,2\n"), std::string::npos) << sweep.to_csv();
  EXPECT_NE(sweep.to_text().find("        1000     no verdict (2 errors)\n"), std::string::npos) << sweep.to_text();
  EXPECT_NE(sweep.to_text().find("2 of 4 runs ended in an error and gave no verdict"), std::string::npos) << sweep.to_text();
}

}  // namespace
}  // namespace lockstep::explore
