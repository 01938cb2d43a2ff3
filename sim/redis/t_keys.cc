// Keyspace commands (Redis's db.c): DEL/UNLINK, EXISTS, TYPE, KEYS, DBSIZE, FLUSHALL, FLUSHDB,
// SELECT, RANDOMKEY, RENAME, COPY, and OBJECT (object.c). Expiry commands are in expire.cc.
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

void cmd_del(Call& c) {
  int64_t deleted = 0;
  for (size_t j = 1; j < c.argv.size(); j++) {
    // lookup() first expires the key lazily (an expired key is not counted as deleted).
    if (c.lookup(c.argv[j]) != nullptr && c.db().remove(c.argv[j])) deleted++;
  }
  c.dirty += static_cast<uint64_t>(deleted);
  c.reply(Reply::integer_of(deleted));
}

void cmd_exists(Call& c) {
  int64_t count = 0;
  for (size_t j = 1; j < c.argv.size(); j++) {
    if (c.lookup(c.argv[j]) != nullptr) count++;
  }
  c.reply(Reply::integer_of(count));
}

void cmd_type(Call& c) {
  Entry* e = c.lookup(c.argv[1]);
  c.reply(Reply::status(e == nullptr ? "none" : kTypeNames[e->value.index()]));
}

void cmd_keys(Call& c) {
  // Redis's order is the dict's (unspecified); the model returns keys sorted bytewise.
  std::string_view pattern = c.argv[1];
  bool all = pattern == "*";
  std::vector<Reply> keys;
  const Keyspace& db = c.db();
  for (const std::string& key : db.sorted_keys()) {
    if (!all && !glob_match(pattern, key)) continue;
    const Entry* e = db.find(key);
    LS_ASSERT(e != nullptr);
    // Like Redis, KEYS skips logically expired keys without deleting them.
    if (c.srv.logically_expired(*e)) continue;
    keys.push_back(Reply::bulk(key));
  }
  c.reply(Reply::array(std::move(keys)));
}

void cmd_dbsize(Call& c) {
  // Counts keys not yet deleted, expired or not, as Redis's dictSize does.
  c.reply(Reply::integer_of(static_cast<int64_t>(c.db().size())));
}

namespace {
// FLUSHALL/FLUSHDB accept one optional SYNC or ASYNC.
bool flush_args_ok(Call& c) {
  if (c.argv.size() > 2) return false;
  return c.argv.size() == 1 || iequals(c.argv[1], "sync") || iequals(c.argv[1], "async");
}
}  // namespace

void cmd_flushall(Call& c) {
  if (!flush_args_ok(c)) return c.syntax_error();
  c.srv.flush_all();
  c.force_propagate = true;
  c.reply(Reply::ok());
}

void cmd_flushdb(Call& c) {
  if (!flush_args_ok(c)) return c.syntax_error();
  c.srv.touch_all_in_db(c.client.db);
  c.db().clear();
  c.force_propagate = true;
  c.reply(Reply::ok());
}

void cmd_select(Call& c) {
  int64_t index = 0;
  if (!parse_int64(c.argv[1], &index) || index < INT32_MIN || index > INT32_MAX) {
    return c.not_integer();
  }
  if (index < 0 || index >= kDatabases) return c.error("ERR DB index is out of range");
  c.client.db = static_cast<int>(index);
  c.reply(Reply::ok());
}

// RANDOMKEY, as dbRandomKey: a logically expired key drawn is deleted (on a master) and another
// drawn; a replica whose keys all have a TTL gives up after 100 draws and returns the last one.
// Draws come from Server::random over the keys in sorted order (never from the table's layout).
void cmd_randomkey(Call& c) {
  Keyspace& db = c.db();
  std::vector<std::string> keys = db.sorted_keys();
  const bool all_volatile = db.size() == db.volatile_count();
  int tries = 100;
  while (!keys.empty()) {
    const size_t i = c.srv.random().below(keys.size());
    const Entry* e = db.find(keys[i]);
    LS_ASSERT(e != nullptr);
    if (!c.srv.logically_expired(*e)) return c.reply(Reply::bulk(keys[i]));
    if (c.srv.replica() && all_volatile) {
      if (--tries == 0) return c.reply(Reply::bulk(keys[i]));
      continue;
    }
    c.lookup(keys[i]);  // expires it (a master deletes the key and propagates the DEL)
    keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
  }
  c.reply(Reply::nil());
}

