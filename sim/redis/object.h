// The values a key can hold: string, hash, list, set, sorted set.
//
// One C++ type per Redis type, held in a std::variant whose index is the Redis type. Each type's
// operations live beside its commands (t_set.cc holds SetValue's methods, t_zset.cc ZSetValue's),
// as in Redis's source. Orders are deterministic everywhere: hashes keep insertion order, sets of
// integers are ascending (Redis's intset) and other sets keep insertion order, sorted sets are
// ordered by (score, member bytes).
#ifndef LOCKSTEP_SIM_REDIS_OBJECT_H_
#define LOCKSTEP_SIM_REDIS_OBJECT_H_

#include <cstdint>
#include <deque>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "sim/redis/ordered_map.h"

namespace lockstep::redis {

// The index of each alternative in Value; also Redis's TYPE names in kTypeNames.
enum class ObjType : uint8_t { kString = 0, kHash = 1, kList = 2, kSet = 3, kZSet = 4 };
inline constexpr const char* kTypeNames[] = {"string", "hash", "list", "set", "zset"};

// A hash: fields in insertion order (see ordered_map.h). Small hashes are packed into one buffer
// of [field length][field][value length][value] records, as Redis's listpack packs them: a lock's
// one-field hash is then a single allocation, read with one cache miss. The hash moves to an
// OrderedMap for good, keeping its order, exactly when Redis 7.0 converts its listpack to a
// hashtable: past kMaxPackedFields fields, or when a field or value longer than kMaxPackedValue
// is written (so is_packed() is what OBJECT ENCODING reports).
class HashValue {
 public:
  static constexpr size_t kMaxPackedFields = 128;  // hash-max-listpack-entries
  static constexpr size_t kMaxPackedValue = 64;    // hash-max-listpack-value

  HashValue() = default;
  HashValue(const HashValue& other)
      : buffer_(other.buffer_),
        dict_(other.dict_ ? std::make_unique<OrderedMap<std::string>>(*other.dict_) : nullptr) {}
  HashValue& operator=(const HashValue& other) {
    if (this != &other) *this = HashValue(other);
    return *this;
  }
  HashValue(HashValue&&) noexcept = default;
  HashValue& operator=(HashValue&&) noexcept = default;

  size_t size() const;
  bool empty() const { return dict_ ? dict_->empty() : buffer_.empty(); }
  // The value of `field`; the view is valid until the hash changes.
  std::optional<std::string_view> get(std::string_view field) const;
  // Sets a field (a new one goes last; an existing one keeps its place). True if it was new.
  bool set(std::string_view field, std::string_view value);
  // Removes a field. True if it was present.
  bool erase(std::string_view field);
  // Redis's hashTypeTryConversion: leaves the packed encoding if either argument is too long for
  // it, whether or not anything is then written (HSETNX of an existing field converts too).
  void convert_for(std::string_view field, std::string_view value) {
    if (!dict_ && (field.size() > kMaxPackedValue || value.size() > kMaxPackedValue)) unpack();
  }
  bool is_packed() const { return !dict_; }
  // Calls fn(field, value) for every field in order.
  template <typename Fn>
  void for_each(Fn&& fn) const;
  // Starts loading the packed records into the cache (the next command will read them).
  void prefetch() const {
    if (!dict_) __builtin_prefetch(buffer_.data());
  }

 private:
  // Offset of the record of `field` in buffer_, or npos; *count gets the records scanned.
  size_t find_packed(std::string_view field, size_t* count = nullptr) const;
  void unpack();

  // Packed records while dict_ is null. Kept to 40 bytes so that a Value fits in 48.
  std::string buffer_;
  std::unique_ptr<OrderedMap<std::string>> dict_;
};
using ListValue = std::deque<std::string>;
// Removes and returns the head (or the tail) element. REQUIRES: !list.empty().
inline std::string list_pop(ListValue& list, bool head) {
  std::string v = head ? std::move(list.front()) : std::move(list.back());
  if (head) {
    list.pop_front();
  } else {
    list.pop_back();
  }
  return v;
}

// A set. While every member is a canonical integer and there are at most kMaxIntsetEntries of
// them, it is Redis's intset: members kept sorted ascending. Otherwise it is a dict, whose order
// the model fixes as insertion order (after a conversion: the former intset's ascending order,
// then later additions). A set never converts back, as in Redis.
class SetValue {
 public:
  static constexpr size_t kMaxIntsetEntries = 512;  // set-max-intset-entries

  // Adds a member. Returns true if it was not present.
  bool add(std::string_view member);
  // Removes a member. Returns true if it was present.
  bool remove(std::string_view member);
  bool contains(std::string_view member) const;
  size_t size() const { return is_intset_ ? ints_.size() : members_.size(); }
  bool is_intset() const { return is_intset_; }
  // Calls fn(member) for every member in the model's order.
  template <typename Fn>
  void for_each(Fn&& fn) const;

 private:
  struct Unit {};
  void convert_to_dict();

  bool is_intset_ = true;
  std::vector<int64_t> ints_;  // sorted, while is_intset_
  OrderedMap<Unit> members_;   // once converted
};

// A sorted set: member -> score, ordered by (score, member) with members compared as bytes.
// Redis 7.0 keeps small sorted sets in a listpack (up to 128 members of up to 64 bytes), where a
// score is stored as text and a -0 comes back as 0; the model tracks that encoding for exactly
// this effect (order is the same in both encodings).
class ZSetValue {
 public:
  static constexpr size_t kMaxListpackEntries = 128;  // zset-max-listpack-entries
  static constexpr size_t kMaxListpackValue = 64;     // zset-max-listpack-value

