// The two ways a run's history reaches the checkers give the same result: text written and read
// back (lockstep run), or events handed over as they are recorded (explore's seeds,
// direct_history.h). Every library scenario, its result.json compared byte for byte; and the
// history-size limit, which the direct way keeps with a bound.
#include "harness/scenario/direct_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"
#include "harness/scenario/world.h"

namespace lockstep::scenario {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> library() {
  std::vector<std::string> out;
  const fs::path root = fs::path(LOCKSTEP_SOURCE_DIR);
  for (const std::string& f : scenario_files((root / "scenarios").string())) {
    out.push_back(fs::relative(f, root).generic_string());
  }
  return out;
}

class DirectHistoryLibraryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DirectHistoryLibraryTest, SameResultAsTheText) {
  Result<Scenario> s = load_scenario((fs::path(LOCKSTEP_SOURCE_DIR) / GetParam()).string());
  ASSERT_TRUE(s.ok()) << s.status().message();
  RunOptions text_options;
  Result<RunReport> text = run_scenario(s.value(), text_options);
  ASSERT_TRUE(text.ok()) << text.status().message();
  RunOptions direct_options;
  direct_options.history_text = false;
  Result<RunReport> direct = run_scenario(s.value(), direct_options);
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_EQ(direct.value().result.dump(2), text.value().result.dump(2));
  EXPECT_TRUE(direct.value().history.empty());

  // The bound holds: at least the text's size.
  DirectHistory sink("history.jsonl");
  history::Recorder rec(&sink);
  World world(s.value(), s.value().seed, rec, kernel::redis_node_model_factory(), false);
  ASSERT_TRUE(world.run().ok());
  EXPECT_GE(sink.bytes_bound(), text.value().history.size());
  Result<checker::History> h = sink.finish();
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h.value().lines, static_cast<uint64_t>(std::count(text.value().history.begin(),
                                                              text.value().history.end(), '\n')));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(std::string("scenarios/").size());
  n = n.substr(0, n.size() - std::string(".json").size());
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Library, DirectHistoryLibraryTest, ::testing::ValuesIn(library()), test_name);

// A command that blocked (python-redis-lock's BLPOP on its signal list, never answered: the holder
// crashed and nothing expires its key) reaches the checkers the same both ways, and its story
// names the blocked BLPOP.
TEST(DirectHistoryTest, ABlockedCommandReadsTheSame) {
  std::ifstream in(fs::path(LOCKSTEP_SOURCE_DIR) / "scenarios/edge/liveness-crashed-holder-watchdog.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["algorithm"] = {{"name", "python-redis-lock"}};
  Result<Scenario> s = parse_scenario_text(doc.dump(), "blocked.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<RunReport> text = run_scenario(s.value(), RunOptions{});
  ASSERT_TRUE(text.ok()) << text.status().message();
  ASSERT_NE(text.value().history.find(R"("command": "BLPOP", "op": 2, "args": ["lock-signal:L", "0"], "blocked": true})"),
            std::string::npos)
      << text.value().history;
  RunOptions direct_options;
  direct_options.history_text = false;
  Result<RunReport> direct = run_scenario(s.value(), direct_options);
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_EQ(direct.value().result.dump(2), text.value().result.dump(2));
  EXPECT_NE(text.value().result.dump().find("after that its BLPOP on node0 blocked at"), std::string::npos);
}

// A run whose history passes limits.max_history_bytes fails the same way both ways; one whose
// bound passes the limit but whose text does not is run again with text, and passes.
TEST(DirectHistoryTest, TheSizeLimitIsTheTexts) {
  const std::string base = R"({
    "name": "limit", "duration_ms": DURATION, "algorithm": {"name": "redisson-lock"},
    "clients": {"count": 4},
    "workload": {"generator": {"ops_per_thread": 100000, "locks": ["L"], "hold_ms": [1, 5], "think_ms": [0, 5]}},
    "limits": {"max_history_bytes": 1048576}})";
  int over = 0;
  int rerun = 0;
  std::string sizes;  // for a failure's message
  for (const char* duration : {"300", "600", "900", "1200", "20000"}) {
    std::string text = base;
    text.replace(text.find("DURATION"), 8, duration);
    Result<Scenario> s = parse_scenario_text(text, "limit.json");
    ASSERT_TRUE(s.ok()) << s.status().message();
    Result<RunReport> with_text = run_scenario(s.value(), RunOptions{});
    RunOptions direct_options;
    direct_options.history_text = false;
    Result<RunReport> direct = run_scenario(s.value(), direct_options);
    ASSERT_EQ(direct.ok(), with_text.ok()) << duration;
    if (!with_text.ok()) {
      EXPECT_EQ(direct.status().message(), with_text.status().message());
      EXPECT_NE(with_text.status().message().find("max_history_bytes"), std::string::npos);
      ++over;
      continue;
    }
    EXPECT_EQ(direct.value().result.dump(), with_text.value().result.dump());
    DirectHistory sink("history.jsonl");
    history::Recorder rec(&sink);
    World world(s.value(), s.value().seed, rec, kernel::redis_node_model_factory(), false);
    ASSERT_TRUE(world.run().ok());
    if (sink.bytes_bound() > s.value().max_history_bytes) ++rerun;
    sizes += std::string(duration) + " ms: text " + std::to_string(with_text.value().history.size()) + ", bound " +
             std::to_string(sink.bytes_bound()) + "; ";
  }
  EXPECT_GE(over, 1) << sizes;   // the limit was passed by at least one
  EXPECT_GE(rerun, 1) << sizes;  // and the bound alone by another
}

}  // namespace
}  // namespace lockstep::scenario
