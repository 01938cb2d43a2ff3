#include "harness/scenario/parse.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/scenario/run.h"
#include "sim/core/printable.h"

namespace lockstep::scenario {
namespace {

const char* kValid = R"({
  "name": "demo",
  "description": "every section once",
  "seed": 7,
  "duration_ms": 60000,
  "expect": {"verdict": "violation", "property": "mutual_exclusion"},
  "algorithm": {"name": "set-nx-px", "options": {"retry_delay_ms": 20}},
  "topology": {"kind": "replicated", "replicas": 2, "replication_lag": {"kind": "uniform", "min_us": 500, "max_us": 5000},
               "failover": {"detection_ms": 3000}},
  "nodes": {"default": {"persistence": {"mode": "aof-everysec"}},
            "node2": {"clock": {"drift_ppm": 200, "jumps": [{"at_ms": 5000, "delta_ms": 40000}]}}},
  "network": {"latency": 300, "loss_ppm": 10, "links": [{"from": "A", "to": "node0", "latency": {"kind": "fixed", "us": 900}}]},
  "clients": [{"name": "A", "threads": 2, "options": {"timeout_ms": 1000}}, {"name": "B"}],
  "workload": {"script": [
    {"threads": "A/t0", "steps": [
      {"op": "lock", "lock": "L", "lease_ms": 30000, "then": [
        {"op": "write", "resource": "R", "fenced": true},
        {"op": "hold", "ms": 40000},
        {"op": "unlock", "lock": "L"}]}]},
    {"threads": ["B", "A/t1"], "steps": [
      {"op": "sleep", "ms": 100},
      {"op": "repeat", "times": 3, "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 10, "lease_ms": 1000,
        "else": [{"op": "sleep", "ms": 5}]}]}]}]},
  "faults": {
    "schedule": [
      {"kind": "pause", "at_ms": 1000, "target": "A", "duration_ms": 35000},
      {"kind": "partition", "at_ms": 2000, "groups": [["B"], ["node0", "node1"]], "one_way": true, "duration_ms": 100},
      {"kind": "delay", "at_ms": 3000, "target": {"between": ["A", "node0"]}, "extra_ms": 50, "duration_ms": 10},
      {"kind": "crash", "at_ms": 4000, "target": "node1", "restart_after_ms": 1000},
      {"kind": "failover", "at_ms": 5000, "target": "node0", "promote": "node2"},
      {"kind": "lose_reply", "at_ms": 6000, "target": "B", "match": "EVAL", "replies": 2}],
    "random": {"window_ms": [0, 50000], "swarm": true, "kinds": [
      {"kind": "clock_jump", "count": [0, 2], "delta_ms": [-1000, 1000]},
      {"kind": "drop", "count": 1, "rate_ppm": [100000, 500000], "duration_ms": [10, 100]}]}},
  "checks": {"properties": ["mutual_exclusion", "fencing"], "liveness_bound_ms": 45000},
  "limits": {"max_events": 1000000}
})";

