// A Redis reply in RESP2 terms.
//
// The node model's command handlers return Replies; the RESP writer turns them into bytes for
// `lockstep serve`, and the Lua host converts them to Lua values for redis.call. The shape is the
// RESP2 shape exactly, so that "the same reply as Redis" is a plain equality test.
#ifndef LOCKSTEP_SIM_REDIS_REPLY_H_
#define LOCKSTEP_SIM_REDIS_REPLY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::redis {

struct Reply {
  enum class Type : uint8_t {
    kStatus,    // +OK
    kError,     // -ERR ... (text without the leading '-')
    kInteger,   // :1
    kBulk,      // $3\r\nfoo
    kNil,       // $-1 (nil bulk)
    kNilArray,  // *-1 (nil multi-bulk)
    kArray,     // *N
  };

  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;              // kStatus, kError, kBulk
  std::vector<Reply> elements;  // kArray

  static Reply status(std::string_view s) { return Reply(Type::kStatus, 0, s); }
  static Reply ok() { return status("OK"); }
  static Reply error(std::string_view s) { return Reply(Type::kError, 0, s); }
  static Reply integer_of(int64_t v) { return Reply(Type::kInteger, v, {}); }
  static Reply bulk(std::string_view s) { return Reply(Type::kBulk, 0, s); }
  static Reply nil() { return Reply(); }
  static Reply nil_array() { return Reply(Type::kNilArray, 0, {}); }
  static Reply array(std::vector<Reply> elements) {
    Reply r(Type::kArray, 0, {});
    r.elements = std::move(elements);
    return r;
  }

  bool is_error() const { return type == Type::kError; }
  friend bool operator==(const Reply&, const Reply&) = default;

 private:
  Reply(Type t, int64_t i, std::string_view s) : type(t), integer(i), str(s) {}

 public:
  Reply() = default;
};

// A short human-readable rendering, as redis-cli prints it; for test failure messages and logs.
std::string describe(const Reply& reply);

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_REPLY_H_
