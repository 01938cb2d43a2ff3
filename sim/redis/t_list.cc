// List commands (Redis's t_list.c).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

// The list at `key` for reading: *list is nullptr when absent. False after replying WRONGTYPE.
bool list_for_read(Call& c, std::string_view key, ListValue** list) {
  *list = nullptr;
  Entry* e = c.lookup(key);
  if (e == nullptr) return true;
  *list = value_if<ListValue>(e->value);
  if (*list == nullptr) {
    c.wrong_type();
    return false;
  }
  return true;
}

void drop_if_empty(Call& c, std::string_view key, const ListValue& list) {
  if (!list.empty()) return;
  bool removed = c.db().remove(key);
  LS_ASSERT(removed);
}

void push(Call& c, bool head) {
  std::string_view key = c.argv[1];
  ListValue* list = nullptr;
  if (!list_for_read(c, key, &list)) return;
  if (list == nullptr) list = value_if<ListValue>(c.db().add(key, make_value(ListValue{})).value);
  for (size_t j = 2; j < c.argv.size(); j++) {
    if (head) {
      list->emplace_front(c.argv[j]);
    } else {
      list->emplace_back(c.argv[j]);
    }
  }
  c.dirty += c.argv.size() - 2;
  c.reply(Reply::integer_of(static_cast<int64_t>(list->size())));
}

void pop(Call& c, bool head) {
  if (c.argv.size() > 3) return c.arity_error();
  bool has_count = c.argv.size() == 3;
  int64_t count = 0;
  if (has_count && (!parse_int64(c.argv[2], &count) || count < 0)) {
    return c.error("ERR value is out of range, must be positive");
  }
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.reply(has_count ? Reply::nil_array() : Reply::nil());
  if (has_count && count == 0) return c.reply(Reply::array({}));
  if (!has_count) {
    c.reply(Reply::bulk(list_pop(*list, head)));
  } else {
    size_t n = std::min(static_cast<size_t>(count), list->size());
    std::vector<Reply> items;
    items.reserve(n);
    for (size_t i = 0; i < n; i++) items.push_back(Reply::bulk(list_pop(*list, head)));
    c.reply(Reply::array(std::move(items)));
  }
  c.dirty++;
  drop_if_empty(c, c.argv[1], *list);
}

// Redis's getTimeoutFromObjectOrReply in seconds: a long double, ceil(seconds * 1000) ms (so
// 0.0001 waits 1 ms and -0.0001 waits forever, as on redis-server), 0 for no timeout. On
// success *deadline_ms is the node-clock deadline, or 0.
bool block_timeout(Call& c, std::string_view text, int64_t* deadline_ms) {
  long double seconds = 0;
  if (!parse_long_double(text, &seconds)) {
    c.error("ERR timeout is not a float or out of range");
    return false;
  }
  const long double ms = std::ceil(seconds * 1000.0L);
  // Out of the 64-bit range, Redis's (long long) cast gives LLONG_MIN on x86-64: negative.
  constexpr long double kLimit = 9223372036854775808.0L;
  const int64_t timeout_ms = ms >= -kLimit && ms < kLimit ? static_cast<int64_t>(ms) : INT64_MIN;
  if (timeout_ms < 0) {
    c.error("ERR timeout is negative");
    return false;
  }
  *deadline_ms = 0;
  if (timeout_ms == 0) return true;
  const int64_t now = c.srv.mstime();
  if (timeout_ms > INT64_MAX - now) {
    c.error("ERR timeout is out of range");
    return false;
  }
  *deadline_ms = now + timeout_ms;
  return true;
}

