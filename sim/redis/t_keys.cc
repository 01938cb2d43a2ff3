// Keyspace commands (Redis's db.c): DEL/UNLINK, EXISTS, TYPE, KEYS, DBSIZE, FLUSHALL, FLUSHDB,
// SELECT. Expiry commands are in expire.cc.
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