Scenario must_parse(const std::string& text) {
  Result<Scenario> r = parse_scenario_text(text, "demo.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : Scenario{};
}

std::string error_of(const std::string& text) {
  Result<Scenario> r = parse_scenario_text(text, "bad.json");
  if (r.ok()) return "(parsed fine)";
  return r.status().message();
}

// A minimal valid scenario with one field replaced or added (`patch` is merged at the top).
std::string with(const std::string& patch_json) {
  nlohmann::json base = nlohmann::json::parse(R"({
    "name": "x", "duration_ms": 10000, "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 2},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "lease_ms": 1000}]}]}})");
  base.merge_patch(nlohmann::json::parse(patch_json));
  return base.dump();
}

TEST(ParseTest, AFullScenarioParsesIntoTheStructs) {
  Scenario s = must_parse(kValid);
  EXPECT_EQ(s.name, "demo");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.expect.property, "mutual_exclusion");
  EXPECT_EQ(s.node_names, (std::vector<std::string>{"node0", "node1", "node2"}));
  EXPECT_EQ(s.nodes[0].options.persistence, kernel::Persistence::kAofEverysec);
  EXPECT_EQ(s.nodes[2].options.persistence, kernel::Persistence::kAofEverysec);
  EXPECT_EQ(s.nodes[2].clock.drift_ppm, 200);
  EXPECT_EQ(s.topology.failover_detection_ms, 3000);
  ASSERT_EQ(s.clients.size(), 2u);
  EXPECT_EQ(s.clients[0].threads, 2);
  EXPECT_EQ(s.clients[0].options.timeout_ms, 1000);
  EXPECT_EQ(s.clients[1].options.timeout_ms, 3000);
  EXPECT_EQ(s.network.defaults.latency.min_us, 300);
  ASSERT_EQ(s.workload.script.size(), 2u);
  EXPECT_EQ(s.workload.script[1].threads, (std::vector<std::string>{"B/t0", "A/t1"}));
  EXPECT_EQ(s.workload.script[0].steps[0].steps.size(), 3u);
  // 6 scheduled faults and the node clock's jump, numbered 1..7.
  ASSERT_EQ(s.schedule.size(), 7u);
  EXPECT_EQ(s.schedule[6].kind, FaultKind::kClockJump);
  EXPECT_EQ(s.schedule[6].target, "node2");
  EXPECT_EQ(s.schedule[6].id, 7);
  EXPECT_EQ(s.schedule[2].link.kind, LinkTarget::Kind::kBetween);
  ASSERT_TRUE(s.random.has_value());
  EXPECT_EQ(s.random->kinds.size(), 2u);
  EXPECT_EQ(s.checks.properties.size(), 2u);
  EXPECT_EQ(s.max_events, 1'000'000u);
}

TEST(ParseTest, ErrorsNameTheFileThePathWhatWasExpectedAndWhatWasFound) {
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "pause", "at_ms": 10, "target": "c1", "duration_ms": -5}]}})")),
            "bad.json: /faults/schedule/0/duration_ms: expected an integer (milliseconds) in [0, 2592000000], found -5");
  const std::string unknown_algorithm = error_of(with(R"({"algorithm": {"name": "nope"}})"));
  EXPECT_EQ(unknown_algorithm.rfind("bad.json: /algorithm/name: expected a known algorithm (", 0), 0u)
      << unknown_algorithm;
  EXPECT_NE(unknown_algorithm.find("\"set-nx-px\""), std::string::npos);
  EXPECT_NE(unknown_algorithm.find("found \"nope\""), std::string::npos);
  EXPECT_EQ(error_of(with(R"({"algorithm": {"name": "set-nx-px", "options": {"bogus": 1}}})")),
            "bad.json: /algorithm/options/bogus: unknown option (expected one of \"retry_delay_ms\")");
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "crash", "at_ms": 10, "target": "c9"}]}})")),
            "bad.json: /faults/schedule/0/target: expected the name of a client or a node, found \"c9\"");
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "clock_jump", "at_ms": 20000, "target": "c1", "delta_ms": 5}]}})")),
            "bad.json: /faults/schedule/0/at_ms: expected an integer (milliseconds, within the run) in [0, 10000], found 20000");
  EXPECT_NE(error_of(with(R"({"colour": "blue"})")).find("bad.json: /colour: unknown field (allowed here: "), std::string::npos);
}

