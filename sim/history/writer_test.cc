#include "sim/history/writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace lockstep::history {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WriterTest, BuildsOneJsonObjectPerLine) {
  Writer w;
  w.begin_header().str("scenario", "s").num("seed", 42).end();
  std::vector<std::string> keys = {"a", "b\"c"};
  w.begin(10, "exec").str("node", "node0").strings("keys", keys).null("reply").end();
  w.begin(10, "end").boolean("complete", true).end();
  EXPECT_EQ(w.text(),
            "{\"lockstep_history\": 1, \"scenario\": \"s\", \"seed\": 42}\n"
            "{\"t\": 10, \"type\": \"exec\", \"node\": \"node0\", \"keys\": [\"a\", \"b\\\"c\"], "
            "\"reply\": null}\n"
            "{\"t\": 10, \"type\": \"end\", \"complete\": true}\n");
  EXPECT_EQ(w.lines(), 3u);
}

TEST(WriterTest, WritesThroughATemporaryNameAndRenamesOnFinish) {
  const std::string dir = ::testing::TempDir() + "/writer_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/history.jsonl";
  std::filesystem::remove(path);
  auto w = Writer::to_file(path, 1 << 20);
  ASSERT_TRUE(w.ok());
  w.value()->begin_header().end();
  w.value()->begin(5, "end").boolean("complete", true).end();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
  ASSERT_TRUE(w.value()->finish().ok());
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(slurp(path), "{\"lockstep_history\": 1}\n{\"t\": 5, \"type\": \"end\", \"complete\": true}\n");
}

TEST(WriterTest, ExceedingTheLimitIsAnErrorAndLeavesNoFile) {
  const std::string dir = ::testing::TempDir() + "/writer_test_limit";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/history.jsonl";
  auto w = Writer::to_file(path, 100);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 10; ++i) w.value()->begin(i, "node").str("node", "node0").end();
  Status s = w.value()->finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("limit of 100 bytes"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(WriterTest, AnUnwritableDirectoryIsAClearError) {
  auto w = Writer::to_file("/nonexistent-dir/history.jsonl", 100);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("/nonexistent-dir/history.jsonl.tmp"), std::string::npos);
}

}  // namespace
}  // namespace lockstep::history
