#include "sim/core/zstd_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim/core/rng.h"

namespace lockstep {
namespace {

// A temporary file, deleted at the end of the test.
class TempFile {
 public:
  TempFile() : file_(std::tmpfile()) { EXPECT_NE(file_, nullptr); }
  ~TempFile() { std::fclose(file_); }
  std::FILE* get() const { return file_; }
  std::string contents() const {
    std::rewind(file_);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }
  void replace(const std::string& bytes) {
    std::FILE* f = std::tmpfile();
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(file_);
    file_ = f;
  }

 private:
  std::FILE* file_;
};

std::string compress(const std::string& text, size_t piece) {
  TempFile f;
  ZstdWriter w(f.get());
  for (size_t i = 0; i < text.size(); i += piece) EXPECT_TRUE(w.write(std::string_view(text).substr(i, piece)).ok());
  EXPECT_TRUE(w.finish().ok());
  std::fflush(f.get());
  return f.contents();
}

// Decompresses `bytes` as the history reader does: the first `prefix` bytes read by the caller,
// then pieces of at most `piece` bytes.
Result<std::string> decompress(const std::string& bytes, size_t prefix, size_t piece) {
  TempFile f;
  f.replace(bytes.substr(prefix));
  std::rewind(f.get());
  ZstdReader r(f.get(), std::string_view(bytes).substr(0, prefix));
  std::string out(piece, '\0');
  std::string text;
  for (;;) {
    Result<size_t> n = r.read(out.data(), piece);
    if (!n.ok()) return n.status();
    if (n.value() == 0) return text;
    text.append(out, 0, n.value());
  }
}

std::string history_like(size_t lines, uint64_t seed) {
  Rng rng(seed);
  std::string text;
  for (size_t i = 0; i < lines; ++i) {
    text += "{\"t\": " + std::to_string(i * 100 + rng.below(100)) + ", \"type\": \"exec\", \"seq\": " +
            std::to_string(rng.below(1'000'000)) + "}\n";
  }
  return text;
}

TEST(Zstd, RecognizesItsMagicNumberOnly) {
  EXPECT_TRUE(is_zstd(std::string("\x28\xb5\x2f\xfd", 4)));
  EXPECT_TRUE(is_zstd(compress("x", 1)));
  EXPECT_FALSE(is_zstd("{\"lockstep_history\": 1}"));
  EXPECT_FALSE(is_zstd(std::string("\x28\xb5\x2f", 3)));
  EXPECT_FALSE(is_zstd(""));
}

TEST(Zstd, RoundTripsWhateverThePieces) {
  for (uint64_t seed : {1, 2, 3}) {
    const std::string text = history_like(20'000 * seed, seed);
    for (size_t wpiece : {size_t{1} << 20, size_t{777}}) {
      const std::string z = compress(text, wpiece);
      EXPECT_LT(z.size() * 4, text.size());  // it does compress
      for (size_t prefix : {size_t{4}, size_t{16}}) {
        for (size_t rpiece : {size_t{1}, size_t{4096}, size_t{1} << 22}) {
          if (rpiece == 1 && seed > 1) continue;  // byte by byte once is enough
          Result<std::string> back = decompress(z, prefix, rpiece);
          ASSERT_TRUE(back.ok()) << back.status().message();
          EXPECT_EQ(back.value(), text) << "seed " << seed << " read piece " << rpiece;
        }
      }
    }
  }
}

TEST(Zstd, EmptyTextIsAnEmptyFrame) {
  const std::string z = compress("", 1);
  EXPECT_TRUE(is_zstd(z));
  Result<std::string> back = decompress(z, 4, 100);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), "");
}

TEST(Zstd, FramesOneAfterAnotherReadAsOneText) {
  const std::string a = history_like(100, 7), b = history_like(50, 8);
  Result<std::string> back = decompress(compress(a, 64) + compress(b, 64), 4, 333);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), a + b);
}

TEST(Zstd, ATruncatedStreamIsAnErrorNotAShortText) {
  const std::string z = compress(history_like(5'000, 4), 1 << 20);
  for (size_t keep : {z.size() - 1, z.size() / 2, size_t{8}}) {
    Result<std::string> back = decompress(z.substr(0, keep), 4, 4096);
    ASSERT_FALSE(back.ok()) << "kept " << keep << " of " << z.size() << " bytes";
    EXPECT_NE(back.status().message().find("ends in the middle of a frame"), std::string::npos)
        << back.status().message();
  }
}

TEST(Zstd, GarbageIsAnErrorThatSaysSo) {
  std::string z = compress(history_like(1'000, 5), 1 << 20);
  for (size_t i = z.size() / 3; i < z.size(); ++i) z[i] = static_cast<char>(z[i] ^ 0x5a);
  Result<std::string> back = decompress(z, 4, 4096);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("zstd"), std::string::npos) << back.status().message();
  // Bytes after a complete frame that are no frame.
  Result<std::string> tail = decompress(compress("abc\n", 4) + "not zstd at all", 4, 4096);
  ASSERT_FALSE(tail.ok());
  EXPECT_NE(tail.status().message().find("not a valid zstd stream"), std::string::npos) << tail.status().message();
}

}  // namespace
}  // namespace lockstep
