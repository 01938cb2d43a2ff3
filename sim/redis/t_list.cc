// List commands (Redis's t_list.c).
#include <string>

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
  auto take = [&]() {
    std::string v = head ? std::move(list->front()) : std::move(list->back());
    if (head) {
      list->pop_front();
    } else {
      list->pop_back();
    }
    return v;
  };
  if (!has_count) {
    c.reply(Reply::bulk(take()));
  } else {
    size_t n = std::min(static_cast<size_t>(count), list->size());
    std::vector<Reply> items;
    items.reserve(n);
    for (size_t i = 0; i < n; i++) items.push_back(Reply::bulk(take()));
    c.reply(Reply::array(std::move(items)));
  }
  c.dirty++;
  drop_if_empty(c, c.argv[1], *list);
}

}  // namespace

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

}  // namespace lockstep::redis
