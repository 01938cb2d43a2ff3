// A Redis reply with the type Redis 7.0 gives it: the RESP2 types, and the RESP3 types that
// carry more meaning (map, set, double, boolean, verbatim string, big number, push).
//
// The node model's command handlers return Replies typed as Redis builds them (HGETALL a map,
// SMEMBERS a set, ZSCORE a double, a pub/sub message a push), as Redis's addReplyMapLen,
// addReplySetLen, addReplyDouble... do. A connection's protocol decides the bytes: the RESP
// writer (sim/resp/writer.h) writes RESP3 as it is and RESP2 as Redis 7.0 writes each type to
// a RESP2 client — which to_resp2() below gives as a Reply, for the simulator and everything
// else that has no wire protocol. The two nils stay apart ("$-1" and "*-1" in RESP2, both "_"
// in RESP3), so "the same reply as Redis" is a plain equality test in either protocol.
#ifndef LOCKSTEP_SIM_REDIS_REPLY_H_
#define LOCKSTEP_SIM_REDIS_REPLY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::redis {

struct Reply {
  enum class Type : uint8_t {
    // RESP2 (and RESP3) types.
    kStatus,    // +OK
    kError,     // -ERR ... (text without the leading '-')
    kInteger,   // :1
    kBulk,      // $3\r\nfoo
    kNil,       // $-1 (nil bulk; RESP3 "_")
    kNilArray,  // *-1 (nil multi-bulk; RESP3 "_")
    kArray,     // *N
    // RESP3 types; to_resp2() says what each is to a RESP2 client.
    kMap,        // %N: elements are key, value, key, value... (RESP2: a flat array of 2N)
    kSet,        // ~N (RESP2: an array)
    kDouble,     // ,1.5: str is the number as Redis prints it ("%.17g", "inf", "-inf", "nan")
                 //       (RESP2: that text as a bulk string)
    kBool,       // #t / #f: integer is 1 or 0 (RESP2: the integer)
    kVerbatim,   // =N\r\ntxt:...: str is the 3-byte format, ':', the text (RESP2: the text)
    kBigNumber,  // (123: str is the digits (RESP2: a bulk string)
    kPush,       // >N: out-of-band data, a pub/sub message (RESP2: an array)
  };

  Type type = Type::kNil;
  int64_t integer = 0;          // kInteger, kBool
  std::string str;              // kStatus, kError, kBulk, kDouble, kVerbatim, kBigNumber
  std::vector<Reply> elements;  // kArray, kMap, kSet, kPush

  static Reply status(std::string_view s) { return Reply(Type::kStatus, 0, s); }
  static Reply ok() { return status("OK"); }
  static Reply error(std::string_view s) { return Reply(Type::kError, 0, s); }
  static Reply integer_of(int64_t v) { return Reply(Type::kInteger, v, {}); }
  static Reply bulk(std::string_view s) { return Reply(Type::kBulk, 0, s); }
  static Reply nil() { return Reply(); }
  static Reply nil_array() { return Reply(Type::kNilArray, 0, {}); }
  static Reply array(std::vector<Reply> elements) { return aggregate(Type::kArray, std::move(elements)); }
  // A map from its keys and values, interleaved. REQUIRES: an even number of elements.
  static Reply map(std::vector<Reply> keys_and_values);
  static Reply set(std::vector<Reply> members) { return aggregate(Type::kSet, std::move(members)); }
  static Reply push(std::vector<Reply> elements) { return aggregate(Type::kPush, std::move(elements)); }
  // A double as Redis's addReplyDouble prints it: "inf", "-inf", otherwise "%.17g".
  static Reply double_of(double value);
  // A double from its printed form (a parsed reply).
  static Reply double_text(std::string_view text) { return Reply(Type::kDouble, 0, text); }
  static Reply boolean(bool value) { return Reply(Type::kBool, value ? 1 : 0, {}); }
  // A verbatim string as addReplyVerbatim writes it: the format's bytes up to its first NUL,
  // cut or padded with spaces to 3, then ':' and the text.
  static Reply verbatim(std::string_view format, std::string_view text);
  static Reply big_number(std::string_view digits) { return Reply(Type::kBigNumber, 0, digits); }

  bool is_error() const { return type == Type::kError; }
  bool is_nil() const { return type == Type::kNil || type == Type::kNilArray; }
  // True for the types with elements (array, map, set, push).
  bool is_aggregate() const {
    return type == Type::kArray || type == Type::kMap || type == Type::kSet || type == Type::kPush;
  }
  // kVerbatim: the format ("txt") and the text after it.
  std::string_view verbatim_format() const { return std::string_view(str).substr(0, 3); }
  std::string_view verbatim_text() const { return std::string_view(str).substr(4); }

  friend bool operator==(const Reply&, const Reply&) = default;

 private:
  Reply(Type t, int64_t i, std::string_view s) : type(t), integer(i), str(s) {}
  static Reply aggregate(Type t, std::vector<Reply> elements) {
    Reply r(t, 0, {});
    r.elements = std::move(elements);
    return r;
  }

 public:
  Reply() = default;
};

// What a RESP2 client receives for `reply` (Redis 7.0): maps flattened to arrays of keys and
// values, sets and pushes as arrays, doubles, big numbers and verbatim strings as bulk strings
// (a verbatim string without its format), booleans as the integers 1 and 0; the nils and every
// RESP2 type as they are. The result holds only RESP2 types.
Reply to_resp2(Reply reply);
// True when `reply` holds only RESP2 types (to_resp2 would change nothing).
bool is_resp2(const Reply& reply);

// A short human-readable rendering, as redis-cli prints it; for test failure messages and logs.
std::string describe(const Reply& reply);

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_REPLY_H_
