#include "sim/redis/reply.h"

#include "sim/core/assert.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

Reply Reply::map(std::vector<Reply> keys_and_values) {
  LS_ASSERT(keys_and_values.size() % 2 == 0);
  return aggregate(Type::kMap, std::move(keys_and_values));
}

Reply Reply::double_of(double value) { return Reply(Type::kDouble, 0, format_double(value)); }

Reply Reply::verbatim(std::string_view format, std::string_view text) {
  std::string s(3, ' ');
  format = format.substr(0, format.find('\0'));
  for (size_t i = 0; i < 3 && i < format.size(); i++) s[i] = format[i];
  s += ':';
  s += text;
  return Reply(Type::kVerbatim, 0, s);
}

Reply to_resp2(Reply reply) {
  switch (reply.type) {
    case Reply::Type::kMap:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      reply.type = Reply::Type::kArray;
      [[fallthrough]];
    case Reply::Type::kArray:
      for (Reply& e : reply.elements) {
        if (!is_resp2(e)) e = to_resp2(std::move(e));
      }
      return reply;
    case Reply::Type::kDouble:
    case Reply::Type::kBigNumber:
      reply.type = Reply::Type::kBulk;
      return reply;
    case Reply::Type::kVerbatim:
      return Reply::bulk(reply.verbatim_text());
    case Reply::Type::kBool:
      reply.type = Reply::Type::kInteger;
      return reply;
    case Reply::Type::kStatus:
    case Reply::Type::kError:
    case Reply::Type::kInteger:
    case Reply::Type::kBulk:
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      return reply;
  }
  LS_ASSERT(false && "unknown reply type");
  return reply;
}

bool is_resp2(const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::kStatus:
    case Reply::Type::kError:
    case Reply::Type::kInteger:
    case Reply::Type::kBulk:
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      return true;
    case Reply::Type::kArray:
      for (const Reply& e : reply.elements) {
        if (!is_resp2(e)) return false;
      }
      return true;
    default:
      return false;
  }
}

namespace {

std::string describe_elements(const Reply& reply, std::string_view open, std::string_view close) {
  std::string s(open);
  const bool pairs = reply.type == Reply::Type::kMap;
  for (size_t i = 0; i < reply.elements.size(); i++) {
    if (i > 0) s += (pairs && i % 2 == 1) ? " => " : ", ";
    s += describe(reply.elements[i]);
  }
  return s + std::string(close);
}

}  // namespace

std::string describe(const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::kStatus: return reply.str;
    case Reply::Type::kError: return "(error) " + reply.str;
    case Reply::Type::kInteger: return "(integer) " + std::to_string(reply.integer);
    case Reply::Type::kBulk: return "\"" + reply.str + "\"";
    case Reply::Type::kNil: return "(nil)";
    case Reply::Type::kNilArray: return "(nil array)";
    case Reply::Type::kArray: return describe_elements(reply, "[", "]");
    case Reply::Type::kMap: return describe_elements(reply, "(map) {", "}");
    case Reply::Type::kSet: return describe_elements(reply, "(set) {", "}");
    case Reply::Type::kPush: return describe_elements(reply, "(push) [", "]");
    case Reply::Type::kDouble: return "(double) " + reply.str;
    case Reply::Type::kBool: return reply.integer != 0 ? "(true)" : "(false)";
    case Reply::Type::kVerbatim: return "(verbatim) \"" + reply.str + "\"";
    case Reply::Type::kBigNumber: return "(big number) " + reply.str;
  }
  return "?";
}

}  // namespace lockstep::redis