// BLPOP/BRPOP key [key ...] timeout: pops from the first key holding a list, else blocks (or,
// inside EXEC, answers nil). The pop is propagated as LPOP/RPOP, as Redis rewrites it.
void blocking_pop(Call& c, bool head) {
  int64_t deadline_ms = 0;
  if (!block_timeout(c, c.argv.back(), &deadline_ms)) return;
  const size_t key_count = c.argv.size() - 2;
  for (size_t j = 1; j <= key_count; j++) {
    ListValue* list = nullptr;
    if (!list_for_read(c, c.argv[j], &list)) return;
    if (list == nullptr) continue;
    std::string_view key = c.argv[j];
    c.reply(Reply::array({Reply::bulk(key), Reply::bulk(list_pop(*list, head))}));
    c.dirty++;
    if (c.srv.propagating()) c.rewrite = {head ? "LPOP" : "RPOP", std::string(key)};
    drop_if_empty(c, key, *list);
    return;
  }
  if (!c.srv.can_block(c.client)) return c.reply(Reply::nil_array());
  std::vector<std::string> keys(c.argv.begin() + 1, c.argv.begin() + 1 + static_cast<std::ptrdiff_t>(key_count));
  c.srv.block_for_pop(c.client, std::move(keys), head, deadline_ms);
}

}  // namespace

void cmd_blpop(Call& c) { blocking_pop(c, true); }
void cmd_brpop(Call& c) { blocking_pop(c, false); }
void cmd_lpush(Call& c) { push(c, true); }
void cmd_rpush(Call& c) { push(c, false); }
void cmd_lpop(Call& c) { pop(c, true); }
void cmd_rpop(Call& c) { pop(c, false); }

void cmd_lindex(Call& c) {
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.reply(Reply::nil());
  int64_t index = 0;
  if (!parse_int64(c.argv[2], &index)) return c.not_integer();
  int64_t len = static_cast<int64_t>(list->size());
  if (index < 0) index += len;
  if (index < 0 || index >= len) return c.reply(Reply::nil());
  c.reply(Reply::bulk((*list)[static_cast<size_t>(index)]));
}

void cmd_lrange(Call& c) {
  int64_t start = 0, end = 0;
  if (!parse_int64(c.argv[2], &start) || !parse_int64(c.argv[3], &end)) return c.not_integer();
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  std::vector<Reply> items;
  int64_t len = list != nullptr ? static_cast<int64_t>(list->size()) : 0;
  if (start < 0) start = len + start;
  if (end < 0) end = len + end;
  if (start < 0) start = 0;
  if (list != nullptr && start <= end && start < len) {
    if (end >= len) end = len - 1;
    items.reserve(static_cast<size_t>(end - start + 1));
    for (int64_t i = start; i <= end; i++) items.push_back(Reply::bulk((*list)[static_cast<size_t>(i)]));
  }
  c.reply(Reply::array(std::move(items)));
}

void cmd_llen(Call& c) {
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  c.reply(Reply::integer_of(list != nullptr ? static_cast<int64_t>(list->size()) : 0));
}

void cmd_lrem(Call& c) {
  int64_t to_remove = 0;
  if (!parse_int64(c.argv[2], &to_remove)) return c.not_integer();
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.reply(Reply::integer_of(0));
  std::string_view target = c.argv[3];
  int64_t removed = 0;
  // Walk from the head for count >= 0, from the tail for count < 0; stop after |count| removals.
  uint64_t limit = to_remove == 0 ? UINT64_MAX
                   : to_remove < 0 ? static_cast<uint64_t>(-(to_remove + 1)) + 1
                                   : static_cast<uint64_t>(to_remove);
  if (to_remove >= 0) {
    for (auto it = list->begin(); it != list->end() && static_cast<uint64_t>(removed) < limit;) {
      if (*it == target) {
        it = list->erase(it);
        removed++;
      } else {
        ++it;
      }
    }
  } else {
    for (size_t i = list->size(); i > 0 && static_cast<uint64_t>(removed) < limit; i--) {
      if ((*list)[i - 1] == target) {
        list->erase(list->begin() + static_cast<std::ptrdiff_t>(i - 1));
        removed++;
      }
    }
  }
  c.dirty += static_cast<uint64_t>(removed);
  drop_if_empty(c, c.argv[1], *list);
  c.reply(Reply::integer_of(removed));
}

void cmd_lset(Call& c) {
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.error("ERR no such key");
  int64_t index = 0;
  if (!parse_int64(c.argv[2], &index)) return c.not_integer();
  const int64_t len = static_cast<int64_t>(list->size());
  if (index < 0) index += len;
  if (index < 0 || index >= len) return c.error("ERR index out of range");
  (*list)[static_cast<size_t>(index)] = std::string(c.argv[3]);
  c.dirty++;
  c.reply(Reply::ok());
}

