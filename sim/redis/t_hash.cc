// Hash commands (Redis's t_hash.c). Fields keep insertion order (see ordered_map.h).
#include <cmath>
#include <optional>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

size_t HashValue::find_packed(std::string_view field, size_t* count) const {
  size_t n = 0;
  for (size_t pos = 0; pos < buffer_.size(); n++) {
    uint32_t flen = packed::length_at(buffer_, pos);
    if (flen == field.size() && std::memcmp(buffer_.data() + pos + 4, field.data(), flen) == 0) return pos;
    pos += 4 + flen;
    pos += 4 + packed::length_at(buffer_, pos);
  }
  if (count != nullptr) *count = n;
  return std::string::npos;
}

size_t HashValue::size() const {
  if (dict_) return dict_->size();
  size_t n = 0;
  for (size_t pos = 0; pos < buffer_.size(); n++) {
    pos += 4 + packed::length_at(buffer_, pos);
    pos += 4 + packed::length_at(buffer_, pos);
  }
  return n;
}

std::optional<std::string_view> HashValue::get(std::string_view field) const {
  if (dict_) {
    const std::string* v = dict_->find(field);
    return v == nullptr ? std::nullopt : std::optional<std::string_view>(*v);
  }
  size_t pos = find_packed(field);
  if (pos == std::string::npos) return std::nullopt;
  pos += 4 + field.size();
  return std::string_view(buffer_.data() + pos + 4, packed::length_at(buffer_, pos));
}

namespace {
void append_record(std::string& buffer, std::string_view bytes) {
  LS_ASSERT(bytes.size() <= UINT32_MAX);
  uint32_t n = static_cast<uint32_t>(bytes.size());
  buffer.append(reinterpret_cast<const char*>(&n), sizeof n);
  buffer.append(bytes);
}
}  // namespace

bool HashValue::set(std::string_view field, std::string_view value) {
  convert_for(field, value);
  if (dict_) return dict_->insert_or_assign(field, std::string(value));
  size_t count = 0;
  size_t pos = find_packed(field, &count);
  if (pos != std::string::npos) {
    size_t vpos = pos + 4 + field.size();
    uint32_t old = packed::length_at(buffer_, vpos);
    uint32_t n = static_cast<uint32_t>(value.size());
    std::memcpy(buffer_.data() + vpos, &n, sizeof n);
    buffer_.replace(vpos + 4, old, value);
    return false;
  }
  buffer_.reserve(buffer_.size() + 8 + field.size() + value.size());  // one allocation
  append_record(buffer_, field);
  append_record(buffer_, value);
  if (count + 1 > kMaxPackedFields) unpack();
  return true;
}

bool HashValue::erase(std::string_view field) {
  if (dict_) return dict_->erase(field);
  size_t pos = find_packed(field);
  if (pos == std::string::npos) return false;
  size_t vpos = pos + 4 + field.size();
  size_t end = vpos + 4 + packed::length_at(buffer_, vpos);
  buffer_.erase(pos, end - pos);
  LS_ASSERT(end > pos);
  return true;
}

void HashValue::unpack() {
  LS_ASSERT(!dict_);
  auto dict = std::make_unique<OrderedMap<std::string>>();
  for_each([&](std::string_view f, std::string_view v) { dict->insert_or_assign(f, std::string(v)); });
  LS_ASSERT(dict->size() == size());
  dict_ = std::move(dict);
  buffer_.clear();
  buffer_.shrink_to_fit();
}

namespace {

// The hash at `key` for reading: *hash is nullptr when the key is absent. Returns false after
// replying WRONGTYPE.
bool hash_for_read(Call& c, std::string_view key, HashValue** hash) {
  *hash = nullptr;
  Entry* e = c.lookup(key);
  if (e == nullptr) return true;
  *hash = value_if<HashValue>(e->value);
  if (*hash == nullptr) {
    c.wrong_type();
    return false;
  }
  return true;
}

// The hash at `key`, created empty if absent (hashTypeLookupWriteOrCreate). Returns nullptr after
// replying WRONGTYPE.
HashValue* hash_for_write(Call& c, std::string_view key) {
  Entry* e = c.lookup(key);
  if (e == nullptr) return value_if<HashValue>(c.db().add(key, make_value(HashValue{})).value);
  auto* hash = value_if<HashValue>(e->value);
  if (hash == nullptr) c.wrong_type();
  return hash;
}

// Deletes the key when its hash became empty, as Redis never keeps empty collections.
void drop_if_empty(Call& c, std::string_view key, const HashValue& hash) {
  if (!hash.empty()) return;
  bool removed = c.db().remove(key);
  LS_ASSERT(removed);
}

// Sets the field-value pairs of argv[2..]; returns how many fields were new.
int64_t set_pairs(Call& c, HashValue& hash) {
  int64_t created = 0;
  for (size_t j = 2; j + 1 < c.argv.size(); j += 2) {
    if (hash.set(c.argv[j], c.argv[j + 1])) created++;
  }
  c.dirty += (c.argv.size() - 2) / 2;
  return created;
}

}  // namespace

void cmd_hset(Call& c) {
  if (c.argv.size() % 2 == 1) return c.arity_error();
  HashValue* hash = hash_for_write(c, c.argv[1]);
  if (hash == nullptr) return;
  c.reply(Reply::integer_of(set_pairs(c, *hash)));
}

