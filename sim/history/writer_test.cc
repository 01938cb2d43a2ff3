#include "sim/history/writer.h"

#include "sim/history/json_text.h"
#include "sim/core/zstd_file.h"

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

// Fields short and plain enough for the one-append path and fields that are not (long, or
// needing escapes) must give the same text as writing each piece the general way.
TEST(WriterTest, FastAndGeneralPathsWriteTheSameText) {
  auto q = [](std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
  };
  const std::string long_value(300, 'v');
  const std::vector<std::string> many(40, std::string("element-") + "0123456789");
  const std::vector<std::string> few = {"a", "", "c"};
  // The longest key fills most of a field's 256-byte piece with its long value.
  constexpr Writer::Key kLongKey("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
  static_assert(kLongKey.text().size() == Writer::Key::kMaxSize);
  for (const std::string& value : {std::string("plain"), std::string("tab\there"), std::string(180, 'v'),
                                   std::string(200, 'v'), long_value}) {
    for (const Writer::Key& key : {Writer::Key("k"), kLongKey}) {
      Writer w;
      w.begin(5, "ty\npe").str(key, value).num(key, INT64_MIN).strings(key, many).strings(key, few).end();
      const std::string k = "\"" + std::string(key.text()) + "\"";
      std::string want = "{\"t\": 5, \"type\": \"ty\\npe\", " + k + ": " + q(value) + ", " + k +
                         ": -9223372036854775808, " + k + ": [";
      for (size_t i = 0; i < many.size(); ++i) want += (i > 0 ? ", " : "") + q(many[i]);
      want += "], " + k + ": [\"a\", \"\", \"c\"]}\n";
      EXPECT_EQ(w.text(), want) << key.text() << " / " << value;
      EXPECT_NO_THROW((void)nlohmann::json::parse(w.text()));
    }
  }
}

// A key known only at run time (an algorithm's header field) is escaped like any string.
TEST(WriterTest, ARunTimeKeyIsEscaped) {
  Writer w;
  w.begin_header();
  w.value_of_any_key("plain") += "1";
  w.value_of_any_key("k\"e\ny") += "[2]";
  w.end();
  EXPECT_EQ(w.text(), "{\"lockstep_history\": 1, \"plain\": 1, \"k\\\"e\\ny\": [2]}\n");
  const nlohmann::json j = nlohmann::json::parse(w.text());
  EXPECT_EQ(j["k\"e\ny"], nlohmann::json::array({2}));
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

// A compressed file holds, once decompressed, exactly the text a memory writer builds; the size
// limit counts that text, not the compressed bytes.
TEST(WriterTest, ACompressedFileIsTheSameTextInOneZstdFrame) {
  const std::string dir = ::testing::TempDir() + "/writer_test_zstd";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/history.jsonl.zst";
  auto fill = [](Writer& w, int lines) {
    w.begin_header().str("scenario", "s").end();
    for (int i = 0; i < lines; ++i) w.begin(i, "exec").str("node", "node0").num("seq", i * 7).end();
  };
  const int lines = 100'000;  // several flushes of the writer's 1 MiB buffer
  Writer memory;
  fill(memory, lines);
  auto w = Writer::to_file(path, uint64_t{1} << 30, Writer::Compression::kZstd);
  ASSERT_TRUE(w.ok());
  fill(*w.value(), lines);
  ASSERT_TRUE(w.value()->finish().ok());
  EXPECT_EQ(w.value()->bytes(), memory.text().size());
  const std::string bytes = slurp(path);
  ASSERT_TRUE(is_zstd(bytes));
  EXPECT_LT(bytes.size() * 10, memory.text().size());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string text;
  {
    ZstdReader r(f, "");
    char buf[65536];
    for (;;) {
      Result<size_t> n = r.read(buf, sizeof buf);
      ASSERT_TRUE(n.ok()) << n.status().message();
      if (n.value() == 0) break;
      text.append(buf, n.value());
    }
  }
  std::fclose(f);
  EXPECT_EQ(text, memory.text());

  auto small = Writer::to_file(path, 1000, Writer::Compression::kZstd);
  ASSERT_TRUE(small.ok());
  fill(*small.value(), 100);  // about 5 kB of text, a few hundred bytes compressed
  Status s = small.value()->finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("limit of 1000 bytes"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
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

// A line over the format's 1 MiB (a script's 2 MB reply) fails the history with a message
// naming the line and its event, where it used to be written and then refused by the checker as
// "a bug". A line of exactly 1 MiB is written.
TEST(WriterTest, ALineOverTheFormatsLimitFailsTheHistory) {
  const std::string dir = ::testing::TempDir() + "/writer_test_line";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/history.jsonl";
  auto w = Writer::to_file(path, Writer::kDefaultMaxBytes);
  ASSERT_TRUE(w.ok());
  w.value()->begin_header().end();
  const std::string fixed = R"({"t": 1, "type": "exec", "reply": ""})";
  w.value()->begin(1, "exec").str("reply", std::string(Writer::kMaxLineBytes - fixed.size(), 'x')).end();
  EXPECT_FALSE(w.value()->io_failed());
  w.value()->begin(2, "exec").str("reply", std::string(Writer::kMaxLineBytes - fixed.size() + 1, 'x')).end();
  EXPECT_TRUE(w.value()->io_failed());
  w.value()->begin(3, "end").end();
  const Status s = w.value()->finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("writing the history failed: line 3 (an exec event) would be 1048577 bytes, and a "
                             "history line is at most 1 MiB"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  Writer memory;
  memory.append_line(std::string(Writer::kMaxLineBytes + 1, ' '), 0);
  EXPECT_NE(memory.io_error().message().find("line 1 (the header) would be 1048577 bytes"), std::string::npos);
}

TEST(WriterTest, AnUnwritableDirectoryIsAClearError) {
  auto w = Writer::to_file("/nonexistent-dir/history.jsonl", 100);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("/nonexistent-dir/history.jsonl.tmp"), std::string::npos);
}

}  // namespace
}  // namespace lockstep::history
