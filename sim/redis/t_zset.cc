// Sorted set commands (Redis's t_zset.c) and ZSetValue, the sorted set storage.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

const double* ZSetValue::score(std::string_view member) const {
  auto it = scores_.find(member);
  return it == scores_.end() ? nullptr : &it->second;
}

void ZSetValue::set(std::string_view member, double score) {
  LS_ASSERT(!std::isnan(score));
  auto it = scores_.find(member);
  // A new member that would overflow the listpack converts the set for good (zsetAdd).
  if (listpack_ && it == scores_.end() &&
      (scores_.size() + 1 > kMaxListpackEntries || member.size() > kMaxListpackValue)) {
    listpack_ = false;
  }
  if (listpack_ && score == 0) score = 0.0;  // the listpack reads "-0" back as the integer 0
  if (it != scores_.end()) {
    size_t erased = ordered_.erase(Item{it->second, it->first});
    LS_ASSERT(erased == 1);
    it->second = score;
  } else {
    it = scores_.emplace(std::string(member), score).first;
  }
  bool inserted = ordered_.insert(Item{score, it->first}).second;
  LS_ASSERT(inserted);
}

bool ZSetValue::remove(std::string_view member) {
  auto it = scores_.find(member);
  if (it == scores_.end()) return false;
  size_t erased = ordered_.erase(Item{it->second, it->first});
  LS_ASSERT(erased == 1);
  scores_.erase(it);
  return true;
}

size_t ZSetValue::rank(std::string_view member) const {
  const double* s = score(member);
  LS_ASSERT(s != nullptr);
  auto it = ordered_.find(Item{*s, std::string(member)});
  LS_ASSERT(it != ordered_.end());
  return static_cast<size_t>(std::distance(ordered_.begin(), it));
}