void cmd_hmset(Call& c) {
  if (c.argv.size() % 2 == 1) return c.arity_error();
  HashValue* hash = hash_for_write(c, c.argv[1]);
  if (hash == nullptr) return;
  set_pairs(c, *hash);
  c.reply(Reply::ok());
}

void cmd_hsetnx(Call& c) {
  HashValue* hash = hash_for_write(c, c.argv[1]);
  if (hash == nullptr) return;
  hash->convert_for(c.argv[2], c.argv[3]);
  if (hash->get(c.argv[2])) return c.reply(Reply::integer_of(0));
  hash->set(c.argv[2], c.argv[3]);
  c.dirty++;
  c.reply(Reply::integer_of(1));
}

void cmd_hget(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::optional<std::string_view> v;
  if (hash != nullptr) v = hash->get(c.argv[2]);
  c.reply(v ? Reply::bulk(*v) : Reply::nil());
}

void cmd_hmget(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::vector<Reply> values;
  values.reserve(c.argv.size() - 2);
  for (size_t j = 2; j < c.argv.size(); j++) {
    std::optional<std::string_view> v;
    if (hash != nullptr) v = hash->get(c.argv[j]);
    values.push_back(v ? Reply::bulk(*v) : Reply::nil());
  }
  c.reply(Reply::array(std::move(values)));
}

void cmd_hexists(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  bool found = hash != nullptr && hash->get(c.argv[2]).has_value();
  c.reply(Reply::integer_of(found ? 1 : 0));
}

void cmd_hdel(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  if (hash == nullptr) return c.reply(Reply::integer_of(0));
  int64_t deleted = 0;
  for (size_t j = 2; j < c.argv.size() && !hash->empty(); j++) {
    if (hash->erase(c.argv[j])) deleted++;
  }
  c.dirty += static_cast<uint64_t>(deleted);
  drop_if_empty(c, c.argv[1], *hash);
  c.reply(Reply::integer_of(deleted));
}

void cmd_hincrby(Call& c) {
  int64_t incr = 0;
  if (!parse_int64(c.argv[3], &incr)) return c.not_integer();
  HashValue* hash = hash_for_write(c, c.argv[1]);
  if (hash == nullptr) return;
  int64_t value = 0;
  std::optional<std::string_view> current = hash->get(c.argv[2]);
  if (current && !parse_int64(*current, &value)) {
    return c.error("ERR hash value is not an integer");
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    // A hash created just now for this command stays empty; Redis leaves no key behind either
    // because it only creates the hash when it stores the field.
    drop_if_empty(c, c.argv[1], *hash);
    return c.error("ERR increment or decrement would overflow");
  }
  value += incr;
  char buf[21];
  hash->set(c.argv[2], std::string_view(buf, format_int64(value, buf)));
  c.dirty++;
  c.reply(Reply::integer_of(value));
}

void cmd_hincrbyfloat(Call& c) {
  long double incr = 0;
  if (!parse_long_double(c.argv[3], &incr)) return c.error("ERR value is not a valid float");
  if (std::isnan(incr) || std::isinf(incr)) return c.error("ERR value is NaN or Infinity");
  HashValue* hash = hash_for_write(c, c.argv[1]);
  if (hash == nullptr) return;
  long double value = 0;
  std::optional<std::string_view> current = hash->get(c.argv[2]);
  if (current && !parse_long_double(*current, &value)) {
    drop_if_empty(c, c.argv[1], *hash);
    return c.error("ERR hash value is not a float");
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) {
    drop_if_empty(c, c.argv[1], *hash);
    return c.error("ERR increment would produce NaN or Infinity");
  }
  const std::string text = format_long_double_human(value);
  hash->set(c.argv[2], text);
  c.dirty++;
  // Replicated as the value it produced: HSET key field <value>.
  if (c.srv.propagating()) c.rewrite = {"HSET", std::string(c.argv[1]), std::string(c.argv[2]), text};
  c.reply(Reply::bulk(text));
}

void cmd_hstrlen(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::optional<std::string_view> v;
  if (hash != nullptr) v = hash->get(c.argv[2]);
  c.reply(Reply::integer_of(v ? static_cast<int64_t>(v->size()) : 0));
}

void cmd_hlen(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  c.reply(Reply::integer_of(hash != nullptr ? static_cast<int64_t>(hash->size()) : 0));
}

namespace {
// HKEYS / HVALS (arrays) / HGETALL (a map).
void reply_hash(Call& c, bool keys, bool values) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::vector<Reply> items;
  if (hash != nullptr) {
    items.reserve(hash->size() * ((keys && values) ? 2 : 1));
    hash->for_each([&](std::string_view k, std::string_view v) {
      if (keys) items.push_back(Reply::bulk(k));
      if (values) items.push_back(Reply::bulk(v));
    });
  }
  c.reply(keys && values ? Reply::map(std::move(items)) : Reply::array(std::move(items)));
}
}  // namespace

void cmd_hkeys(Call& c) { reply_hash(c, true, false); }
void cmd_hvals(Call& c) { reply_hash(c, false, true); }
void cmd_hgetall(Call& c) { reply_hash(c, true, true); }

}  // namespace lockstep::redis