// Issue 9: a step's at_ms is read on the thread's clock, so the check uses the clock's offset and
// drift: in a 10 s run, a clock 5 s slow never reads more than 5 s, and one 5 s fast already
// reads 5 s at the start.
TEST(ParseTest, AStepsAtMsIsCheckedOnTheThreadsOwnClock) {
  auto clients = [](const std::string& clock, int64_t at_ms) {
    return with(R"({"clients": [{"name": "A", "clock": )" + clock + R"(}, {"name": "B"}],
                   "workload": {"script": [{"threads": "A", "steps": [{"op": "lock", "lock": "L", "lease_ms": 1000, "at_ms": )" +
                std::to_string(at_ms) + "}]}]}}");
  };
  // No offset: 0..10000 as before.
  EXPECT_TRUE(parse_scenario_text(clients("{}", 10000), "c.json").ok());
  // 5 s slow: local 6000 is true 11000, after the run.
  EXPECT_EQ(error_of(clients(R"({"offset_ms": -5000})", 6000)),
            "bad.json: /workload/script/0/steps/0/at_ms: is 6000 ms, but A/t0's clock reads only 5000 ms when the run "
            "ends (duration_ms, with its clock's offset and drift): the step would never run");
  EXPECT_TRUE(parse_scenario_text(clients(R"({"offset_ms": -5000})", 5000), "c.json").ok());
  // 5 s fast: local 12000 is true 7000 (beyond duration_ms as a number, but inside the run) ...
  Result<Scenario> fast = parse_scenario_text(clients(R"({"offset_ms": 5000})", 12000), "c.json");
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  EXPECT_EQ(fast.value().workload.script[0].steps[0].at_ms, 12000);
  // ... and local 1000 has passed before the run starts.
  EXPECT_EQ(error_of(clients(R"({"offset_ms": 5000})", 1000)),
            "bad.json: /workload/script/0/steps/0/at_ms: is 1000 ms, but A/t0's clock already reads 5000 ms when the "
            "run starts (its offset_ms): the step would run at once; give at_ms >= 5000 or none");
  // Drift counts: +100000 ppm reads 11000 at the end of a 10 s run.
  EXPECT_TRUE(parse_scenario_text(clients(R"({"drift_ppm": 100000})", 11000), "c.json").ok());
  EXPECT_NE(error_of(clients(R"({"drift_ppm": -100000})", 9500)).find("reads only 9000 ms"), std::string::npos);
}

// Issue 15: a step may name the lock object it calls through, on the Redisson locks only.
TEST(ParseTest, AStepNamesItsLockObjectOnlyWhereObjectsCarryState) {
  const std::string step = R"({"workload": {"script": [{"threads": "c1", "steps": [{"op": "lock", "lock": "L", "lease_ms": 1000, "object": "o1"}, {"op": "unlock", "lock": "L", "object": "o1"}]}]}})";
  nlohmann::json redisson = nlohmann::json::parse(with(step));
  redisson["algorithm"] = {{"name", "redisson-lock"}};
  Result<Scenario> ok = parse_scenario_text(redisson.dump(), "o.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok.value().workload.script[0].steps[0].object, "o1");
  EXPECT_EQ(ok.value().workload.script[0].steps[1].object, "o1");
  EXPECT_EQ(error_of(with(step)),
            "bad.json: /workload/script/0/steps/0/object: this algorithm's lock objects carry no state; only the "
            "Redisson locks (not redisson-redlock) take \"object\"");
}

TEST(ParseTest, MoreErrors) {
  EXPECT_NE(error_of("{not json").find("bad.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of("[]"), "bad.json: /: expected an object, found an empty array");
  EXPECT_EQ(error_of(R"({"name": "x", "duration_ms": 10, "algorithm": {"name": "set-nx-px"}})"),
            "bad.json: /workload: missing: expected {\"script\": [...]} or {\"generator\": {...}}");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": [{"threads": "c3", "steps": []}]}})")),
            "bad.json: /workload/script/0/threads: expected \"all\", a client name, \"<client>/*\" or an existing thread like \"c1/t0\", found \"c3\"");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "jump"}]}]}})")),
            "bad.json: /workload/script/0/steps/0/op: expected one of \"lock\", \"try_lock\", \"tryLock\", \"unlock\", \"force_unlock\", \"forceUnlock\", \"hold\", \"sleep\", \"write\", \"repeat\", \"command\", \"eval\", found \"jump\"");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "mode": "read"}]}]}})")),
            "bad.json: /workload/script/0/steps/0/mode: expected one of \"exclusive\", found \"read\"");
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "failover", "at_ms": 1, "target": "node0"}]}})")),
            "bad.json: /faults/schedule/0/target: \"failover\" needs a \"replicated\" topology (see /topology)");
  EXPECT_EQ(error_of(with(R"({"nodes": {"node7": {}}})")),
            "bad.json: /nodes/node7: no such node in this topology (expected \"default\", \"node0\")");
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "partition", "at_ms": 1, "groups": [["c1"], ["c1"]]}]}})")),
            "bad.json: /faults/schedule/0/groups/1/0: \"c1\" is in two groups");
  EXPECT_EQ(error_of(with(R"({"expect": {"verdict": "violation"}})")),
            "bad.json: /expect/property: missing: a violation names the property it expects");
  EXPECT_EQ(error_of(with(R"({"clients": {"count": 100001}})")),
            "bad.json: /clients/count: expected an integer in [1, 100000], found 100001");
  EXPECT_EQ(error_of(with(R"({"network": {"latency": {"kind": "uniform", "min_us": 9, "max_us": 3}}})")),
            "bad.json: /network/latency/max_us: expected an integer (microseconds, >= min_us) in [9, 3600000000], found 3");
}