namespace {

// The sorted set at `key` for reading: *zset is nullptr when absent. False after WRONGTYPE.
bool zset_for_read(Call& c, std::string_view key, ZSetValue** zset) {
  *zset = nullptr;
  Entry* e = c.lookup(key);
  if (e == nullptr) return true;
  *zset = value_if<ZSetValue>(e->value);
  if (*zset == nullptr) {
    c.wrong_type();
    return false;
  }
  return true;
}

constexpr std::string_view kNotFloat = "ERR value is not a valid float";
constexpr std::string_view kNanResult = "ERR resulting score is not a number (NaN)";

struct ZaddOptions {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

// Parses ZADD's leading options; returns the index of the first score.
size_t parse_zadd_options(Args argv, ZaddOptions* o) {
  size_t i = 2;
  for (; i < argv.size(); i++) {
    std::string_view opt = argv[i];
    if (iequals(opt, "nx")) o->nx = true;
    else if (iequals(opt, "xx")) o->xx = true;
    else if (iequals(opt, "ch")) o->ch = true;
    else if (iequals(opt, "incr")) o->incr = true;
    else if (iequals(opt, "gt")) o->gt = true;
    else if (iequals(opt, "lt")) o->lt = true;
    else break;
  }
  return i;
}

// What zsetAdd did to one element.
enum class AddResult { kAdded, kUpdated, kUnchanged, kNop, kNan };

AddResult zset_add(ZSetValue& zset, const ZaddOptions& o, std::string_view member, double score,
                   double* new_score) {
  const double* current = zset.score(member);
  if (current != nullptr) {
    if (o.nx) return AddResult::kNop;
    if (o.incr) {
      score += *current;
      if (std::isnan(score)) return AddResult::kNan;
    }
    if ((o.lt && score >= *current) || (o.gt && score <= *current)) return AddResult::kNop;
    *new_score = score;
    // -0 and 0 compare equal: the stored score stays as it was, as in Redis.
    if (score == *current) return AddResult::kUnchanged;
    zset.set(member, score);
    return AddResult::kUpdated;
  }
  if (o.xx) return AddResult::kNop;
  zset.set(member, score);
  *new_score = score;
  return AddResult::kAdded;
}

void zadd_generic(Call& c, bool incr_command) {
  ZaddOptions o;
  o.incr = incr_command;
  size_t first = parse_zadd_options(c.argv, &o);
  size_t elements = c.argv.size() - first;
  if (elements % 2 != 0 || elements == 0) return c.syntax_error();
  elements /= 2;
  if (o.nx && o.xx) return c.error("ERR XX and NX options at the same time are not compatible");
  if ((o.gt && o.nx) || (o.lt && o.nx) || (o.gt && o.lt)) {
    return c.error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (o.incr && elements > 1) {
    return c.error("ERR INCR option supports a single increment-element pair");
  }
  // All scores are parsed before anything changes: the command runs fully or not at all.
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; j++) {
    if (!parse_double(c.argv[first + 2 * j], &scores[j])) return c.error(kNotFloat);
  }
  std::string_view key = c.argv[1];
  ZSetValue* zset = nullptr;
  if (!zset_for_read(c, key, &zset)) return;
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  if (zset == nullptr && !o.xx) {
    zset = value_if<ZSetValue>(c.db().add(key, make_value(ZSetValue(c.argv[first + 1]))).value);
  }
  for (size_t j = 0; zset != nullptr && j < elements; j++) {
    double new_score = 0;
    AddResult r = zset_add(*zset, o, c.argv[first + 2 * j + 1], scores[j], &new_score);
    if (r == AddResult::kNan) {
      c.dirty += static_cast<uint64_t>(added + updated);
      return c.error(kNanResult);
    }
    if (r == AddResult::kAdded) added++;
    if (r == AddResult::kUpdated) updated++;
    if (r != AddResult::kNop) {
      processed++;
      score = new_score;
    }
  }
  c.dirty += static_cast<uint64_t>(added + updated);
  if (o.incr) {
    c.reply(processed > 0 ? Reply::double_of(score) : Reply::nil());
  } else {
    c.reply(Reply::integer_of(o.ch ? added + updated : added));
  }
}

// A score bound of ZRANGEBYSCORE: "(" prefix for exclusive; strtod on the rest, which must be
// consumed entirely (leading spaces allowed, as strtod skips them) and not NaN.
bool parse_score_bound(std::string_view text, double* value, bool* exclusive) {
  *exclusive = !text.empty() && text[0] == '(';
  if (*exclusive) text.remove_prefix(1);
  std::string buf(text);  // NUL-terminated for strtod
  char* end = nullptr;
  *value = std::strtod(buf.c_str(), &end);
  return *end == '\0' && !std::isnan(*value);
}

struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool gte_min(double v) const { return minex ? v > min : v >= min; }
  bool lte_max(double v) const { return maxex ? v < max : v <= max; }
};

// A lexicographic bound: "-", "+", "(member" or "[member".
struct LexBound {
  enum Kind { kMin, kMax, kValue } kind = kValue;
  bool exclusive = false;
  std::string value;
};

bool parse_lex_bound(std::string_view text, LexBound* b) {
  if (text == "-") {
    b->kind = LexBound::kMin;
  } else if (text == "+") {
    b->kind = LexBound::kMax;
  } else if (!text.empty() && (text[0] == '(' || text[0] == '[')) {
    b->kind = LexBound::kValue;
    b->exclusive = text[0] == '(';
    b->value = std::string(text.substr(1));
  } else {
    return false;
  }
  return true;
}

bool lex_gte_min(std::string_view v, const LexBound& min) {
  if (min.kind != LexBound::kValue) return min.kind == LexBound::kMin;
  return min.exclusive ? v > min.value : v >= min.value;
}
bool lex_lte_max(std::string_view v, const LexBound& max) {
  if (max.kind != LexBound::kValue) return max.kind == LexBound::kMax;
  return max.exclusive ? v < max.value : v <= max.value;
}

// sdscmplex: "-" sorts before everything and "+" after (each equal to itself).
int compare_lex_bounds(const LexBound& a, const LexBound& b) {
  if (a.kind == b.kind && a.kind != LexBound::kValue) return 0;
  if (a.kind == LexBound::kMin || b.kind == LexBound::kMax) return -1;
  if (a.kind == LexBound::kMax || b.kind == LexBound::kMin) return 1;
  return a.value.compare(b.value);
}

// zzlIsInLexRange: whether a lexicographic range can match anything at all. Redis tests the
// range itself, then the last element against min and the first against max — on a set whose
// scores differ (lexicographic order undefined) this is what decides, not the members between.
bool lex_range_possible(const ZSetValue& z, const LexBound& min, const LexBound& max) {
  const int cmp = compare_lex_bounds(min, max);
  if (cmp > 0 || (cmp == 0 && (min.exclusive || max.exclusive))) return false;
  if (z.size() == 0) return false;
  return lex_gte_min(z.ordered().rbegin()->member, min) && lex_lte_max(z.ordered().begin()->member, max);
}

struct RangeOptions {
  enum Type { kAuto, kRank, kScore, kLex } type = kAuto;
  bool reverse = false;
  bool reverse_allowed = true;
  bool withscores = false;
  bool score_pairs = false;  // RESP3: each member and its score as a 2-element array
  int64_t offset = 0;
  int64_t limit = -1;
};

// One element of a range reply: the member, then its score (a double) WITHSCORES; in RESP3 the
// two as a pair, as Redis 7.0's zrangeResultEmit does, in RESP2 one after the other.
void emit(std::vector<Reply>& out, const ZSetValue::Item& item, const RangeOptions& o) {
  if (o.withscores && o.score_pairs) {
    out.push_back(Reply::array({Reply::bulk(item.member), Reply::double_of(item.score)}));
    return;
  }
  out.push_back(Reply::bulk(item.member));
  if (o.withscores) out.push_back(Reply::double_of(item.score));
}

// genericZrangebyscore/bylex as Redis runs them on a listpack: from the head (tail when
// reversed) find the first element meeting the near bound; if it also meets the far bound, skip
// `offset` elements, then emit while the far bound holds, at most `limit` (negative: no limit).
template <typename It, typename Near, typename Far>
void range_walk(It it, It end, const RangeOptions& o, Near near, Far far, std::vector<Reply>& out) {
  while (it != end && !near(*it)) ++it;
  if (it == end || !far(*it)) return;
  // A negative offset skips everything, as Redis's `while (eptr && offset--)` does.
  int64_t offset = o.offset;
  while (it != end && offset-- != 0) ++it;
  int64_t limit = o.limit;
  while (it != end && limit-- != 0) {
    if (!far(*it)) break;
    emit(out, *it, o);
    ++it;
  }
}

template <typename Min, typename Max>
void range_by_bounds(const ZSetValue& z, const RangeOptions& o, Min gte_min, Max lte_max,
                     std::vector<Reply>& out) {
  if (o.reverse) {
    range_walk(z.ordered().rbegin(), z.ordered().rend(), o, lte_max, gte_min, out);
  } else {
    range_walk(z.ordered().begin(), z.ordered().end(), o, gte_min, lte_max, out);
  }
}

void range_by_rank(const ZSetValue& z, int64_t start, int64_t end, const RangeOptions& o,
                   std::vector<Reply>& out) {
  int64_t len = static_cast<int64_t>(z.size());
  if (start < 0) start = len + start;
  if (end < 0) end = len + end;
  if (start < 0) start = 0;
  if (start > end || start >= len) return;
  if (end >= len) end = len - 1;
  int64_t i = 0;
  auto take = [&](const ZSetValue::Item& item) {
    if (i >= start && i <= end) emit(out, item, o);
    i++;
  };
  if (o.reverse) {
    for (auto it = z.ordered().rbegin(); it != z.ordered().rend() && i <= end; ++it) take(*it);
  } else {
    for (auto it = z.ordered().begin(); it != z.ordered().end() && i <= end; ++it) take(*it);
  }
}

// Parses the options after <key> <min> <max> (zrangeGenericCommand's step 1).
bool parse_range_options(Call& c, RangeOptions* o) {
  for (size_t j = 4; j < c.argv.size(); j++) {
    std::string_view a = c.argv[j];
    size_t left = c.argv.size() - j - 1;
    if (iequals(a, "withscores")) {
      o->withscores = true;
    } else if (iequals(a, "limit") && left >= 2) {
      if (!parse_int64(c.argv[j + 1], &o->offset) || !parse_int64(c.argv[j + 2], &o->limit)) {
        c.not_integer();
        return false;
      }
      j += 2;
    } else if (o->reverse_allowed && !o->reverse && iequals(a, "rev")) {
      o->reverse = true;
    } else if (o->type == RangeOptions::kAuto && iequals(a, "bylex")) {
      o->type = RangeOptions::kLex;
    } else if (o->type == RangeOptions::kAuto && iequals(a, "byscore")) {
      o->type = RangeOptions::kScore;
    } else {
      c.syntax_error();
      return false;
    }
  }
  return true;
}

void zrange_generic(Call& c, RangeOptions o) {
  if (!parse_range_options(c, &o)) return;
  o.score_pairs = c.client.resp3();
  if (o.type == RangeOptions::kAuto) o.type = RangeOptions::kRank;
  if (o.limit != -1 && o.type == RangeOptions::kRank) {
    return c.error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (o.withscores && o.type == RangeOptions::kLex) {
    return c.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  std::string_view min_arg = c.argv[2], max_arg = c.argv[3];
  if (o.reverse && o.type != RangeOptions::kRank) std::swap(min_arg, max_arg);
  int64_t start = 0, end = 0;
  ScoreRange sr;
  LexBound lmin, lmax;
  if (o.type == RangeOptions::kRank) {
    if (!parse_int64(min_arg, &start) || !parse_int64(max_arg, &end)) return c.not_integer();
  } else if (o.type == RangeOptions::kScore) {
    if (!parse_score_bound(min_arg, &sr.min, &sr.minex) ||
        !parse_score_bound(max_arg, &sr.max, &sr.maxex)) {
      return c.error("ERR min or max is not a float");
    }
  } else if (!parse_lex_bound(min_arg, &lmin) || !parse_lex_bound(max_arg, &lmax)) {
    return c.error("ERR min or max not valid string range item");
  }
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  std::vector<Reply> out;
  if (z != nullptr && o.type == RangeOptions::kRank) {
    range_by_rank(*z, start, end, o, out);
  } else if (z != nullptr && o.type == RangeOptions::kScore) {
    range_by_bounds(
        *z, o, [&](const ZSetValue::Item& i) { return sr.gte_min(i.score); },
        [&](const ZSetValue::Item& i) { return sr.lte_max(i.score); }, out);
  } else if (z != nullptr && lex_range_possible(*z, lmin, lmax)) {
    range_by_bounds(
        *z, o, [&](const ZSetValue::Item& i) { return lex_gte_min(i.member, lmin); },
        [&](const ZSetValue::Item& i) { return lex_lte_max(i.member, lmax); }, out);
  }
  c.reply(Reply::array(std::move(out)));
}

// The range ZCOUNT, ZLEXCOUNT and the ZREMRANGEBY* commands name with argv[2] and argv[3], as a
// predicate over elements; for ranks, the 0-based [start, end] already clamped (empty: start >
// end). False after an error reply.
struct ElementRange {
  RangeOptions::Type type = RangeOptions::kScore;
  ScoreRange score;
  LexBound lmin, lmax;
  int64_t start = 0, end = -1;
  bool contains(const ZSetValue::Item& i, int64_t rank) const {
    switch (type) {
      case RangeOptions::kScore: return score.gte_min(i.score) && score.lte_max(i.score);
      case RangeOptions::kLex: return lex_gte_min(i.member, lmin) && lex_lte_max(i.member, lmax);
      default: return rank >= start && rank <= end;
    }
  }
};

// The elements a range names, in order, as Redis finds them: ranks by position; scores and
// lexicographic bounds by walking from the first element that meets the minimum while the
// maximum holds (zzlFirstInRange / zzlFirstInLexRange, then next while in range), after the
// lexicographic range's own check.
template <typename Fn>
void for_each_in_range(const ZSetValue& z, const ElementRange& r, Fn fn) {
  if (r.type == RangeOptions::kLex && !lex_range_possible(z, r.lmin, r.lmax)) return;
  int64_t rank = 0;
  bool started = false;
  for (const ZSetValue::Item& i : z.ordered()) {
    if (r.type == RangeOptions::kRank) {
      if (r.contains(i, rank++)) fn(i);
      continue;
    }
    const bool min_ok = r.type == RangeOptions::kScore ? r.score.gte_min(i.score) : lex_gte_min(i.member, r.lmin);
    const bool max_ok = r.type == RangeOptions::kScore ? r.score.lte_max(i.score) : lex_lte_max(i.member, r.lmax);
    if (!started && !min_ok) continue;
    started = true;
    if (!max_ok) break;
    fn(i);
  }
}

bool parse_element_range(Call& c, RangeOptions::Type type, ElementRange* r) {
  r->type = type;
  if (type == RangeOptions::kScore) {
    if (!parse_score_bound(c.argv[2], &r->score.min, &r->score.minex) ||
        !parse_score_bound(c.argv[3], &r->score.max, &r->score.maxex)) {
      c.error("ERR min or max is not a float");
      return false;
    }
  } else if (type == RangeOptions::kLex) {
    if (!parse_lex_bound(c.argv[2], &r->lmin) || !parse_lex_bound(c.argv[3], &r->lmax)) {
      c.error("ERR min or max not valid string range item");
      return false;
    }
  } else if (!parse_int64(c.argv[2], &r->start) || !parse_int64(c.argv[3], &r->end)) {
    c.not_integer();
    return false;
  }
  return true;
}

// Clamps a rank range to the set's size as ZREMRANGEBYRANK does (start > end: nothing).
void clamp_ranks(ElementRange* r, int64_t len) {
  if (r->start < 0) r->start += len;
  if (r->end < 0) r->end += len;
  if (r->start < 0) r->start = 0;
  if (r->end >= len) r->end = len - 1;
}

void zcount_generic(Call& c, RangeOptions::Type type) {
  ElementRange r;
  if (!parse_element_range(c, type, &r)) return;
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  int64_t n = 0;
  if (z != nullptr) for_each_in_range(*z, r, [&](const ZSetValue::Item&) { n++; });
  c.reply(Reply::integer_of(n));
}

void zremrange_generic(Call& c, RangeOptions::Type type) {
  ElementRange r;
  if (!parse_element_range(c, type, &r)) return;
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  if (z == nullptr) return c.reply(Reply::integer_of(0));
  if (type == RangeOptions::kRank) clamp_ranks(&r, static_cast<int64_t>(z->size()));
  std::vector<std::string> doomed;
  for_each_in_range(*z, r, [&](const ZSetValue::Item& i) { doomed.push_back(i.member); });
  for (const std::string& m : doomed) z->remove(m);
  if (z->size() == 0) {
    bool gone = c.db().remove(c.argv[1]);
    LS_ASSERT(gone);
  }
  c.dirty += doomed.size();
  c.reply(Reply::integer_of(static_cast<int64_t>(doomed.size())));
}

}  // namespace

void cmd_zadd(Call& c) { zadd_generic(c, false); }
void cmd_zincrby(Call& c) { zadd_generic(c, true); }

void cmd_zscore(Call& c) {
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  const double* s = z != nullptr ? z->score(c.argv[2]) : nullptr;
  c.reply(s != nullptr ? Reply::double_of(*s) : Reply::nil());
}

void cmd_zrem(Call& c) {
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  if (z == nullptr) return c.reply(Reply::integer_of(0));
  int64_t deleted = 0;
  for (size_t j = 2; j < c.argv.size() && z->size() > 0; j++) {
    if (z->remove(c.argv[j])) deleted++;
  }
  if (z->size() == 0) {
    bool gone = c.db().remove(c.argv[1]);
    LS_ASSERT(gone);
  }
  c.dirty += static_cast<uint64_t>(deleted);
  c.reply(Reply::integer_of(deleted));
}

void cmd_zrange(Call& c) { zrange_generic(c, RangeOptions{}); }

void cmd_zrangebyscore(Call& c) {
  RangeOptions o;
  o.type = RangeOptions::kScore;
  o.reverse_allowed = false;
  zrange_generic(c, o);
}

void cmd_zrevrange(Call& c) {
  RangeOptions o;
  o.type = RangeOptions::kRank;
  o.reverse = true;
  o.reverse_allowed = false;
  zrange_generic(c, o);
}

void cmd_zrevrangebyscore(Call& c) {
  RangeOptions o;
  o.type = RangeOptions::kScore;
  o.reverse = true;
  o.reverse_allowed = false;
  zrange_generic(c, o);
}

void cmd_zrangebylex(Call& c) {
  RangeOptions o;
  o.type = RangeOptions::kLex;
  o.reverse_allowed = false;
  zrange_generic(c, o);
}

void cmd_zrevrangebylex(Call& c) {
  RangeOptions o;
  o.type = RangeOptions::kLex;
  o.reverse = true;
  o.reverse_allowed = false;
  zrange_generic(c, o);
}

void cmd_zcount(Call& c) { zcount_generic(c, RangeOptions::kScore); }
void cmd_zlexcount(Call& c) { zcount_generic(c, RangeOptions::kLex); }
void cmd_zremrangebyscore(Call& c) { zremrange_generic(c, RangeOptions::kScore); }
void cmd_zremrangebylex(Call& c) { zremrange_generic(c, RangeOptions::kLex); }
void cmd_zremrangebyrank(Call& c) { zremrange_generic(c, RangeOptions::kRank); }

void cmd_zrevrank(Call& c) {
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  if (z == nullptr || z->score(c.argv[2]) == nullptr) return c.reply(Reply::nil());
  c.reply(Reply::integer_of(static_cast<int64_t>(z->size() - 1 - z->rank(c.argv[2]))));
}

void cmd_zcard(Call& c) {
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  c.reply(Reply::integer_of(z != nullptr ? static_cast<int64_t>(z->size()) : 0));
}

void cmd_zrank(Call& c) {
  ZSetValue* z = nullptr;
  if (!zset_for_read(c, c.argv[1], &z)) return;
  if (z == nullptr || z->score(c.argv[2]) == nullptr) return c.reply(Reply::nil());
  c.reply(Reply::integer_of(static_cast<int64_t>(z->rank(c.argv[2]))));
}

}  // namespace lockstep::redis
