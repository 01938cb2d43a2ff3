// Hash commands (Redis's t_hash.c). Fields keep insertion order (see ordered_map.h).
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

// The hash at `key` for reading: *hash is nullptr when the key is absent. Returns false after
// replying WRONGTYPE.
bool hash_for_read(Call& c, std::string_view key, HashValue** hash) {
  *hash = nullptr;
  Entry* e = c.lookup(key);
  if (e == nullptr) return true;
  *hash = std::get_if<HashValue>(&e->value);
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
  if (e == nullptr) return &std::get<HashValue>(c.db().add(key, Value(HashValue{})).value);
  auto* hash = std::get_if<HashValue>(&e->value);
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
    if (hash.insert_or_assign(c.argv[j], std::string(c.argv[j + 1]))) created++;
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
  if (hash->find(c.argv[2]) != nullptr) return c.reply(Reply::integer_of(0));
  hash->insert_or_assign(c.argv[2], std::string(c.argv[3]));
  c.dirty++;
  c.reply(Reply::integer_of(1));
}

void cmd_hget(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  const std::string* v = hash != nullptr ? hash->find(c.argv[2]) : nullptr;
  c.reply(v != nullptr ? Reply::bulk(*v) : Reply::nil());
}

void cmd_hmget(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::vector<Reply> values;
  values.reserve(c.argv.size() - 2);
  for (size_t j = 2; j < c.argv.size(); j++) {
    const std::string* v = hash != nullptr ? hash->find(c.argv[j]) : nullptr;
    values.push_back(v != nullptr ? Reply::bulk(*v) : Reply::nil());
  }
  c.reply(Reply::array(std::move(values)));
}

void cmd_hexists(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  bool found = hash != nullptr && hash->find(c.argv[2]) != nullptr;
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
  std::string* current = hash->find(c.argv[2]);
  if (current != nullptr && !parse_int64(*current, &value)) {
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
  if (current != nullptr) {
    char buf[21];
    current->assign(buf, format_int64(value, buf));  // in place: keeps the field's position
  } else {
    hash->insert_or_assign(c.argv[2], int_to_string(value));
  }
  c.dirty++;
  c.reply(Reply::integer_of(value));
}

void cmd_hlen(Call& c) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  c.reply(Reply::integer_of(hash != nullptr ? static_cast<int64_t>(hash->size()) : 0));
}

namespace {
// HKEYS / HVALS / HGETALL.
void reply_hash(Call& c, bool keys, bool values) {
  HashValue* hash = nullptr;
  if (!hash_for_read(c, c.argv[1], &hash)) return;
  std::vector<Reply> items;
  if (hash != nullptr) {
    items.reserve(hash->size() * ((keys && values) ? 2 : 1));
    hash->for_each([&](std::string_view k, const std::string& v) {
      if (keys) items.push_back(Reply::bulk(k));
      if (values) items.push_back(Reply::bulk(v));
    });
  }
  c.reply(Reply::array(std::move(items)));
}
}  // namespace

void cmd_hkeys(Call& c) { reply_hash(c, true, false); }
void cmd_hvals(Call& c) { reply_hash(c, false, true); }
void cmd_hgetall(Call& c) { reply_hash(c, true, true); }

}  // namespace lockstep::redis
