// String commands (Redis's t_string.c).
#include <cmath>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

enum SetFlag : uint32_t {
  kNx = 1, kXx = 2, kGet = 4, kKeepTtl = 8, kEx = 16, kPx = 32, kExAt = 64, kPxAt = 128
};
constexpr uint32_t kAnyExpire = kEx | kPx | kExAt | kPxAt;

bool is_opt(std::string_view arg, std::string_view name) { return iequals(arg, name); }

// Parses SET's options as Redis's parseExtendedStringArgumentsOrReply does: a flag conflicting
// with an earlier one, an unknown word, or a missing time is a syntax error.
bool parse_set_options(Call& c, uint32_t* flags, std::string_view* expire) {
  for (size_t j = 3; j < c.argv.size(); j++) {
    std::string_view opt = c.argv[j];
    bool has_next = j + 1 < c.argv.size();
    uint32_t other_expire = 0;
    if (is_opt(opt, "nx") && !(*flags & kXx)) {
      *flags |= kNx;
      continue;
    }
    if (is_opt(opt, "xx") && !(*flags & kNx)) {
      *flags |= kXx;
      continue;
    }
    if (is_opt(opt, "get")) {
      *flags |= kGet;
      continue;
    }
    if (is_opt(opt, "keepttl") && !(*flags & kAnyExpire)) {
      *flags |= kKeepTtl;
      continue;
    }
    uint32_t which = 0;
    if (is_opt(opt, "ex")) which = kEx;
    if (is_opt(opt, "px")) which = kPx;
    if (is_opt(opt, "exat")) which = kExAt;
    if (is_opt(opt, "pxat")) which = kPxAt;
    other_expire = kAnyExpire & ~which;
    if (which != 0 && !(*flags & kKeepTtl) && !(*flags & other_expire) && has_next) {
      *flags |= which;
      *expire = c.argv[++j];
      continue;
    }
    c.syntax_error();
    return false;
  }
  return true;
}

void expire_time_error(Call& c) {
  std::string text = "ERR invalid expire time in '";
  text += c.cmd->name;
  text += "' command";
  c.error(text);
}

// Converts the EX/PX/EXAT/PXAT argument into an absolute ms time (getExpireMillisecondsOrReply).
bool expire_ms(Call& c, std::string_view arg, uint32_t flags, int64_t* when_ms) {
  int64_t v = 0;
  if (!parse_int64(arg, &v)) {
    c.not_integer();
    return false;
  }
  bool seconds = (flags & (kEx | kExAt)) != 0;
  if (v <= 0 || (seconds && v > INT64_MAX / 1000)) {
    expire_time_error(c);
    return false;
  }
  if (seconds) v *= 1000;
  if (flags & (kEx | kPx)) {
    // Redis detects an overflow of the sum as a non-positive result; its clock is never
    // negative, a model node's may be, so the overflow is checked directly.
    int64_t now = c.srv.mstime();
    if (now > 0 && v > INT64_MAX - now) {
      expire_time_error(c);
      return false;
    }
    v += now;
    if (v == kNoExpire) {
      expire_time_error(c);
      return false;
    }
  }
  *when_ms = v;
  return true;
}

// Replies the current value for GET-style access. Returns false (after replying WRONGTYPE) when
// the key holds another type.
bool reply_get(Call& c, Entry* e) {
  if (e == nullptr) {
    c.reply(Reply::nil());
    return true;
  }
  const auto* s = std::get_if<StringValue>(&e->value);
  if (s == nullptr) {
    c.wrong_type();
    return false;
  }
  c.reply(Reply::bulk(*s));
  return true;
}

// Stores a string value; the key loses its TTL unless keep_ttl. Returns the entry.
Entry& store_string(Call& c, std::string_view key, std::string_view value, bool keep_ttl,
                    StringValue::Made made = StringValue::Made::kStored) {
  Keyspace& db = c.db();
  Entry* e = c.lookup(key);
  if (e == nullptr) return db.add(key, Value(StringValue(std::string(value), made)));
  e->value = StringValue(std::string(value), made);
  if (!keep_ttl && e->has_expire()) db.set_expire(key, *e, kNoExpire);
  return *e;
}

