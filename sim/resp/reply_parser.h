// An incremental parser for RESP2 and RESP3 replies: the client side of the protocol.
//
// Used where lockstep talks to a server itself and must tell every reply shape apart — the
// differential test's raw comparisons, the serve tests, benchmark B1 — including the nil bulk
// ("$-1") and the nil array ("*-1") that hiredis's default reader both report as NIL. RESP3's
// types become the matching redis::Reply types: "_" a nil (kNil), "%" a map, "~" a set, ">" a
// push, "," a double (its text kept as sent), "#" a boolean, "=" a verbatim string, "(" a big
// number; attributes ("|") and blob errors ("!"), which Redis 7.0 never sends for the model's
// commands, are errors. Bytes may arrive in any split; a reply is handed out only once all of
// it is buffered. Malformed input is an error value, never a crash, and nesting, bulk lengths
// and element counts are bounded.
#ifndef LOCKSTEP_SIM_RESP_REPLY_PARSER_H_
#define LOCKSTEP_SIM_RESP_REPLY_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/redis/reply.h"

namespace lockstep::resp {

struct ReplyLimits {
  int max_depth = 1000;                     // array nesting
  int64_t max_bulk_bytes = 512LL * 1024 * 1024;
  int64_t max_elements = 1LL << 24;         // elements of one array
};

enum class ReplyStatus { kNeedMore, kReply, kError };

class ReplyParser {
 public:
  explicit ReplyParser(ReplyLimits limits = ReplyLimits());

  // Appends received bytes.
  void feed(std::string_view bytes);

  // Parses the next complete reply into *out. kError is sticky: the stream cannot be resynced.
  ReplyStatus next(redis::Reply* out);

  // REQUIRES: the last next() returned kError. What was wrong and at which byte offset.
  const std::string& error() const;

  // The exact bytes of the last reply handed out (for byte-level comparisons).
  std::string_view last_reply_bytes() const { return last_bytes_; }
  size_t buffered_bytes() const { return buf_.size() - pos_; }

 private:
  enum class Step { kDone, kNeedMore, kError };
  Step parse(size_t& at, int depth, redis::Reply& out);
  Step parse_line(size_t& at, std::string_view& line);
  Step parse_length(size_t& at, int64_t& n);
  Step parse_aggregate(size_t& at, char type, int depth, redis::Reply& out);
  Step parse_bulk(size_t& at, std::string_view& payload, bool& nil);
  Step parse_resp3_line(size_t& at, char type, redis::Reply& out);
  Step bad(size_t at, std::string what);

  ReplyLimits limits_;
  std::string buf_;
  size_t pos_ = 0;
  size_t consumed_total_ = 0;  // bytes consumed before pos_ over the parser's life
  std::string last_bytes_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_REPLY_PARSER_H_
