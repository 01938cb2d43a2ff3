// Helpers for algorithms' option validation: messages name the JSON path, what was expected
// and what was found, so the scenario parser can prefix the file name and be done.
#include <algorithm>

#include "algorithms/algorithm.h"

namespace lockstep::algorithms {
namespace {

std::string found(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return std::string(v.type_name()) + " " + text;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += '"' + items[i] + '"';
  }
  return out;
}

}  // namespace

Status check_known_fields(const nlohmann::json& options, const std::string& path,
                          const std::vector<std::string>& allowed) {
  if (!options.is_object()) {
    return Status::error(path + ": expected an object, found " + found(options));
  }
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      return Status::error(path + "/" + it.key() + ": unknown option (expected one of " +
                           (allowed.empty() ? std::string("none") : join(allowed)) + ")");
    }
  }
  return Status::ok_status();
}

Status check_int_field(const nlohmann::json& options, const std::string& path,
                       const std::string& field, int64_t min, int64_t max) {
  if (!options.contains(field)) return Status::ok_status();
  const nlohmann::json& v = options[field];
  if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max) {
    return Status::error(path + "/" + field + ": expected an integer in [" + std::to_string(min) +
                         ", " + std::to_string(max) + "], found " + found(v));
  }
  return Status::ok_status();
}

Status check_bool_field(const nlohmann::json& options, const std::string& path,
                        const std::string& field) {
  if (!options.contains(field) || options[field].is_boolean()) return Status::ok_status();
  return Status::error(path + "/" + field + ": expected true or false, found " +
                       found(options[field]));
}

Status check_string_field(const nlohmann::json& options, const std::string& path,
                          const std::string& field, const std::vector<std::string>& allowed) {
  if (!options.contains(field)) return Status::ok_status();
  const nlohmann::json& v = options[field];
  if (!v.is_string() || std::find(allowed.begin(), allowed.end(), v.get<std::string>()) == allowed.end()) {
    return Status::error(path + "/" + field + ": expected one of " + join(allowed) + ", found " +
                         found(v));
  }
  return Status::ok_status();
}

}  // namespace lockstep::algorithms