void set_generic(Call& c, uint32_t flags, std::string_view key, std::string_view value,
                 std::string_view expire) {
  int64_t when_ms = 0;
  bool has_expire = (flags & kAnyExpire) != 0;
  if (has_expire && !expire_ms(c, expire, flags, &when_ms)) return;
  if (flags & kGet) {
    if (!reply_get(c, c.lookup(key))) return;
  }
  bool found = c.lookup(key) != nullptr;
  if (((flags & kNx) && found) || ((flags & kXx) && !found)) {
    if (!(flags & kGet)) c.reply(Reply::nil());
    return;
  }
  Entry& e = store_string(c, key, value, (flags & kKeepTtl) != 0);
  c.dirty++;
  if (has_expire) {
    c.db().set_expire(key, e, when_ms);
    // Propagated as SET key value PXAT <ms>, so replicas and the AOF get an absolute time.
    if (c.srv.propagating()) {
      c.rewrite = {"SET", std::string(key), std::string(value), "PXAT", int_to_string(when_ms)};
    }
  } else if ((flags & kGet) && c.srv.propagating()) {
    // Propagated without the GET arguments.
    for (size_t j = 0; j < c.argv.size(); j++) {
      if (j >= 3 && iequals(c.argv[j], "get")) continue;
      c.rewrite.emplace_back(c.argv[j]);
    }
  }
  if (!(flags & kGet)) c.reply(Reply::ok());
}

void incr_decr(Call& c, int64_t incr) {
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  int64_t value = 0;
  if (e != nullptr) {
    const auto* s = std::get_if<StringValue>(&e->value);
    if (s == nullptr) return c.wrong_type();
    if (!parse_int64(*s, &value)) return c.not_integer();
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    return c.error("ERR increment or decrement would overflow");
  }
  value += incr;
  store_string(c, key, int_to_string(value), /*keep_ttl=*/true);
  c.dirty++;
  c.reply(Reply::integer_of(value));
}

}  // namespace

void cmd_get(Call& c) { reply_get(c, c.lookup(c.argv[1])); }

void cmd_set(Call& c) {
  uint32_t flags = 0;
  std::string_view expire;
  if (!parse_set_options(c, &flags, &expire)) return;
  set_generic(c, flags, c.argv[1], c.argv[2], expire);
}

void cmd_setnx(Call& c) {
  if (c.lookup(c.argv[1]) != nullptr) return c.reply(Reply::integer_of(0));
  store_string(c, c.argv[1], c.argv[2], false);
  c.dirty++;
  c.reply(Reply::integer_of(1));
}

void cmd_setex(Call& c) { set_generic(c, kEx, c.argv[1], c.argv[3], c.argv[2]); }
void cmd_psetex(Call& c) { set_generic(c, kPx, c.argv[1], c.argv[3], c.argv[2]); }

void cmd_incr(Call& c) { incr_decr(c, 1); }
void cmd_decr(Call& c) { incr_decr(c, -1); }

void cmd_incrby(Call& c) {
  int64_t incr = 0;
  if (!parse_int64(c.argv[2], &incr)) return c.not_integer();
  incr_decr(c, incr);
}

void cmd_decrby(Call& c) {
  int64_t incr = 0;
  if (!parse_int64(c.argv[2], &incr)) return c.not_integer();
  // Negating INT64_MIN overflows.
  if (incr == INT64_MIN) return c.error("ERR decrement would overflow");
  incr_decr(c, -incr);
}

void cmd_mget(Call& c) {
  std::vector<Reply> values;
  values.reserve(c.argv.size() - 1);
  for (size_t j = 1; j < c.argv.size(); j++) {
    Entry* e = c.lookup(c.argv[j]);
    const std::string* s = e != nullptr ? std::get_if<StringValue>(&e->value) : nullptr;
    values.push_back(s != nullptr ? Reply::bulk(*s) : Reply::nil());
  }
  c.reply(Reply::array(std::move(values)));
}

void cmd_mset(Call& c) {
  if (c.argv.size() % 2 == 0) return c.arity_error();
  for (size_t j = 1; j + 1 < c.argv.size(); j += 2) {
    store_string(c, c.argv[j], c.argv[j + 1], false);
    c.dirty++;
  }
  c.reply(Reply::ok());
}

void cmd_append(Call& c) {
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  size_t len = 0;
  if (e == nullptr) {
    c.db().add(key, Value(std::string(c.argv[2])));
    len = c.argv[2].size();
  } else {
    auto* s = std::get_if<StringValue>(&e->value);
    if (s == nullptr) return c.wrong_type();
    s->append(c.argv[2]);
    s->made = StringValue::Made::kAppended;  // Redis unshares it as a raw string first
    len = s->size();
  }
  c.dirty++;
  c.reply(Reply::integer_of(static_cast<int64_t>(len)));
}