void cmd_ltrim(Call& c) {
  int64_t start = 0, end = 0;
  if (!parse_int64(c.argv[2], &start) || !parse_int64(c.argv[3], &end)) return c.not_integer();
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.reply(Reply::ok());
  const int64_t len = static_cast<int64_t>(list->size());
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  int64_t from_head = 0, from_tail = 0;
  if (start > end || start >= len) {
    from_head = len;  // out of range: the list empties
  } else {
    if (end >= len) end = len - 1;
    from_head = start;
    from_tail = len - end - 1;
  }
  for (int64_t i = 0; i < from_head; i++) list->pop_front();
  for (int64_t i = 0; i < from_tail; i++) list->pop_back();
  c.dirty += static_cast<uint64_t>(from_head + from_tail);
  drop_if_empty(c, c.argv[1], *list);
  c.reply(Reply::ok());
}

// LPOS key element [RANK rank] [COUNT num] [MAXLEN len].
void cmd_lpos(Call& c) {
  int64_t rank = 1, count = -1, maxlen = 0;
  for (size_t j = 3; j < c.argv.size(); j++) {
    std::string_view opt = c.argv[j];
    const bool more = j + 1 < c.argv.size();
    if (iequals(opt, "rank") && more) {
      if (!parse_int64(c.argv[++j], &rank) || rank == INT64_MIN) return c.not_integer();
      if (rank == 0) {
        return c.error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                       "or use negative to start from the end of the list");
      }
    } else if (iequals(opt, "count") && more) {
      if (!parse_int64(c.argv[++j], &count) || count < 0) return c.error("ERR COUNT can't be negative");
    } else if (iequals(opt, "maxlen") && more) {
      if (!parse_int64(c.argv[++j], &maxlen) || maxlen < 0) return c.error("ERR MAXLEN can't be negative");
    } else {
      return c.syntax_error();
    }
  }
  ListValue* list = nullptr;
  if (!list_for_read(c, c.argv[1], &list)) return;
  if (list == nullptr) return c.reply(count != -1 ? Reply::array({}) : Reply::nil());
  const bool from_head = rank > 0;
  int64_t skip = (from_head ? rank : -rank) - 1;  // matches to pass over first
  const int64_t len = static_cast<int64_t>(list->size());
  std::vector<Reply> found;
  for (int64_t scanned = 0; scanned < len && (maxlen == 0 || scanned < maxlen); scanned++) {
    const int64_t pos = from_head ? scanned : len - 1 - scanned;
    if ((*list)[static_cast<size_t>(pos)] != c.argv[2]) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    found.push_back(Reply::integer_of(pos));
    if (count == -1 || (count != 0 && static_cast<int64_t>(found.size()) >= count)) break;
  }
  if (count != -1) return c.reply(Reply::array(std::move(found)));
  c.reply(found.empty() ? Reply::nil() : std::move(found.front()));
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
void cmd_lmove(Call& c) {
  auto side = [](std::string_view s, bool* left) {
    if (iequals(s, "left")) return *left = true;
    if (iequals(s, "right")) return !(*left = false);
    return false;
  };
  bool from_left = false, to_left = false;
  if (!side(c.argv[3], &from_left) || !side(c.argv[4], &to_left)) return c.syntax_error();
  std::string_view src = c.argv[1], dst = c.argv[2];
  ListValue* from = nullptr;
  if (!list_for_read(c, src, &from)) return;
  if (from == nullptr) return c.reply(Reply::nil());
  ListValue* to = nullptr;
  if (!list_for_read(c, dst, &to)) return;
  std::string value = from_left ? std::move(from->front()) : std::move(from->back());
  if (from_left) {
    from->pop_front();
  } else {
    from->pop_back();
  }
  if (to == nullptr) to = value_if<ListValue>(c.db().add(dst, make_value(ListValue{})).value);
  if (to_left) {
    to->emplace_front(value);
  } else {
    to->emplace_back(value);
  }
  if (src != dst) drop_if_empty(c, src, *from);
  c.dirty += 2;
  c.reply(Reply::bulk(value));
}

}  // namespace lockstep::redis