// Raw steps (docs/scenarios.md, "Raw steps"): any command or script, to a node the topology has.
TEST(ParseTest, RawStepsAreCheckedLikeEverythingElse) {
  auto step = [](const std::string& s, const std::string& topology = "") {
    return with(R"({"workload": {"script": [{"threads": "c1", "steps": [)" + s + "]}]}" +
                (topology.empty() ? "" : ", \"topology\": " + topology) + "}");
  };
  const Scenario ok = must_parse(step(R"({"op": "command", "argv": ["PERSIST", "L"], "at_ms": 5, "state_keys": ["L"]},
                                        {"op": "eval", "script": "return redis.call('del', KEYS[1])\n", "keys": ["L"], "args": ["1"]})"));
  ASSERT_EQ(ok.workload.script[0].steps.size(), 2u);
  EXPECT_EQ(ok.workload.script[0].steps[0].op, StepOp::kCommand);
  EXPECT_EQ(ok.workload.script[0].steps[0].argv, (std::vector<std::string>{"PERSIST", "L"}));
  EXPECT_EQ(ok.workload.script[0].steps[0].state_keys, (std::vector<std::string>{"L"}));
  EXPECT_EQ(ok.workload.script[0].steps[1].op, StepOp::kEval);
  EXPECT_EQ(ok.workload.script[0].steps[1].keys, (std::vector<std::string>{"L"}));
  const Scenario redlock = must_parse(step(R"({"op": "command", "argv": ["DEL", "L"], "node": "node2"})",
                                           R"({"kind": "independent", "masters": 3})"));
  EXPECT_EQ(redlock.workload.script[0].steps[0].endpoint, 2);
  EXPECT_EQ(error_of(step(R"({"op": "command"})")),
            "bad.json: /workload/script/0/steps/0/argv: missing: the command and its arguments, e.g. [\"PERSIST\", \"L\"]");
  EXPECT_EQ(error_of(step(R"({"op": "command", "argv": []})")),
            "bad.json: /workload/script/0/steps/0/argv: expected a non-empty array of at most 1024 strings, found an empty array");
  EXPECT_EQ(error_of(step(R"({"op": "command", "argv": ["PEXPIRE", "L", 5]})")),
            "bad.json: /workload/script/0/steps/0/argv/2: expected a string (numbers are sent as their text: \"30000\"), found 5");
  EXPECT_NE(error_of(step(R"({"op": "command", "argv": ["DEL", "\u001b[2J"]})"))
                .find("/workload/script/0/steps/0/argv/1: expected a command argument without control characters"),
            std::string::npos);
  EXPECT_EQ(error_of(step(R"({"op": "command", "argv": ["DEL", "L"], "node": "node3"})", R"({"kind": "independent", "masters": 3})")),
            "bad.json: /workload/script/0/steps/0/node: expected one of the masters (node0, node1, node2), found \"node3\"");
  EXPECT_NE(error_of(step(R"({"op": "command", "argv": ["DEL", "L"], "node": "node1"})", R"({"kind": "replicated", "replicas": 1})"))
                .find("/workload/script/0/steps/0/node: expected \"node0\": clients reach the master only"),
            std::string::npos);
  EXPECT_EQ(error_of(step(R"({"op": "eval", "keys": ["L"]})")),
            "bad.json: /workload/script/0/steps/0/script: missing: expected a non-empty string");
  EXPECT_NE(error_of(step(R"({"op": "eval", "script": "return 1\u0007"})")).find("control character U+0007 at byte 8"),
            std::string::npos);
  EXPECT_EQ(error_of(step(R"({"op": "eval", "script": "return 1", "argv": ["x"]})")).find("bad.json: /workload/script/0/steps/0/argv: unknown field"),
            0u);
}

// Regression (found by fuzz_scenario_parse): a number too large for a double made the second,
// diagnostic parse throw out_of_range, which was not caught.
TEST(ParseTest, NumberOverflowIsAnErrorNotACrash) {
  EXPECT_NE(error_of(R"({"name": "x", "duration_ms": 1e999999})").find("bad.json: not valid JSON: "),
            std::string::npos);
}

TEST(ParseTest, TheSeedDocumentsTestsAreExpressible) {
  // 1000 threads each tryLock(wait 10 ms, lease 10 s) on one lock: exactly one wins.
  Scenario a = must_parse(with(R"({"clients": {"count": 1, "threads": 1000},
      "workload": {"script": [{"threads": "all", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 10, "lease_ms": 10000}]}]}})"));
  EXPECT_EQ(a.workload.script[0].threads.size(), 1000u);
  // 100 threads tryLock(10 s, 5 ms) then unlock: all win.
  Scenario b = must_parse(with(R"({"clients": {"count": 1, "threads": 100},
      "workload": {"script": [{"threads": "all", "steps": [{"op": "tryLock", "lock": "L", "wait_ms": 10000, "lease_ms": 5,
        "then": [{"op": "unlock", "lock": "L"}]}]}]}})"));
  EXPECT_EQ(b.workload.script[0].steps[0].steps[0].op, StepOp::kUnlock);
}

