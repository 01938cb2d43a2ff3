#include "sim/core/files.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

namespace lockstep {
namespace {

// Issue 14: `check`, `run` and `report` on a directory or a missing file said "Error reading the
// file." or "unexpected end of input"; each now names the file and the problem.
TEST(FilesTest, InputFilesAreCheckedWithOneWording) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(check_input_file(dir, "the history").message(), dir + ": the history: is a directory, not a file");
  EXPECT_EQ(check_input_file(dir + "/lockstep-no-such-file", "the scenario file").message(),
            dir + "/lockstep-no-such-file: the scenario file: no such file");
  EXPECT_EQ(check_input_file("/dev/null", "input").message(), "/dev/null: input: not a regular file");
  EXPECT_EQ(check_input_file("/dev/null", "the history", /*allow_pipe=*/true).message(),
            "/dev/null: the history: not a regular file or a pipe");
  // A named pipe, with allow_pipe only (not opened: that would wait for a writer).
  const std::string fifo = testing::TempDir() + "/files_test.fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(check_input_file(fifo, "input").message(), fifo + ": input: not a regular file");
  EXPECT_TRUE(check_input_file(fifo, "the history", /*allow_pipe=*/true).ok());
  std::remove(fifo.c_str());
  const std::string file = dir + "/lockstep-files-test.txt";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  EXPECT_TRUE(check_input_file(file, "input").ok());
  std::remove(file.c_str());
}

}  // namespace
}  // namespace lockstep
