#include "sim/resp/reply_parser.h"

#include <optional>

#include "sim/core/assert.h"
#include "sim/resp/parse_int.h"

namespace lockstep::resp {

using redis::Reply;

ReplyParser::ReplyParser(ReplyLimits limits) : limits_(limits) {
  LS_ASSERT(limits_.max_depth > 0);
  LS_ASSERT(limits_.max_bulk_bytes >= 0);
}

void ReplyParser::feed(std::string_view bytes) {
  if (failed_) return;
  buf_.append(bytes.data(), bytes.size());
}

const std::string& ReplyParser::error() const {
  LS_ASSERT(failed_);
  return error_;
}

ReplyStatus ReplyParser::next(Reply* out) {
  LS_ASSERT(out != nullptr);
  if (failed_) return ReplyStatus::kError;
  size_t at = pos_;
  Reply reply;
  const Step step = parse(at, 0, reply);
  if (step == Step::kError) return ReplyStatus::kError;
  if (step == Step::kNeedMore) return ReplyStatus::kNeedMore;
  LS_ASSERT(at > pos_);
  last_bytes_.assign(buf_, pos_, at - pos_);
  consumed_total_ += at - pos_;
  buf_.erase(0, at);
  pos_ = 0;
  *out = std::move(reply);
  return ReplyStatus::kReply;
}

ReplyParser::Step ReplyParser::bad(size_t at, std::string what) {
  failed_ = true;
  error_ = "malformed RESP reply at byte " + std::to_string(consumed_total_ + at) + ": " + what;
  return Step::kError;
}

ReplyParser::Step ReplyParser::parse_line(size_t& at, std::string_view& line) {
  const size_t cr = buf_.find("\r\n", at);
  if (cr == std::string::npos) return Step::kNeedMore;
  line = std::string_view(buf_).substr(at, cr - at);
  at = cr + 2;
  return Step::kDone;
}

ReplyParser::Step ReplyParser::parse_length(size_t& at, int64_t& n) {
  const size_t start = at;
  std::string_view line;
  if (parse_line(at, line) == Step::kNeedMore) return Step::kNeedMore;
  const std::optional<int64_t> v = redis_string_to_int64(line);
  if (!v) return bad(start, "bad number '" + std::string(line.substr(0, 32)) + "'");
  n = *v;
  return Step::kDone;
}

// *N, %N (N key/value pairs), ~N, >N; "*-1" is the nil array.
ReplyParser::Step ReplyParser::parse_aggregate(size_t& at, char type, int depth, Reply& out) {
  const size_t start = at;
  int64_t n = 0;
  if (Step s = parse_length(at, n); s != Step::kDone) return s;
  if (n == -1 && type == '*') {
    out = Reply::nil_array();
    return Step::kDone;
  }
  if (n < 0 || n > limits_.max_elements) return bad(start, "bad aggregate length");
  if (depth + 1 > limits_.max_depth) return bad(start, "aggregates nested too deep");
  const int64_t count = type == '%' ? 2 * n : n;
  std::vector<Reply> elements;
  // Elements are added as they parse, never reserved from the declared count: a hostile count
  // must not allocate memory before its elements arrive.
  for (int64_t i = 0; i < count; i++) {
    Reply e;
    if (Step s = parse(at, depth + 1, e); s != Step::kDone) return s;
    elements.push_back(std::move(e));
  }
  switch (type) {
    case '%': out = Reply::map(std::move(elements)); break;
    case '~': out = Reply::set(std::move(elements)); break;
    case '>': out = Reply::push(std::move(elements)); break;
    default: out = Reply::array(std::move(elements)); break;
  }
  return Step::kDone;
}

// $N or =N: N bytes and CRLF; "$-1" sets `nil`.
ReplyParser::Step ReplyParser::parse_bulk(size_t& at, std::string_view& payload, bool& nil) {
  const size_t start = at;
  int64_t n = 0;
  if (Step s = parse_length(at, n); s != Step::kDone) return s;
  nil = n == -1;
  if (nil) return Step::kDone;
  if (n < -1 || n > limits_.max_bulk_bytes) return bad(start, "bad bulk length");
  const size_t len = static_cast<size_t>(n);
  if (buf_.size() - at < len + 2) return Step::kNeedMore;
  if (buf_.compare(at + len, 2, "\r\n") != 0) return bad(at + len, "bulk not ended by CRLF");
  payload = std::string_view(buf_).substr(at, len);
  at += len + 2;
  return Step::kDone;
}

// The one-line RESP3 types: _ (null), , (double), # (boolean), ( (big number).
ReplyParser::Step ReplyParser::parse_resp3_line(size_t& at, char type, Reply& out) {
  const size_t start = at;
  std::string_view line;
  if (parse_line(at, line) == Step::kNeedMore) return Step::kNeedMore;
  switch (type) {
    case '_':
      if (!line.empty()) return bad(start, "null with a payload");
      out = Reply::nil();
      return Step::kDone;
    case ',':
      if (line.empty()) return bad(start, "empty double");
      out = Reply::double_text(line);
      return Step::kDone;
    case '#':
      if (line != "t" && line != "f") return bad(start, "bad boolean");
      out = Reply::boolean(line == "t");
      return Step::kDone;
    default:
      if (line.empty()) return bad(start, "empty big number");
      out = Reply::big_number(line);
      return Step::kDone;
  }
}

ReplyParser::Step ReplyParser::parse(size_t& at, int depth, Reply& out) {
  LS_ASSERT(depth <= limits_.max_depth);
  if (at >= buf_.size()) return Step::kNeedMore;
  const char type = buf_[at++];
  std::string_view line;
  switch (type) {
    case '+':
    case '-':
      if (parse_line(at, line) == Step::kNeedMore) return Step::kNeedMore;
      out = type == '+' ? Reply::status(line) : Reply::error(line);
      return Step::kDone;
    case ':': {
      int64_t n = 0;
      if (Step s = parse_length(at, n); s != Step::kDone) return s;
      out = Reply::integer_of(n);
      return Step::kDone;
    }
    case '$':
    case '=': {
      const size_t start = at;
      std::string_view payload;
      bool nil = false;
      if (Step s = parse_bulk(at, payload, nil); s != Step::kDone) return s;
      if (nil && type == '$') {
        out = Reply::nil();
      } else if (type == '$') {
        out = Reply::bulk(payload);
      } else if (nil || payload.size() < 4 || payload[3] != ':') {
        return bad(start, "verbatim string without a format");
      } else {
        out = Reply::verbatim(payload.substr(0, 3), payload.substr(4));
      }
      return Step::kDone;
    }
    case '*':
    case '%':
    case '~':
    case '>':
      return parse_aggregate(at, type, depth, out);
    case '_':
    case ',':
    case '#':
    case '(':
      return parse_resp3_line(at, type, out);
    default:
      return bad(at - 1, std::string("unknown reply type byte ") +
                             std::to_string(static_cast<unsigned char>(type)));
  }
}

}  // namespace lockstep::resp