namespace {

// True when Redis keeps the string as an integer: stored from an argument (tryObjectEncoding) and
// a canonical 64-bit integer of at most 20 characters; *v gets it.
bool int_encoded(const StringValue& s, int64_t* v) {
  return s.made == StringValue::Made::kStored && s.size() <= 20 && parse_int64(s, v);
}

// OBJECT ENCODING's name for what `value` holds in Redis 7.0 (see StringValue for strings).
std::string_view encoding_name(const Value& value) {
  switch (type_of(value)) {
    case ObjType::kString: {
      const StringValue& s = std::get<StringValue>(value);
      int64_t ignored = 0;
      if (int_encoded(s, &ignored)) return "int";
      return s.made != StringValue::Made::kAppended && s.size() <= 44 ? "embstr" : "raw";
    }
    case ObjType::kHash: return std::get<HashValue>(value).is_packed() ? "listpack" : "hashtable";
    case ObjType::kList: return "quicklist";
    case ObjType::kSet: return std::get<Boxed<SetValue>>(value).get().is_intset() ? "intset" : "hashtable";
    case ObjType::kZSet: return std::get<Boxed<ZSetValue>>(value).get().is_listpack() ? "listpack" : "skiplist";
  }
  LS_ASSERT(false);
  return "unknown";
}

// Redis shares one object for each integer 0..9999 (OBJ_SHARED_INTEGERS) that a command stores:
// its refcount reads INT_MAX.
int64_t refcount_of(const Value& value) {
  const StringValue* s = std::get_if<StringValue>(&value);
  int64_t v = 0;
  if (s != nullptr && int_encoded(*s, &v) && v >= 0 && v < 10000) return INT32_MAX;
  return 1;
}

constexpr std::string_view kObjectHelp[] = {
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Prints this help.",
};

}  // namespace

// OBJECT ENCODING / REFCOUNT / FREQ / IDLETIME / HELP. The model keeps no access times: FREQ
// answers Redis's error for its default (non-LFU) policy, IDLETIME says it is not tracked.
void cmd_object(Call& c) {
  std::string_view sub = c.argv[1];
  if (iequals(sub, "help")) {
    std::vector<Reply> lines;
    for (std::string_view line : kObjectHelp) lines.push_back(Reply::status(line));
    return c.reply(Reply::array(std::move(lines)));
  }
  // Dispatch resolved the subcommand (encoding, refcount, freq, idletime) and its arity.
  const Entry* e = c.lookup(c.argv[2]);
  if (e == nullptr) return c.reply(Reply::nil());
  if (iequals(sub, "encoding")) return c.reply(Reply::bulk(encoding_name(e->value)));
  if (iequals(sub, "refcount")) return c.reply(Reply::integer_of(refcount_of(e->value)));
  if (iequals(sub, "freq")) {
    return c.error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching "
        "between policies at runtime LRU and LFU data will take some time to adjust.");
  }
  LS_ASSERT(iequals(sub, "idletime"));
  c.error("ERR lockstep model: OBJECT IDLETIME is not supported (the model keeps no access times)");
}

namespace {

// RENAME / RENAMENX: the value and its expiry move to `dst`, replacing what was there.
void rename_generic(Call& c, bool nx) {
  std::string_view src = c.argv[1], dst = c.argv[2];
  Entry* from = c.lookup(src);
  if (from == nullptr) return c.error("ERR no such key");
  if (src == dst) return c.reply(nx ? Reply::integer_of(0) : Reply::ok());
  if (c.lookup(dst) != nullptr) {
    if (nx) return c.reply(Reply::integer_of(0));
    bool removed = c.db().remove(dst);
    LS_ASSERT(removed);
  }
  Value value = std::move(from->value);
  const int64_t expire_at_ms = from->expire_at_ms;
  bool removed = c.db().remove(src);
  LS_ASSERT(removed);
  Entry& to = c.db().add(dst, std::move(value));
  if (expire_at_ms != kNoExpire) c.db().set_expire(dst, to, expire_at_ms);
  c.dirty++;
  c.reply(nx ? Reply::integer_of(1) : Reply::ok());
}

}  // namespace

void cmd_rename(Call& c) { rename_generic(c, false); }
void cmd_renamenx(Call& c) { rename_generic(c, true); }

// COPY source destination [DB index] [REPLACE].
void cmd_copy(Call& c) {
  int db = c.client.db;
  bool replace = false;
  for (size_t j = 3; j < c.argv.size(); j++) {
    if (iequals(c.argv[j], "replace")) {
      replace = true;
    } else if (iequals(c.argv[j], "db") && j + 1 < c.argv.size()) {
      int64_t index = 0;
      if (!parse_int64(c.argv[++j], &index) || index < INT32_MIN || index > INT32_MAX) return c.not_integer();
      if (index < 0 || index >= kDatabases) return c.error("ERR DB index is out of range");
      db = static_cast<int>(index);
    } else {
      return c.syntax_error();
    }
  }
  std::string_view src = c.argv[1], dst = c.argv[2];
  if (src == dst && db == c.client.db) return c.error("ERR source and destination objects are the same");
  Entry* from = c.lookup(src);
  if (from == nullptr) return c.reply(Reply::integer_of(0));
  Value value = from->value;
  const int64_t expire_at_ms = from->expire_at_ms;
  Keyspace& target = c.srv.db(db);
  if (c.srv.lookup(db, dst) != nullptr) {
    if (!replace) return c.reply(Reply::integer_of(0));
    bool removed = target.remove(dst);
    LS_ASSERT(removed);
  }
  Entry& to = target.add(dst, std::move(value));
  if (expire_at_ms != kNoExpire) target.set_expire(dst, to, expire_at_ms);
  c.dirty++;
  c.keys_signalled = true;  // only the destination changed
  c.srv.touch_key(db, dst);
  c.reply(Reply::integer_of(1));
}

}  // namespace lockstep::redis
