#include "sim/resp/request_parser.h"

#include <algorithm>
#include <optional>

#include "sim/core/assert.h"
#include "sim/resp/parse_int.h"
#include "sim/resp/split_args.h"

namespace lockstep::resp {
namespace {

constexpr char kProtocolError[] = "ERR Protocol error: ";
// Consumed bytes are dropped from the front of the buffer once they are this many and at least
// half of it, so a long pipeline costs amortised O(1) per byte.
constexpr size_t kCompactMinBytes = 4096;

}  // namespace

RequestParser::RequestParser(RequestLimits limits) : limits_(limits) {
  LS_ASSERT(limits_.max_line_bytes > 0);
  LS_ASSERT(limits_.max_bulk_bytes >= 0);
  LS_ASSERT(limits_.max_multibulk_count >= 0);
}

void RequestParser::feed(std::string_view bytes) {
  if (failed_ != ParseStatus::kNeedMore) return;
  buf_.append(bytes.data(), bytes.size());
  LS_ASSERT(pos_ <= buf_.size());
}

const std::string& RequestParser::error() const {
  LS_ASSERT(failed_ == ParseStatus::kProtocolError);
  LS_ASSERT(!error_.empty());
  return error_;
}

ParseStatus RequestParser::next() {
  if (failed_ != ParseStatus::kNeedMore) return failed_;
  if (request_ready_) {
    argv_.clear();
    argv_charge_ = 0;
    request_ready_ = false;
  }
  // Each round either returns or consumes at least one byte (an empty request), so the loop is
  // bounded by the bytes buffered.
  const size_t max_rounds = buffered_bytes() + 1;
  for (size_t round = 0; round < max_rounds; round++) {
    if (kind_ == Kind::kUnknown) {
      if (pos_ == buf_.size()) break;
      kind_ = buf_[pos_] == '*' ? Kind::kMultibulk : Kind::kInline;
    }
    const ParseStatus status = kind_ == Kind::kInline ? parse_inline() : parse_multibulk();
    if (status != ParseStatus::kRequest) {
      if (status == ParseStatus::kNeedMore) break;
      return status;
    }
    kind_ = Kind::kUnknown;
    if (argv_.empty()) continue;  // "\r\n", "*0\r\n", "*-1\r\n": Redis ignores these
    request_ready_ = true;
    compact();
    return ParseStatus::kRequest;
  }
  if (over_query_limit()) {
    failed_ = ParseStatus::kQueryLimit;
    return failed_;
  }
  compact();
  return ParseStatus::kNeedMore;
}

ParseStatus RequestParser::fail(std::string message) {
  LS_ASSERT(failed_ == ParseStatus::kNeedMore);
  error_ = kProtocolError + message;
  failed_ = ParseStatus::kProtocolError;
  return failed_;
}

bool RequestParser::over_query_limit() const {
  // The argument vector's capacity, and the copy its next growth makes, count too: 34 million
  // empty arguments cost over a gigabyte in std::string objects alone, however few bytes they
  // carried.
  return buffered_bytes() + argv_charge_ + argv_vector_bytes() > limits_.max_query_bytes;
}

size_t RequestParser::argv_vector_bytes() const {
  // Nothing parsed yet of the pending request: the capacity a previous request left is no cost
  // of this one (and counting it would depend on where the bytes were split).
  return argv_.empty() ? 0 : 3 * argv_.capacity() * sizeof(std::string);
}

void RequestParser::compact() {
  LS_ASSERT(pos_ <= buf_.size());
  if (pos_ == 0) return;
  if (pos_ == buf_.size() || (pos_ >= kCompactMinBytes && pos_ * 2 >= buf_.size())) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

size_t RequestParser::find_terminator(char terminator) {
  // Strict: only the first max_line_bytes + 1 bytes matter, a terminator further away is refused
  // anyway. Redis: the whole buffer is searched (it holds at most the limit plus one read).
  // Scanning resumes where the last call stopped, so a client trickling a long line in one byte
  // at a time costs O(line) in total, not O(line^2).
  const size_t window = limits_.line_limit == LineLimit::kStrict
                            ? std::min(buffered_bytes(), limits_.max_line_bytes + 1)
                            : buffered_bytes();
  LS_ASSERT(scanned_ <= window);
  for (size_t i = scanned_; i < window; i++) {
    const char c = buf_[pos_ + i];
    if (c == terminator) return i;
    if (c == '\0') {  // strchr stops at a NUL: this line never ends
      scanned_ = i;
      return std::string::npos;
    }
  }
  scanned_ = window;
  return std::string::npos;
}

void RequestParser::advance(size_t bytes) {
  LS_ASSERT(bytes > 0);
  LS_ASSERT(pos_ + bytes <= buf_.size());
  pos_ += bytes;
  scanned_ = 0;
}

ParseStatus RequestParser::parse_inline() {
  LS_ASSERT(kind_ == Kind::kInline);
  const size_t newline = find_terminator('\n');
  if (newline == std::string::npos) {
    if (buffered_bytes() > limits_.max_line_bytes) return fail("too big inline request");
    return ParseStatus::kNeedMore;
  }
  size_t line_len = newline;
  if (line_len > 0 && buf_[pos_ + line_len - 1] == '\r') line_len--;
  std::optional<std::vector<std::string>> args =
      split_inline_args(std::string_view(buf_).substr(pos_, line_len));
  if (!args) return fail("unbalanced quotes in request");
  advance(newline + 1);
  LS_ASSERT(argv_.empty());
  argv_ = std::move(*args);
  return ParseStatus::kRequest;
}

ParseStatus RequestParser::read_multibulk_count() {
  const size_t cr = find_terminator('\r');
  if (cr == std::string::npos) {
    if (buffered_bytes() > limits_.max_line_bytes) return fail("too big mbulk count string");
    return ParseStatus::kNeedMore;
  }
  if (cr + 2 > buffered_bytes()) return ParseStatus::kNeedMore;  // the '\n' must be there too
  LS_ASSERT(buf_[pos_] == '*');
  const std::optional<int64_t> count =
      redis_string_to_int64(std::string_view(buf_).substr(pos_ + 1, cr - 1));
  if (!count || *count > limits_.max_multibulk_count) return fail("invalid multibulk length");
  advance(cr + 2);
  multibulk_left_ = std::max<int64_t>(*count, 0);
  return ParseStatus::kRequest;
}

ParseStatus RequestParser::read_bulk_length() {
  const size_t cr = find_terminator('\r');
  if (cr == std::string::npos) {
    if (buffered_bytes() > limits_.max_line_bytes) return fail("too big bulk count string");
    return ParseStatus::kNeedMore;
  }
  if (cr + 2 > buffered_bytes()) return ParseStatus::kNeedMore;
  const char first = buf_[pos_];
  if (first != '$') {
    // Redis formats the byte with %c and then turns CR and LF into spaces.
    const char shown = first == '\r' || first == '\n' ? ' ' : first;
    return fail(std::string("expected '$', got '") + shown + "'");
  }
  const std::optional<int64_t> len =
      redis_string_to_int64(std::string_view(buf_).substr(pos_ + 1, cr - 1));
  if (!len || *len < 0 || *len > limits_.max_bulk_bytes) return fail("invalid bulk length");
  advance(cr + 2);
  bulk_len_ = *len;
  return ParseStatus::kRequest;
}

ParseStatus RequestParser::parse_multibulk() {
  LS_ASSERT(kind_ == Kind::kMultibulk);
  if (multibulk_left_ == 0) {
    LS_ASSERT(argv_.empty());
    const ParseStatus s = read_multibulk_count();
    if (s != ParseStatus::kRequest || multibulk_left_ == 0) return s;
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ < 0) {
      const ParseStatus s = read_bulk_length();
      if (s != ParseStatus::kRequest) return s;
    }
    LS_ASSERT(bulk_len_ >= 0);
    const size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (buffered_bytes() < need) return ParseStatus::kNeedMore;
    // Like Redis, the two bytes after the bulk are skipped without checking they are "\r\n".
    argv_.emplace_back(buf_.data() + pos_, static_cast<size_t>(bulk_len_));
    argv_charge_ += static_cast<size_t>(bulk_len_) + kArgOverheadBytes;
    advance(need);
    bulk_len_ = -1;
    multibulk_left_--;
    // The arguments alone: bytes buffered behind them may belong to later requests, and
    // counting those would make the verdict depend on how the bytes were split.
    if (argv_charge_ + argv_vector_bytes() > limits_.max_query_bytes) {
      failed_ = ParseStatus::kQueryLimit;
      return failed_;
    }
  }
  LS_ASSERT(!argv_.empty());
  return ParseStatus::kRequest;
}

}  // namespace lockstep::resp