// Random edits of a valid scenario: the parser either accepts or names the file; never crashes.
RC_GTEST_PROP(ParseProp, MutatedScenariosNeverCrashTheParser, (uint32_t pos, uint8_t byte, bool insert)) {
  std::string text = kValid;
  const size_t at = pos % text.size();
  if (insert) {
    text.insert(at, 1, static_cast<char>(byte));
  } else {
    text[at] = static_cast<char>(byte);
  }
  Result<Scenario> r = parse_scenario_text(text, "m.json");
  if (!r.ok()) {
    RC_ASSERT(r.status().message().rfind("m.json: ", 0) == 0);
    RC_ASSERT(is_printable(r.status().message()));
  }
}

// Issue 14: a key given twice in one object was accepted (the last won); it is refused with the
// path of the second one, at any depth, in objects inside arrays too.
TEST(ParseTest, DuplicateKeysAreRefusedWithTheirPath) {
  const std::string base = R"({"name": "x", "duration_ms": 1000, "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1}, "workload": {"script": [{"threads": "c1", "steps": [{"op": "hold", "ms": 1}, STEP]}]}})";
  auto with = [&](const std::string& step) {
    std::string t = base;
    t.replace(t.find("STEP"), 4, step);
    return t;
  };
  Result<Scenario> ok = parse_scenario_text(with(R"({"op": "lock", "lock": "L"})"), "d.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  Result<Scenario> dup = parse_scenario_text(with(R"({"op": "lock", "lock": "L", "lock": "M"})"), "d.json");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(), "d.json: /workload/script/0/steps/1/lock: duplicate key (each key may appear once in an object)");
  Result<Scenario> top = parse_scenario_text(R"({"name": "x", "name": "y", "duration_ms": 1000})", "t.json");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().message(), "t.json: /name: duplicate key (each key may appear once in an object)");
}

