// RapidCheck generators of arbitrary replies, RESP2 only or with RESP3's types, for the codec's
// property tests.
#ifndef LOCKSTEP_SIM_RESP_REPLY_GEN_H_
#define LOCKSTEP_SIM_RESP_REPLY_GEN_H_

#include <rapidcheck.h>

#include "sim/redis/reply.h"

namespace lockstep::resp::testing {

// Replies nested at most `depth` arrays deep; status and error texts never hold CR or LF
// (the writer would turn them into spaces).
inline rc::Gen<redis::Reply> arbitrary_reply(int depth) {
  using redis::Reply;
  auto line = rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string s) {
    for (char& c : s) if (c == '\r' || c == '\n') c = ' ';
    return s;
  });
  auto leaf = rc::gen::oneOf(
      rc::gen::map(line, [](std::string s) { return Reply::status(s); }),
      rc::gen::map(line, [](std::string s) { return Reply::error(s); }),
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t v) { return Reply::integer_of(v); }),
      rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string s) { return Reply::bulk(s); }),
      rc::gen::just(Reply::nil()), rc::gen::just(Reply::nil_array()));
  if (depth <= 0) return leaf;
  auto array = rc::gen::map(
      rc::gen::resize(8, rc::gen::container<std::vector<Reply>>(arbitrary_reply(depth - 1))),
      [](std::vector<Reply> v) { return Reply::array(std::move(v)); });
  return rc::gen::weightedOneOf<Reply>({{3, leaf}, {1, array}});
}

// Replies of every type, RESP3's included, nested at most `depth` aggregates deep. Doubles are
// anything Redis prints (inf, nan, -0 too); big numbers are digits; verbatim formats are three
// bytes without NUL.
inline rc::Gen<redis::Reply> arbitrary_typed_reply(int depth) {
  using redis::Reply;
  auto resp3_leaf = rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return Reply::double_of(d); }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Reply::boolean(b); }),
      rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t v) { return Reply::big_number("-" + std::to_string(v) + "7"); }),
      rc::gen::map(rc::gen::pair(rc::gen::container<std::string>(3, rc::gen::inRange<char>(' ', '~')),
                                 rc::gen::arbitrary<std::string>()),
                   [](const std::pair<std::string, std::string>& p) { return Reply::verbatim(p.first, p.second); }));
  auto leaf = rc::gen::oneOf(arbitrary_reply(0), resp3_leaf);
  if (depth <= 0) return leaf;
  auto items = rc::gen::resize(8, rc::gen::container<std::vector<Reply>>(arbitrary_typed_reply(depth - 1)));
  auto aggregate = rc::gen::map(rc::gen::pair(rc::gen::inRange(0, 4), items), [](std::pair<int, std::vector<Reply>> p) {
    switch (p.first) {
      case 0: return Reply::array(std::move(p.second));
      case 1: return Reply::set(std::move(p.second));
      case 2: return Reply::push(std::move(p.second));
      default:
        if (p.second.size() % 2 == 1) p.second.pop_back();
        return Reply::map(std::move(p.second));
    }
  });
  return rc::gen::weightedOneOf<Reply>({{3, leaf}, {1, aggregate}});
}

}  // namespace lockstep::resp::testing

#endif  // LOCKSTEP_SIM_RESP_REPLY_GEN_H_
