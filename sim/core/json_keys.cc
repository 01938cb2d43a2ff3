#include "sim/core/json_keys.h"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace lockstep {

std::optional<std::string> duplicate_key(std::string_view text) {
  struct Frame {
    bool array = false;
    std::set<std::string> keys;
    std::string key;
    int64_t index = -1;
  };
  std::vector<Frame> stack;
  std::optional<std::string> found;
  auto element_starts = [&] {
    if (!stack.empty() && stack.back().array) ++stack.back().index;
  };
  auto pointer = [&](const std::string& last) {
    std::string out;
    for (const Frame& f : stack) {
      if (&f == &stack.back()) break;
      out += "/" + (f.array ? std::to_string(f.index) : f.key);
    }
    return out + "/" + last;
  };
  using E = nlohmann::json::parse_event_t;
  const nlohmann::json::parser_callback_t cb = [&](int, E event, nlohmann::json& parsed) {
    if (found) return false;
    switch (event) {
      case E::object_start:
      case E::array_start:
        element_starts();
        stack.push_back({event == E::array_start, {}, {}, -1});
        break;
      case E::object_end:
      case E::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case E::key: {
        Frame& f = stack.back();
        const std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) found = pointer(key);
        f.key = key;
        break;
      }
      case E::value:
        element_starts();
        break;
    }
    return true;
  };
  const nlohmann::json parsed = nlohmann::json::parse(text, cb, /*allow_exceptions=*/false);
  static_cast<void>(parsed);  // only the callback's findings matter
  return found;
}

}  // namespace lockstep
