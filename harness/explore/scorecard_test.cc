// The scorecard: cells that run, cells that do not apply (with the parser's reason), the
// scenario's own algorithm with its own options, and outputs that are the same every time.
#include "harness/explore/scorecard.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace lockstep::explore {
namespace {

const std::string kEdge = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/edge/";

TEST(ScorecardTest, EveryAlgorithmMeetsEveryEdgeCaseOrSaysWhyNot) {
  const std::vector<std::string> files = {kEdge + "redisson-lock-failover-wait.json",
                                          kEdge + "redlock-spec-restart-no-persistence.json"};
  const std::vector<ScoredAlgorithm> algos = {{"redisson-lock", ""}, {"redsync", ""}};
  Result<Scorecard> card = run_scorecard(files, algos, "");
  ASSERT_TRUE(card.ok()) << card.status().message();
  const Scorecard& c = card.value();
  ASSERT_EQ(c.cells.size(), 4u);
  EXPECT_EQ(c.scenarios, (std::vector<std::string>{"redisson-lock-failover-wait", "redlock-spec-restart-no-persistence"}));
  // Row 1: the scenario's own algorithm keeps its options (WAIT for the replica): ok, as the
  // library expects; redsync needs independent masters: does not apply, with the reason.
  EXPECT_EQ(c.cells[0].algorithm, "redisson-lock");
  EXPECT_EQ(c.cells[0].verdict, "ok");
  EXPECT_FALSE(c.cells[1].applies);
  EXPECT_NE(c.cells[1].why_not.find("independent"), std::string::npos) << c.cells[1].why_not;
  // Row 2: redisson-lock runs on the first master alone (a single-node lock beside the others);
  // redsync loses its quorum to the restart without persistence.
  EXPECT_TRUE(c.cells[2].applies);
  EXPECT_EQ(c.cells[2].properties.at("quorum"), "not_applicable");
  EXPECT_EQ(c.cells[3].verdict, "violation");
  EXPECT_EQ(c.cells[3].properties.at("quorum"), "violation");

  const std::string csv = c.to_csv();
  EXPECT_EQ(csv.rfind("algorithm,scenario,property,verdict\n", 0), 0u);
  EXPECT_NE(csv.find("redsync,redisson-lock-failover-wait,-,not_applicable\n"), std::string::npos);
  EXPECT_NE(csv.find("redsync,redlock-spec-restart-no-persistence,quorum,violation\n"), std::string::npos);
  const std::string html = c.to_html();
  EXPECT_NE(html.find("<table id=\"scorecard\">"), std::string::npos);
  EXPECT_NE(html.find("does not apply"), std::string::npos);
  EXPECT_NE(html.find("data-verdict=\"violation\""), std::string::npos);
  EXPECT_EQ(c.to_json()["cells"].size(), 4u);

  // The same inputs give the same scorecard.
  Result<Scorecard> again = run_scorecard(files, algos, "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().to_json().dump(), c.to_json().dump());
}

TEST(ScorecardTest, WithAnOutputFolderEachCellLinksToItsReport) {
  const std::string dir = std::filesystem::temp_directory_path() / ("lockstep-scorecard-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Result<Scorecard> card = run_scorecard({kEdge + "redisson-lock-short-lease.json"}, {{"set-nx-px", ""}}, dir);
  ASSERT_TRUE(card.ok()) << card.status().message();
  ASSERT_EQ(card.value().cells.size(), 1u);
  const ScorecardCell& cell = card.value().cells[0];
  EXPECT_EQ(cell.report, "runs/set-nx-px/redisson-lock-short-lease/report.html");
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + cell.report));
  EXPECT_NE(card.value().to_html().find("href=\"runs/set-nx-px/redisson-lock-short-lease/report.html\""),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ScorecardTest, AFileThatIsNotJsonIsAnErrorNamingIt) {
  const std::string file = std::filesystem::temp_directory_path() / ("lockstep-scorecard-bad-" + std::to_string(::getpid()) + ".json");
  FILE* f = std::fopen(file.c_str(), "w");
  std::fputs("not json", f);
  std::fclose(f);
  Result<Scorecard> card = run_scorecard({file}, {{"set-nx-px", ""}}, "");
  ASSERT_FALSE(card.ok());
  EXPECT_NE(card.status().message().find(file), std::string::npos);
  std::remove(file.c_str());
}

}  // namespace
}  // namespace lockstep::explore