// Issue 14: a scenario or lock name over 1 MiB made `run` fail on its own history ("line longer
// than 1 MiB"), and a NUL in a name cut the printed report short. Names have a limit and no
// control characters, checked when the scenario is parsed.
TEST(ParseTest, NamesHaveALimitOf256Bytes) {
  const std::string n256(256, 'n');
  const std::string n257(257, 'n');
  EXPECT_EQ(must_parse(with(R"({"name": ")" + n256 + R"("})")).name, n256);
  EXPECT_EQ(error_of(with(R"({"name": ")" + n257 + R"("})")),
            "bad.json: /name: expected a scenario name of at most 256 bytes, found one of 257 bytes");
  EXPECT_EQ(error_of(with(R"({"name": ")" + std::string(2 << 20, 'x') + R"("})")),
            "bad.json: /name: expected a scenario name of at most 256 bytes, found one of 2097152 bytes");
  // Bytes, not characters: 129 two-byte characters are 258 bytes.
  std::string wide;
  for (int i = 0; i < 129; ++i) wide += "\u00e9";
  EXPECT_EQ(error_of(with(R"({"name": ")" + wide + R"("})")),
            "bad.json: /name: expected a scenario name of at most 256 bytes, found one of 258 bytes");
  auto lock_step = [](const std::string& lock) {
    return with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": ")" + lock + R"(", "lease_ms": 1000}]}]}})");
  };
  EXPECT_EQ(must_parse(lock_step(n256)).workload.script[0].steps[0].lock, n256);
  EXPECT_EQ(error_of(lock_step(n257)),
            "bad.json: /workload/script/0/steps/0/lock: expected a lock name of at most 256 bytes, found one of 257 bytes");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "write", "resource": ")" + n257 + R"("}]}]}})")),
            "bad.json: /workload/script/0/steps/0/resource: expected a resource name of at most 256 bytes, found one of 257 bytes");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": null, "generator": {"locks": ["a", ")" + n257 + R"("]}}})")),
            "bad.json: /workload/generator/locks/1: expected a lock name of at most 256 bytes, found one of 257 bytes");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": null, "generator": {"write": {"resource": ")" + n257 + R"("}}}})")),
            "bad.json: /workload/generator/write/resource: expected a resource name of at most 256 bytes, found one of 257 bytes");
  // A prefix leaves room for the numbers it is followed by: 100 locks need two digits.
  EXPECT_EQ(must_parse(with(R"({"workload": {"script": null, "generator": {"locks": {"count": 100, "prefix": ")" + std::string(254, 'p') + R"("}}}})"))
                .workload.generator->locks.back(),
            std::string(254, 'p') + "99");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": null, "generator": {"locks": {"count": 100, "prefix": ")" + std::string(255, 'p') + R"("}}}})")),
            "bad.json: /workload/generator/locks/prefix: expected a lock name prefix (with 100 locks) of at most 254 bytes, found one of 255 bytes");
  EXPECT_EQ(error_of(with(R"({"faults": {"schedule": [{"kind": "lose_reply", "at_ms": 1, "target": "c1", "match": ")" + n257 + R"("}]}})")),
            "bad.json: /faults/schedule/0/match: expected a command name of at most 256 bytes, found one of 257 bytes");
}

