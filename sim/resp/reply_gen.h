// A RapidCheck generator of arbitrary RESP2 replies, for the codec's property tests.
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

}  // namespace lockstep::resp::testing

#endif  // LOCKSTEP_SIM_RESP_REPLY_GEN_H_
