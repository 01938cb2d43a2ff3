#include "sim/redis/reply.h"

namespace lockstep::redis {

std::string describe(const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::kStatus: return reply.str;
    case Reply::Type::kError: return "(error) " + reply.str;
    case Reply::Type::kInteger: return "(integer) " + std::to_string(reply.integer);
    case Reply::Type::kBulk: return "\"" + reply.str + "\"";
    case Reply::Type::kNil: return "(nil)";
    case Reply::Type::kNilArray: return "(nil array)";
    case Reply::Type::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < reply.elements.size(); i++) {
        if (i > 0) s += ", ";
        s += describe(reply.elements[i]);
      }
      return s + "]";
    }
  }
  return "?";
}

}  // namespace lockstep::redis
