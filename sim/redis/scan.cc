// SCAN, HSCAN, SSCAN, ZSCAN (Redis's db.c scanGenericCommand).
//
// Redis walks a dict with a reverse-binary cursor, so an element present for the whole
// iteration is returned at least once while the dict grows or shrinks. The model keeps the
// guarantee with its own cursor: elements are visited in the order of a fixed 63-bit hash of
// their name, and the cursor is one more than the last hash visited, so inserting or deleting
// other elements never moves one past the cursor. A call returns at least COUNT elements (and
// every element sharing the last hash) before MATCH and TYPE filter them, as Redis filters after
// collecting. Collections Redis keeps small (listpack, intset) come back whole with cursor 0,
// as Redis returns them; so does anything with at most COUNT elements (a small dict is visited
// in one call by Redis too). The order within a call is the hash order, not Redis's.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {
namespace {

// FNV-1a, top bit cleared: cursors stay positive and cursor + 1 never wraps.
uint64_t scan_hash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h & 0x7fffffffffffffffull;
}

struct ScanOptions {
  uint64_t cursor = 0;
  int64_t count = 10;
  std::string_view pattern;
  bool match = false;
  std::string_view type;  // SCAN only
  bool by_type = false;
};

// parseScanCursorOrReply: strtoul over the whole text, so a sign is allowed (a negative cursor
// wraps around), an empty text is 0, and only leading spaces, trailing junk and overflow are
// errors. False after the error.
bool parse_cursor(Call& c, std::string_view text, uint64_t* cursor) {
  const std::string buf(text);
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(buf.c_str(), &end, 10);
  if ((!buf.empty() && std::isspace(static_cast<unsigned char>(buf[0]))) || *end != '\0' || errno == ERANGE) {
    c.error("ERR invalid cursor");
    return false;
  }
  *cursor = v;
  return true;
}

// Parses "[MATCH p] [COUNT n] [TYPE t]" from argv[first]. False after an error reply.
bool parse_scan_options(Call& c, size_t first, bool allow_type, ScanOptions* o) {
  for (size_t j = first; j < c.argv.size(); j += 2) {
    const bool has_value = j + 1 < c.argv.size();
    if (iequals(c.argv[j], "count") && has_value) {
      if (!parse_int64(c.argv[j + 1], &o->count)) {
        c.not_integer();
        return false;
      }
      if (o->count < 1) {
        c.syntax_error();
        return false;
      }
    } else if (iequals(c.argv[j], "match") && has_value) {
      o->pattern = c.argv[j + 1];
      o->match = o->pattern != "*";
    } else if (allow_type && iequals(c.argv[j], "type") && has_value) {
      o->type = c.argv[j + 1];
      o->by_type = true;
    } else {
      c.syntax_error();
      return false;
    }
  }
  return true;
}

// One element to visit: its name (the key, field or member) and what follows it in the reply.
struct ScanItem {
  uint64_t hash;
  std::string name;
  std::string extra;  // HSCAN: the value; ZSCAN: the score
  bool has_extra = false;
};

// The items of this call and the next cursor: all of them, cursor 0, for a collection Redis
// keeps small (whatever the cursor, as Redis does) or a first call that COUNT covers; else the
// hash-ordered slice from the cursor.
std::vector<const ScanItem*> visit(std::vector<ScanItem>& items, const ScanOptions& o, bool small,
                                   uint64_t* next) {
  std::vector<const ScanItem*> out;
  *next = 0;
  if (small) {  // in the collection's own order, which is Redis's listpack or intset order
    for (const ScanItem& i : items) out.push_back(&i);
    return out;
  }
  std::sort(items.begin(), items.end(), [](const ScanItem& a, const ScanItem& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.name < b.name;
  });
  if (o.cursor == 0 && static_cast<int64_t>(items.size()) <= o.count) {
    for (const ScanItem& i : items) out.push_back(&i);
    return out;
  }
  const uint64_t from = o.cursor == 0 ? 0 : o.cursor - 1;  // cursor = last hash visited + 2
  auto it = std::lower_bound(items.begin(), items.end(), from,
                             [](const ScanItem& i, uint64_t h) { return i.hash < h; });
  for (; it != items.end(); ++it) {
    if (static_cast<int64_t>(out.size()) >= o.count && it->hash != out.back()->hash) break;
    out.push_back(&*it);
  }
  if (it != items.end()) *next = out.back()->hash + 2;
  return out;
}

