#include "harness/scenario/json_reader.h"

#include <algorithm>
#include <cstdio>

#include "sim/core/printable.h"

namespace lockstep::scenario {

void Errors::expected(const std::string& path, const std::string& what,
                      const nlohmann::json& found) {
  if (!ok()) return;
  first_ = printable(file_ + ": " + (path.empty() ? "/" : path) + ": expected " + what + ", found " +
                     describe(found));
}

void Errors::message(const std::string& path, const std::string& text) {
  if (!ok()) return;
  first_ = printable(file_ + ": " + (path.empty() ? "/" : path) + ": " + text);
}

void Errors::raw(const std::string& text) {
  if (!ok()) return;
  first_ = printable(file_ + ": " + text);
}

std::string describe(const nlohmann::json& v) {
  if (v.is_object()) return v.empty() ? "an empty object" : "an object";
  if (v.is_array()) return v.empty() ? "an empty array" : "an array of " + std::to_string(v.size());
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) {
    size_t cut = 57;  // not inside a UTF-8 sequence
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return text;
}

bool check_name(const std::string& name, const std::string& path, Errors& errors,
                const std::string& what, size_t max_bytes) {
  if (!errors.ok()) return false;
  if (name.size() > max_bytes) {
    errors.message(path, "expected " + what + " of at most " + std::to_string(max_bytes) + " bytes, found one of " +
                             std::to_string(name.size()) + " bytes");
    return false;
  }
  const size_t at = find_control_character(name);
  if (at != std::string::npos) {
    // One byte below 0x80, or 0xc2 and the second byte of U+0080-U+009F.
    const unsigned char b = static_cast<unsigned char>(name[at]);
    char code[8];
    std::snprintf(code, sizeof code, "U+%04X", b < 0x80 ? b : static_cast<unsigned char>(name[at + 1]));
    // Shown as the terminal would show it (\x1b), the start of it only.
    size_t shown = std::min<size_t>(name.size(), 48);
    while (shown < name.size() && shown > 0 && (static_cast<unsigned char>(name[shown]) & 0xC0) == 0x80) --shown;
    errors.message(path, "expected " + what + " without control characters, found \"" + printable(name.substr(0, shown)) +
                             (shown < name.size() ? "...\"" : "\"") + " (control character " + code + " at byte " +
                             std::to_string(at) + ")");
    return false;
  }
  return true;
}

std::string integer_expectation(int64_t lo, int64_t hi, const std::string& unit) {
  std::string s = "an integer";
  if (!unit.empty()) s += " (" + unit + ")";
  if (lo == 0 && hi == INT64_MAX) return s + " >= 0";
  if (hi == INT64_MAX) return s + " >= " + std::to_string(lo);
  return s + " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

int64_t read_integer(const nlohmann::json& j, const std::string& path, Errors& errors,
                     int64_t lo, int64_t hi, const std::string& unit) {
  const bool is_int = j.is_number_integer() &&
                      (j.is_number_unsigned() ? j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)
                                              : true);
  if (!is_int || j.get<int64_t>() < lo || j.get<int64_t>() > hi) {
    errors.expected(path, integer_expectation(lo, hi, unit), j);
    return lo;
  }
  return j.get<int64_t>();
}

ObjectReader::ObjectReader(const nlohmann::json& j, std::string path, Errors& errors)
    : path_(std::move(path)), errors_(errors) {
  if (j.is_object()) {
    object_ = &j;
  } else {
    errors_.expected(path_, "an object", j);
  }
}

bool ObjectReader::has(const std::string& key) {
  asked_.insert(key);
  return object_ != nullptr && object_->contains(key);
}

const nlohmann::json* ObjectReader::get(const std::string& key) {
  asked_.insert(key);
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(key);
  if (it == object_->end()) return nullptr;
  read_.insert(key);
  return &*it;
}

int64_t ObjectReader::integer(const std::string& key, int64_t def, int64_t lo, int64_t hi,
                              const std::string& unit) {
  const nlohmann::json* v = get(key);
  if (v == nullptr) return def;
  return read_integer(*v, path(key), errors_, lo, hi, unit);
}

int64_t ObjectReader::required_integer(const std::string& key, int64_t lo, int64_t hi,
                                       const std::string& unit) {
  if (valid() && !has(key)) {
    errors_.message(path(key), "missing: expected " + integer_expectation(lo, hi, unit));
    return lo;
  }
  return integer(key, lo, lo, hi, unit);
}

std::string ObjectReader::string(const std::string& key, const std::string& def) {
  const nlohmann::json* v = get(key);
  if (v == nullptr) return def;
  if (!v->is_string()) {
    errors_.expected(path(key), "a string", *v);
    return def;
  }
  return v->get<std::string>();
}

std::string ObjectReader::required_string(const std::string& key) {
  if (valid() && !has(key)) {
    errors_.message(path(key), "missing: expected a non-empty string");
    return "";
  }
  std::string s = string(key, "");
  if (has(key) && s.empty()) errors_.expected(path(key), "a non-empty string", *get(key));
  return s;
}

std::string ObjectReader::choice(const std::string& key, const std::string& def,
                                 const std::vector<std::string>& allowed) {
  const nlohmann::json* v = get(key);
  if (v == nullptr) return def;
  if (!v->is_string() ||
      std::find(allowed.begin(), allowed.end(), v->get<std::string>()) == allowed.end()) {
    std::string list;
    for (size_t i = 0; i < allowed.size(); ++i) list += (i ? ", \"" : "\"") + allowed[i] + "\"";
    errors_.expected(path(key), "one of " + list, *v);
    return def;
  }
  return v->get<std::string>();
}

bool ObjectReader::boolean(const std::string& key, bool def) {
  const nlohmann::json* v = get(key);
  if (v == nullptr) return def;
  if (!v->is_boolean()) {
    errors_.expected(path(key), "true or false", *v);
    return def;
  }
  return v->get<bool>();
}

void ObjectReader::finish() {
  if (object_ == nullptr || !errors_.ok()) return;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (read_.count(it.key()) == 0) {
      std::string known;
      for (const std::string& k : asked_) known += (known.empty() ? "" : ", ") + k;
      errors_.message(path(it.key()),
                      "unknown field" + (known.empty() ? std::string(" (this object takes none)")
                                                       : " (allowed here: " + known + ")"));
      return;
    }
  }
}

}  // namespace lockstep::scenario