  // A new set is a listpack unless its first member is too long for one (as ZADD decides).
  explicit ZSetValue(std::string_view first_member = {})
      : listpack_(first_member.size() <= kMaxListpackValue) {}
  bool is_listpack() const { return listpack_; }

  struct Item {
    double score;
    std::string member;
  };
  // Orders by score, then by member bytes (as Redis's skiplist and listpack do).
  struct Less {
    using is_transparent = void;
    bool operator()(const Item& a, const Item& b) const {
      if (a.score < b.score) return true;
      if (b.score < a.score) return false;
      return a.member < b.member;
    }
  };
  using Ordered = std::set<Item, Less>;

  // The member's score, or nullptr.
  const double* score(std::string_view member) const;
  // Inserts a member or moves it to a new score.
  void set(std::string_view member, double score);
  // Removes a member. Returns true if it was present.
  bool remove(std::string_view member);
  size_t size() const { return scores_.size(); }
  const Ordered& ordered() const { return ordered_; }
  // 0-based position in (score, member) order. REQUIRES: the member is present. O(n).
  size_t rank(std::string_view member) const;

 private:
  std::unordered_map<std::string, double, StringHash, StringEq> scores_;
  Ordered ordered_;
  bool listpack_ = true;
};

// A heap-held T with value semantics (copies are deep). Lists, sets and sorted sets are boxed so
// that a Value, and with it every keyspace entry, stays within one cache line.
template <typename T>
class Boxed {
 public:
  Boxed() : p_(std::make_unique<T>()) {}
  explicit Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}
  Boxed(const Boxed& other) : p_(std::make_unique<T>(*other.p_)) {}
  Boxed& operator=(const Boxed& other) {
    if (this != &other) p_ = std::make_unique<T>(*other.p_);
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  T& get() { return *p_; }
  const T& get() const { return *p_; }

 private:
  std::unique_ptr<T> p_;
};

// A string: its bytes, and how a command made it where its bytes alone do not tell the object
// encoding Redis 7.0 gives it (OBJECT ENCODING, OBJECT REFCOUNT). A string a command stores from
// an argument is encoded by its bytes (tryObjectEncoding: "int", "embstr" up to 44 bytes, "raw");
// APPEND to an existing string leaves it "raw" whatever its size; INCRBYFLOAT's result is
// created from its text, "embstr" or "raw" but never "int". Any command that stores a new value
// makes a new StringValue, so the mark goes with the bytes it describes.
struct StringValue : std::string {
  enum class Made : uint8_t { kStored, kAppended, kFormatted };
  StringValue() = default;
  StringValue(std::string bytes, Made how = Made::kStored) : std::string(std::move(bytes)), made(how) {}  // NOLINT
  Made made = Made::kStored;
};

// The alternatives' order is ObjType's.
using Value = std::variant<StringValue, HashValue, Boxed<ListValue>, Boxed<SetValue>, Boxed<ZSetValue>>;
// A keyspace entry (a Value and two times) stays within one cache line.
static_assert(sizeof(Value) <= 48);

inline ObjType type_of(const Value& v) { return static_cast<ObjType>(v.index()); }

// How T is held inside a Value.
template <typename T>
struct Held {
  using type = T;
};
template <>
struct Held<ListValue> {
  using type = Boxed<ListValue>;
};
template <>
struct Held<SetValue> {
  using type = Boxed<SetValue>;
};
template <>
struct Held<ZSetValue> {
  using type = Boxed<ZSetValue>;
};

// The T inside `v`, or nullptr if `v` holds another type.
template <typename T>
T* value_if(Value& v) {
  auto* held = std::get_if<typename Held<T>::type>(&v);
  if constexpr (std::is_same_v<typename Held<T>::type, T>) {
    return held;
  } else {
    return held == nullptr ? nullptr : &held->get();
  }
}
template <typename T>
const T* value_if(const Value& v) {
  return value_if<T>(const_cast<Value&>(v));
}
// A Value holding `t`.
template <typename T>
Value make_value(T t) {
  return Value(typename Held<T>::type(std::move(t)));
}

namespace packed {
// Reads the 32-bit length at buffer[pos].
inline uint32_t length_at(const std::string& buffer, size_t pos) {
  uint32_t n = 0;
  std::memcpy(&n, buffer.data() + pos, sizeof n);
  return n;
}
}  // namespace packed

template <typename Fn>
void HashValue::for_each(Fn&& fn) const {
  if (dict_) {
    dict_->for_each([&](std::string_view f, const std::string& v) { fn(f, std::string_view(v)); });
    return;
  }
  for (size_t pos = 0; pos < buffer_.size();) {
    uint32_t flen = packed::length_at(buffer_, pos);
    std::string_view field(buffer_.data() + pos + 4, flen);
    pos += 4 + flen;
    uint32_t vlen = packed::length_at(buffer_, pos);
    fn(field, std::string_view(buffer_.data() + pos + 4, vlen));
    pos += 4 + vlen;
  }
}

template <typename Fn>
void SetValue::for_each(Fn&& fn) const {
  if (is_intset_) {
    for (int64_t v : ints_) {
      std::string text = std::to_string(v);
      fn(std::string_view(text));
    }
    return;
  }
  members_.for_each([&](std::string_view key, const Unit&) { fn(key); });
}

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_OBJECT_H_