// Replies [next cursor, elements] for the items this call visits, MATCH applied.
void reply_scan(Call& c, std::vector<ScanItem>& all, const ScanOptions& o, bool small) {
  uint64_t next = 0;
  const std::vector<const ScanItem*> items = visit(all, o, small, &next);
  std::vector<Reply> elements;
  for (const ScanItem* i : items) {
    if (o.match && !glob_match(o.pattern, i->name)) continue;
    elements.push_back(Reply::bulk(i->name));
    if (i->has_extra) elements.push_back(Reply::bulk(i->extra));
  }
  c.reply(Reply::array({Reply::bulk(std::to_string(next)), Reply::array(std::move(elements))}));
}

// The start of HSCAN/SSCAN/ZSCAN, in Redis's order: the cursor, then the key (missing: an empty
// scan, whatever the options), its type, then the options. The collection, or nullptr when a
// reply was made.
template <typename T>
const T* scan_collection(Call& c, ScanOptions* o) {
  if (!parse_cursor(c, c.argv[2], &o->cursor)) return nullptr;
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) {
    c.reply(Reply::array({Reply::bulk("0"), Reply::array({})}));
    return nullptr;
  }
  const T* value = value_if<T>(e->value);
  if (value == nullptr) {
    c.wrong_type();
    return nullptr;
  }
  if (!parse_scan_options(c, 3, false, o)) return nullptr;
  return value;
}

const char* type_name(const Value& v) { return kTypeNames[v.index()]; }

}  // namespace

void cmd_scan(Call& c) {
  ScanOptions o;
  if (!parse_cursor(c, c.argv[1], &o.cursor) || !parse_scan_options(c, 2, /*allow_type=*/true, &o)) return;
  const Keyspace& db = c.db();
  std::vector<ScanItem> items;
  for (const std::string& key : db.sorted_keys()) {
    const Entry* e = db.find(key);
    LS_ASSERT(e != nullptr);
    if (c.srv.logically_expired(*e)) continue;  // skipped, as Redis's scan callback does
    if (o.by_type && !iequals(o.type, type_name(e->value))) continue;
    items.push_back({scan_hash(key), key, "", false});
  }
  reply_scan(c, items, o, /*small=*/false);
}

void cmd_hscan(Call& c) {
  ScanOptions o;
  const HashValue* hash = scan_collection<HashValue>(c, &o);
  if (hash == nullptr) return;
  std::vector<ScanItem> items;
  bool small = hash->size() <= 128;  // hash-max-listpack-entries; -value 64 below
  hash->for_each([&](std::string_view f, std::string_view v) {
    small = small && f.size() <= 64 && v.size() <= 64;
    items.push_back({scan_hash(f), std::string(f), std::string(v), true});
  });
  reply_scan(c, items, o, small);
}

void cmd_sscan(Call& c) {
  ScanOptions o;
  const SetValue* set = scan_collection<SetValue>(c, &o);
  if (set == nullptr) return;
  std::vector<ScanItem> items;
  set->for_each([&](std::string_view m) { items.push_back({scan_hash(m), std::string(m), "", false}); });
  reply_scan(c, items, o, set->is_intset());
}

void cmd_zscan(Call& c) {
  ScanOptions o;
  const ZSetValue* z = scan_collection<ZSetValue>(c, &o);
  if (z == nullptr) return;
  std::vector<ScanItem> items;
  for (const ZSetValue::Item& i : z->ordered()) {
    items.push_back({scan_hash(i.member), i.member, format_double(i.score), true});
  }
  reply_scan(c, items, o, z->is_listpack());
}

}  // namespace lockstep::redis
