// Expiry in one place (Redis's expire.c and the expiry half of db.c): lazy expiry on access, the
// active expire cycle, and the EXPIRE family, TTL/PTTL and PERSIST.
//
// Redis 7.0's rules: a key is expired when now > expire_at (strictly). "now" for that check is
// frozen at the start of a script (and cached per command); TTL arithmetic uses the current
// clock. An expiry at or before the current time given to EXPIRE & co. deletes the key at once
// on a master. Replicas never delete expired keys themselves: they report them absent to normal
// clients and wait for the master's DEL; the master's stream sees them alive.
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

bool Server::logically_expired(const Entry& entry) const {
  if (!entry.has_expire() || applying_replicated_) return false;
  return expiry_time_ms() > entry.expire_at_ms;
}

Entry* Server::lookup(int db_index, std::string_view key) {
  LS_ASSERT(db_index >= 0 && db_index < kDatabases);
  Entry* e = dbs_[db_index].find(key);
  if (e == nullptr || !logically_expired(*e)) return e;
  if (replica_) return nullptr;
  expire_key(db_index, key, expiry_time_ms());
  return nullptr;
}

void Server::expire_key(int db_index, std::string_view key, int64_t now_ms) {
  LS_ASSERT(!replica_);
  // `key` may point into storage the removal frees (the expiry heap's string): copy it first.
  std::string name(key);
  bool removed = dbs_[db_index].remove(name);
  LS_ASSERT(removed);
  touch_key(db_index, name);
  if (config_.hooks.on_expire) config_.hooks.on_expire(name, now_ms);
  std::string_view effect[] = {"DEL", name};
  propagate(db_index, effect);
}

size_t Server::active_expire_cycle() {
  if (replica_) return 0;
  LS_ASSERT(!script_running_);
  begin_top_level();
  const int64_t now_ms = command_time_ms_;
  size_t deleted = 0;
  std::string key;
  for (int i = 0; i < kDatabases; i++) {
    // Bounded: every iteration removes one key of this database.
    while (dbs_[i].pop_due(now_ms, &key)) {
      begin_top_level();  // each expiry DEL is its own atomic group, as Redis propagates them
      expire_key(i, key, now_ms);
      deleted++;
    }
  }
  return deleted;
}

namespace {

enum ExpireFlag : uint32_t { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

bool parse_expire_options(Call& c, uint32_t* flags) {
  for (size_t j = 3; j < c.argv.size(); j++) {
    std::string_view opt = c.argv[j];
    if (iequals(opt, "nx")) *flags |= kNx;
    else if (iequals(opt, "xx")) *flags |= kXx;
    else if (iequals(opt, "gt")) *flags |= kGt;
    else if (iequals(opt, "lt")) *flags |= kLt;
    else {
      c.error(sanitize_error("ERR Unsupported option " + std::string(opt)));
      return false;
    }
  }
  if ((*flags & kNx) && (*flags & (kXx | kGt | kLt))) {
    c.error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kGt) && (*flags & kLt)) {
    c.error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

void expire_time_error(Call& c) {
  c.error("ERR invalid expire time in '" + std::string(c.cmd->name) + "' command");
}

// True when the NX/XX/GT/LT condition forbids the change (the command then replies 0). A key
// without TTL counts as an infinite TTL.
bool expire_condition_fails(uint32_t flags, const Entry& e, int64_t when) {
  bool has = e.has_expire();
  if ((flags & kNx) && has) return true;
  if ((flags & kXx) && !has) return true;
  if ((flags & kGt) && (!has || when <= e.expire_at_ms)) return true;
  if ((flags & kLt) && has && when >= e.expire_at_ms) return true;
  return false;
}

// expireGenericCommand: `basetime_ms` is 0 for the *AT forms, the current time otherwise.
void expire_generic(Call& c, int64_t basetime_ms, bool seconds) {
  uint32_t flags = 0;
  if (!parse_expire_options(c, &flags)) return;
  int64_t when = 0;
  if (!parse_int64(c.argv[2], &when)) return c.not_integer();
  if (seconds) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) return expire_time_error(c);
    when *= 1000;
  }
  // Overflow checks (Redis's clock is never negative; a model node's may be).
  if (basetime_ms > 0 && when > INT64_MAX - basetime_ms) return expire_time_error(c);
  if (basetime_ms < 0 && when < INT64_MIN - basetime_ms) return expire_time_error(c);
  if (when + basetime_ms == kNoExpire) return expire_time_error(c);
  when += basetime_ms;
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  if (e == nullptr) return c.reply(Reply::integer_of(0));
  if (flags != 0 && expire_condition_fails(flags, *e, when)) {
    return c.reply(Reply::integer_of(0));
  }
  c.dirty++;
  if (when <= c.srv.mstime() && !c.srv.replica()) {
    // Already in the past: delete now and propagate an explicit DEL.
    bool removed = c.db().remove(key);
    LS_ASSERT(removed);
    if (c.srv.propagating()) c.rewrite = {"DEL", std::string(key)};
    return c.reply(Reply::integer_of(1));
  }
  c.db().set_expire(key, *e, when);
  if (c.srv.propagating()) {
    // Propagated as PEXPIREAT <absolute ms>, keeping any options.
    c.rewrite.assign(c.argv.begin(), c.argv.end());
    if (c.cmd->handler != cmd_pexpireat) c.rewrite[0] = "PEXPIREAT";
    if (basetime_ms != 0 || seconds) c.rewrite[2] = int_to_string(when);
  }
  c.reply(Reply::integer_of(1));
}

void ttl_generic(Call& c, bool ms) {
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) return c.reply(Reply::integer_of(-2));
  if (!e->has_expire()) return c.reply(Reply::integer_of(-1));
  int64_t ttl = e->expire_at_ms - c.srv.mstime();
  if (ttl < 0) ttl = 0;
  c.reply(Reply::integer_of(ms ? ttl : (ttl + 500) / 1000));
}

}  // namespace

void cmd_expire(Call& c) { expire_generic(c, c.srv.mstime(), true); }
void cmd_pexpire(Call& c) { expire_generic(c, c.srv.mstime(), false); }
void cmd_expireat(Call& c) { expire_generic(c, 0, true); }
void cmd_pexpireat(Call& c) { expire_generic(c, 0, false); }
void cmd_ttl(Call& c) { ttl_generic(c, false); }
void cmd_pttl(Call& c) { ttl_generic(c, true); }

// EXPIRETIME / PEXPIRETIME: the absolute expiry (seconds truncated, or ms), -1 without one, -2
// for a missing key.
void cmd_expiretime(Call& c) {
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) return c.reply(Reply::integer_of(-2));
  c.reply(Reply::integer_of(e->has_expire() ? e->expire_at_ms / 1000 : -1));
}

void cmd_pexpiretime(Call& c) {
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) return c.reply(Reply::integer_of(-2));
  c.reply(Reply::integer_of(e->has_expire() ? e->expire_at_ms : -1));
}

void cmd_persist(Call& c) {
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  if (e == nullptr || !e->has_expire()) return c.reply(Reply::integer_of(0));
  c.db().set_expire(key, *e, kNoExpire);
  c.dirty++;
  c.reply(Reply::integer_of(1));
}

}  // namespace lockstep::redis
