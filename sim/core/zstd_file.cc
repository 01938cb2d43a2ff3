#include "sim/core/zstd_file.h"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include "sim/core/assert.h"

namespace lockstep {

bool is_zstd(std::string_view first_bytes) {
  static constexpr unsigned char kMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  return first_bytes.size() >= 4 && std::memcmp(first_bytes.data(), kMagic, 4) == 0;
}

// --- writing -------------------------------------------------------------------------------

struct ZstdWriter::Impl {
  ZSTD_CCtx* cctx = nullptr;
  std::FILE* file = nullptr;
  std::vector<char> out;
  Status error;
  bool finished = false;
};

ZstdWriter::ZstdWriter(std::FILE* file) : impl_(std::make_unique<Impl>()) {
  LS_ASSERT(file != nullptr);
  impl_->file = file;
  impl_->cctx = ZSTD_createCCtx();
  if (impl_->cctx == nullptr) throw std::bad_alloc();
  // The frame carries a checksum of its text: a damaged file is an error, not a wrong history.
  LS_ASSERT(!ZSTD_isError(ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_compressionLevel, kLevel)));
  LS_ASSERT(!ZSTD_isError(ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_checksumFlag, 1)));
  impl_->out.resize(ZSTD_CStreamOutSize());
}

ZstdWriter::~ZstdWriter() { ZSTD_freeCCtx(impl_->cctx); }

Status ZstdWriter::drain(std::string_view text, bool end) {
  Impl& m = *impl_;
  if (!m.error.ok()) return m.error;
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{m.out.data(), m.out.size(), 0};
    const size_t left = ZSTD_compressStream2(m.cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left)) {
      m.error = Status::error(std::string("zstd compression failed: ") + ZSTD_getErrorName(left));
      return m.error;
    }
    if (out.pos > 0 && std::fwrite(m.out.data(), 1, out.pos, m.file) != out.pos) {
      m.error = Status::error(std::string("write failed: ") + std::strerror(errno));
      return m.error;
    }
    // Done when zstd took all the input and, at the end, flushed the whole frame.
    if (end ? left == 0 : in.pos == in.size) return Status::ok_status();
  }
}

Status ZstdWriter::write(std::string_view text) {
  LS_ASSERT(!impl_->finished);
  if (text.empty()) return impl_->error;
  return drain(text, /*end=*/false);
}

Status ZstdWriter::finish() {
  LS_ASSERT(!impl_->finished);
  impl_->finished = true;
  return drain({}, /*end=*/true);
}

// --- reading -------------------------------------------------------------------------------

struct ZstdReader::Impl {
  ZSTD_DCtx* dctx = nullptr;
  std::FILE* file = nullptr;
  std::vector<char> in;
  ZSTD_inBuffer input{nullptr, 0, 0};
  // What the last ZSTD_decompressStream returned: 0 once a frame is complete and flushed.
  size_t last = 1;
  bool file_at_end = false;
};

ZstdReader::ZstdReader(std::FILE* file, std::string_view prefix) : impl_(std::make_unique<Impl>()) {
  LS_ASSERT(file != nullptr);
  Impl& m = *impl_;
  m.file = file;
  m.dctx = ZSTD_createDCtx();
  if (m.dctx == nullptr) throw std::bad_alloc();
  m.in.resize(std::max(ZSTD_DStreamInSize(), prefix.size()));
  std::memcpy(m.in.data(), prefix.data(), prefix.size());
  m.input = {m.in.data(), prefix.size(), 0};
}

ZstdReader::~ZstdReader() { ZSTD_freeDCtx(impl_->dctx); }

Result<size_t> ZstdReader::read(char* out, size_t size) {
  LS_ASSERT(size > 0);
  Impl& m = *impl_;
  ZSTD_outBuffer output{out, size, 0};
  while (output.pos == 0) {
    if (m.input.pos == m.input.size && !m.file_at_end) {
      const size_t n = std::fread(m.in.data(), 1, m.in.size(), m.file);
      if (n == 0) {
        if (std::ferror(m.file)) return Status::error(std::string("read failed: ") + std::strerror(errno));
        m.file_at_end = true;
      } else {
        m.input = {m.in.data(), n, 0};
      }
    }
    const bool no_more_input = m.input.pos == m.input.size && m.file_at_end;
    if (no_more_input && m.last == 0) return size_t{0};  // every frame complete and flushed
    // With no input left, the call only flushes what the decoder still holds.
    m.last = ZSTD_decompressStream(m.dctx, &output, &m.input);
    if (ZSTD_isError(m.last)) {
      return Status::error(std::string("not a valid zstd stream: ") + ZSTD_getErrorName(m.last));
    }
    if (no_more_input && output.pos == 0 && m.last != 0) {
      return Status::error("the zstd stream ends in the middle of a frame (a truncated file?)");
    }
  }
  return output.pos;
}

// --- a file's text, plain or compressed ------------------------------------------------

TextReader::TextReader(std::FILE* file) : file_(file) {
  LS_ASSERT(file != nullptr);
  char magic[4];
  const size_t n = std::fread(magic, 1, sizeof magic, file_);
  const std::string_view first(magic, n);
  if (is_zstd(first)) {
    zstd_ = std::make_unique<ZstdReader>(file_, first);
  } else {
    unread_.assign(first);
  }
}

TextReader::~TextReader() = default;

Result<size_t> TextReader::read(char* out, size_t size) {
  if (zstd_ != nullptr) return zstd_->read(out, size);
  if (!unread_.empty()) {
    const size_t n = std::min(size, unread_.size());
    std::memcpy(out, unread_.data(), n);
    unread_.erase(0, n);
    return n;
  }
  const size_t n = std::fread(out, 1, size, file_);
  if (n == 0 && std::ferror(file_)) return Status::error(std::string("read failed: ") + std::strerror(errno));
  return n;
}

// --- a file's text as a stream ------------------------------------------------------------

struct TextInput::Impl : std::streambuf {
  std::string path;
  std::FILE* file = nullptr;
  std::unique_ptr<TextReader> text;
  std::vector<char> buf = std::vector<char>(size_t{1} << 16);
  Status error;
  std::istream in{this};

  ~Impl() override {
    text.reset();
    if (file != nullptr) std::fclose(file);
  }

  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    Result<size_t> n = text->read(buf.data(), buf.size());
    if (!n.ok()) {
      error = Status::error(path + ": " + n.status().message());
      return traits_type::eof();
    }
    if (n.value() == 0) return traits_type::eof();
    setg(buf.data(), buf.data(), buf.data() + n.value());
    return traits_type::to_int_type(*gptr());
  }
};

TextInput::TextInput() : impl_(std::make_unique<Impl>()) {}
TextInput::~TextInput() = default;

Result<std::unique_ptr<TextInput>> TextInput::open(const std::string& path) {
  std::unique_ptr<TextInput> t(new TextInput());
  Impl& m = *t->impl_;
  m.path = path;
  m.file = std::fopen(path.c_str(), "rb");
  if (m.file == nullptr) return Status::error(path + ": cannot open: " + std::strerror(errno));
  m.text = std::make_unique<TextReader>(m.file);
  return t;
}

std::istream& TextInput::stream() { return impl_->in; }

Status TextInput::error() const { return impl_->error; }

}  // namespace lockstep