TEST(ParseTest, NamesRefuseControlCharacters) {
  EXPECT_EQ(error_of(with(R"({"name": "\u001b[2J ok"})")),
            "bad.json: /name: expected a scenario name without control characters, found \"\\x1b[2J ok\" (control character U+001B at byte 0)");
  EXPECT_EQ(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L\u0000zz"}]}]}})")),
            "bad.json: /workload/script/0/steps/0/lock: expected a lock name without control characters, found \"L\\x00zz\" (control character U+0000 at byte 1)");
  EXPECT_NE(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "then": [{"op": "unlock", "lock": "a\nb"}]}]}]}})"))
                .find("/workload/script/0/steps/0/then/0/lock: expected a lock name without control characters"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "force_unlock", "lock": "\u007f"}]}]}})"))
                .find("(control character U+007F at byte 0)"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"({"workload": {"script": [{"threads": "all", "steps": [{"op": "write", "resource": "R", "lock": "x\u009b"}]}]}})"))
                .find("/workload/script/0/steps/0/lock: expected a lock name without control characters, found \"x\\xc2\\x9b\" (control character U+009B at byte 1)"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"({"workload": {"script": null, "generator": {"locks": {"count": 2, "prefix": "\t"}}}})")).find("U+0009"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"({"workload": {"script": null, "generator": {"locks": ["ok", "\r"]}}})")).find("/workload/generator/locks/1: "),
            std::string::npos);
  // A long name is shown by its start; the byte offset says where the control character is.
  EXPECT_EQ(error_of(with(R"({"name": ")" + std::string(100, 'a') + R"(\u001b"})")),
            "bad.json: /name: expected a scenario name without control characters, found \"" + std::string(48, 'a') +
                "...\" (control character U+001B at byte 100)");
  // Printable text beyond ASCII is a fine name.
  EXPECT_EQ(must_parse(with(R"({"name": "verrou \u00e9 \u2713"})")).name, "verrou \xc3\xa9 \xe2\x9c\x93");
}

// Issue 14: error messages quote input (an unknown key, a file path); they never carry its raw
// control characters.
TEST(ParseTest, ErrorMessagesCarryNoControlCharacters) {
  const std::string unknown = error_of(with(R"({"\u001b[2J": 1})"));
  EXPECT_EQ(unknown.rfind("bad.json: /\\x1b[2J: unknown field (allowed here: ", 0), 0u) << unknown;
  EXPECT_TRUE(is_printable(unknown));
  Result<Scenario> r = parse_scenario_text("{", "a\x1b]0;title\x07.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("a\\x1b]0;title\\x07.json: not valid JSON", 0), 0u) << r.status().message();
  const std::string node = error_of(with(R"({"nodes": {"\u0007bell": {}}})"));
  EXPECT_EQ(node.rfind("bad.json: /nodes/\\x07bell: no such node", 0), 0u) << node;
}

}  // namespace
}  // namespace lockstep::scenario

namespace lockstep::scenario {
namespace {

// The generator's lease swarm: parsed with its paths in errors, and drawn once per seed.
TEST(ParseTest, TheLeaseSwarmIsCheckedAndPicksWholeSeeds) {
  const std::string base = R"({"name": "swarm", "algorithm": {"name": "set-nx-px"}, "duration_ms": 2000,
    "clients": {"count": 1, "threads": 2},
    "workload": {"generator": {"ops_per_thread": 3, "lease_ms": [-1], "hold_ms": 1, "lease_swarm": )";
  EXPECT_EQ(error_of(base + R"({"percent": 101, "lease_ms": 777}}}})"),
            "bad.json: /workload/generator/lease_swarm/percent: expected an integer (percent of seeds) in [0, 100], found 101");
  EXPECT_EQ(error_of(base + R"({"percent": 10}}}})"),
            "bad.json: /workload/generator/lease_swarm/lease_ms: missing: the leases of the seeds the swarm picks");
  EXPECT_NE(error_of(base + R"({"percent": 10, "lease_ms": 0}}}})").find("/workload/generator/lease_swarm/lease_ms"),
            std::string::npos);
  // percent 100: every seed draws its leases from the swarm's list; 0: none does.
  for (int percent : {0, 100}) {
    const Scenario s = must_parse(base + R"({"percent": )" + std::to_string(percent) + R"(, "lease_ms": 777}}}})");
    EXPECT_EQ(s.workload.generator->lease_swarm_ms, std::vector<int64_t>{777});
    RunOptions o;
    o.seed = 5;
    Result<RunReport> r = run_scenario(s, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value().history.find("\"lease_ms\": 777") != std::string::npos, percent == 100) << percent;
  }
}

}  // namespace
}  // namespace lockstep::scenario
