// An incremental parser for client requests, mirroring Redis 7.0's (networking.c).
//
// A server hands the parser the bytes it reads from a connection, in whatever pieces they
// arrive, and asks for complete requests one at a time. Both request forms are understood:
// multibulk ("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", what client libraries send) and inline
// ("ECHO hi\r\n", what a person types). Malformed input gets exactly the protocol error a real
// redis-server 7.0 gives for the same bytes (checked against one), after which the parser is
// dead and the server must reply with the error and close the connection. Empty requests
// ("\r\n", "*0\r\n", "*-1\r\n") are skipped silently, as Redis skips them.
//
// Limits (RequestLimits) bound memory whatever the client sends:
// - more than max_line_bytes (64 KiB, Redis's PROTO_INLINE_MAX_SIZE) buffered without the end
//   of an inline line, or of a "*N"/"$N" count line, is "too big inline request" / "too big
//   mbulk count string" / "too big bulk count string". Like Redis (LineLimit::kRedis), the
//   check is made on what has arrived: a longer line whose end arrives together with the bytes
//   that cross the limit is accepted, so the verdict on such lines depends on how the bytes
//   were split (a server reading 16 KiB at a time, as Redis and `lockstep serve` do, sees the
//   same splits as Redis). LineLimit::kStrict refuses every line longer than the limit,
//   whatever the split (for split-independence properties).
// - a bulk longer than max_bulk_bytes (512 MiB, Redis's proto-max-bulk-len) is "invalid bulk
//   length"; a multibulk count above max_multibulk_count (INT_MAX, as in Redis) is "invalid
//   multibulk length". Neither count is ever pre-allocated.
// - buffered bytes plus the arguments parsed so far of the pending request (their bytes plus
//   kArgOverheadBytes each, and three times the argument vector's capacity in std::string
//   objects: the vector and the copy its next growth makes) may not exceed max_query_bytes
//   (1 GiB, Redis's client-query-buffer-limit); the arguments alone are also checked after
//   every argument. Past it the parser reports kQueryLimit and, as Redis does, the server closes
//   the connection without a reply. So the memory one request holds while it is parsed stays
//   near the limit however many (empty) arguments it has.
#ifndef LOCKSTEP_SIM_RESP_REQUEST_PARSER_H_
#define LOCKSTEP_SIM_RESP_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::resp {

enum class LineLimit : uint8_t { kRedis, kStrict };

struct RequestLimits {
  size_t max_line_bytes = 64 * 1024;
  LineLimit line_limit = LineLimit::kRedis;
  int64_t max_bulk_bytes = 512LL * 1024 * 1024;
  int64_t max_multibulk_count = 2147483647;
  size_t max_query_bytes = 1024ULL * 1024 * 1024;
};

// What RequestParser::next() found.
enum class ParseStatus {
  kNeedMore,       // no complete request buffered; feed more bytes
  kRequest,        // argv() holds the next request (at least one argument)
  kProtocolError,  // error() holds Redis's reply text; reply with it and close
  kQueryLimit,     // the query buffer limit was passed; close without a reply
};

class RequestParser {
 public:
  // Memory charged per parsed argument on top of its bytes and the argument vector, for
  // max_query_bytes: at least the protocol bytes an argument's header takes ("$N\r\n…\r\n"),
  // so that parsing an argument never lowers the charge and the verdict does not depend on how
  // the bytes were split.
  static constexpr size_t kArgOverheadBytes = sizeof(std::string);

  explicit RequestParser(RequestLimits limits = RequestLimits());

  // Appends bytes read from the connection. Bytes fed after a failure are ignored.
  void feed(std::string_view bytes);

  // Parses the next request from the buffered bytes. After kProtocolError or kQueryLimit every
  // later call returns the same status: the connection is beyond repair.
  ParseStatus next();

  // The request found by the last next() that returned kRequest; valid until the next call.
  const std::vector<std::string>& argv() const { return argv_; }
  // REQUIRES: the last next() returned kProtocolError. Redis's error text without the leading
  // '-', e.g. "ERR Protocol error: invalid bulk length".
  const std::string& error() const;

  // Bytes received and not yet consumed by a complete request.
  size_t buffered_bytes() const { return buf_.size() - pos_; }
  const RequestLimits& limits() const { return limits_; }

 private:
  enum class Kind : uint8_t { kUnknown, kInline, kMultibulk };

  ParseStatus parse_inline();
  ParseStatus parse_multibulk();
  ParseStatus read_multibulk_count();
  ParseStatus read_bulk_length();
  ParseStatus fail(std::string message);
  // Offset from pos_ of the first `terminator` before any NUL byte, or npos (Redis uses strchr).
  size_t find_terminator(char terminator);
  // Consumes `bytes` buffered bytes.
  void advance(size_t bytes);
  bool over_query_limit() const;
  // The argument vector's capacity and the copy its next growth makes, in bytes.
  size_t argv_vector_bytes() const;
  void compact();

  RequestLimits limits_;
  std::string buf_;
  size_t pos_ = 0;
  size_t scanned_ = 0;  // bytes after pos_ known to hold neither the terminator sought nor a NUL
  Kind kind_ = Kind::kUnknown;
  int64_t multibulk_left_ = 0;  // arguments still to read of the current multibulk request
  int64_t bulk_len_ = -1;       // length of the bulk being read, -1 before its "$N" line
  std::vector<std::string> argv_;
  size_t argv_charge_ = 0;      // bytes charged to argv_ for max_query_bytes
  bool request_ready_ = false;  // argv_ holds a request handed out by the last next()
  ParseStatus failed_ = ParseStatus::kNeedMore;  // kProtocolError/kQueryLimit once failed
  std::string error_;
};

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_REQUEST_PARSER_H_