void cmd_strlen(Call& c) {
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) return c.reply(Reply::integer_of(0));
  const auto* s = std::get_if<StringValue>(&e->value);
  if (s == nullptr) return c.wrong_type();
  c.reply(Reply::integer_of(static_cast<int64_t>(s->size())));
}

void cmd_getdel(Call& c) {
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  if (!reply_get(c, e) || e == nullptr) return;
  bool removed = c.db().remove(key);
  LS_ASSERT(removed);
  c.dirty++;
  if (c.srv.propagating()) c.rewrite = {"DEL", std::string(key)};
}

void cmd_incrbyfloat(Call& c) {
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  long double value = 0, incr = 0;
  if (e != nullptr) {
    const auto* str = std::get_if<StringValue>(&e->value);
    if (str == nullptr) return c.wrong_type();
    if (!parse_long_double(*str, &value)) return c.error("ERR value is not a valid float");
  }
  if (!parse_long_double(c.argv[2], &incr)) return c.error("ERR value is not a valid float");
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return c.error("ERR increment would produce NaN or Infinity");
  const std::string text = format_long_double_human(value);
  store_string(c, key, text, /*keep_ttl=*/true, StringValue::Made::kFormatted);
  c.dirty++;
  // Replicated as the value it produced: SET key <value> KEEPTTL.
  if (c.srv.propagating()) c.rewrite = {"SET", std::string(key), text, "KEEPTTL"};
  c.reply(Reply::bulk(text));
}

void cmd_getset(Call& c) {
  std::string_view key = c.argv[1];
  if (!reply_get(c, c.lookup(key))) return;
  store_string(c, key, c.argv[2], /*keep_ttl=*/false);
  c.dirty++;
  if (c.srv.propagating()) c.rewrite = {"SET", std::string(key), std::string(c.argv[2])};
}

// GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]: SET's parser for a GET command, which
// takes PERSIST and refuses NX, XX, GET and KEEPTTL.
void cmd_getex(Call& c) {
  uint32_t flags = 0;
  bool persist = false;
  std::string_view expire;
  for (size_t j = 2; j < c.argv.size(); j++) {
    std::string_view opt = c.argv[j];
    const bool has_next = j + 1 < c.argv.size();
    uint32_t which = 0;
    if (is_opt(opt, "ex")) which = kEx;
    if (is_opt(opt, "px")) which = kPx;
    if (is_opt(opt, "exat")) which = kExAt;
    if (is_opt(opt, "pxat")) which = kPxAt;
    if (is_opt(opt, "persist") && !(flags & kAnyExpire)) {
      persist = true;
      continue;
    }
    if (which != 0 && !persist && !(flags & (kAnyExpire & ~which)) && has_next) {
      flags |= which;
      expire = c.argv[++j];
      continue;
    }
    return c.syntax_error();
  }
  std::string_view key = c.argv[1];
  Entry* e = c.lookup(key);
  if (e == nullptr) return c.reply(Reply::nil());
  const auto* str = std::get_if<StringValue>(&e->value);
  if (str == nullptr) return c.wrong_type();
  int64_t when_ms = 0;
  if ((flags & kAnyExpire) && !expire_ms(c, expire, flags, &when_ms)) return;
  c.reply(Reply::bulk(*str));
  if ((flags & (kExAt | kPxAt)) && when_ms <= c.srv.mstime() && !c.srv.replica()) {
    bool removed = c.db().remove(key);
    LS_ASSERT(removed);
    c.dirty++;
    if (c.srv.propagating()) c.rewrite = {"DEL", std::string(key)};
  } else if (flags & kAnyExpire) {
    c.db().set_expire(key, *e, when_ms);
    c.dirty++;
    if (c.srv.propagating()) c.rewrite = {"PEXPIREAT", std::string(key), int_to_string(when_ms)};
  } else if (persist && e->has_expire()) {
    c.db().set_expire(key, *e, kNoExpire);
    c.dirty++;
    if (c.srv.propagating()) c.rewrite = {"PERSIST", std::string(key)};
  } else if (c.srv.propagating()) {
    c.rewrite = {"GET", std::string(key)};
  }
}

}  // namespace lockstep::redis
