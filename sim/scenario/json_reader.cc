#include "sim/scenario/json_reader.h"

#include <algorithm>

namespace lockstep::scenario {

void Errors::expected(const std::string& path, const std::string& what,
                      const nlohmann::json& found) {
  if (!ok()) return;
  first_ = file_ + ": " + (path.empty() ? "/" : path) + ": expected " + what + ", found " +
           describe(found);
}

void Errors::message(const std::string& path, const std::string& text) {
  if (!ok()) return;
  first_ = file_ + ": " + (path.empty() ? "/" : path) + ": " + text;
}

void Errors::raw(const std::string& text) {
  if (!ok()) return;
  first_ = file_ + ": " + text;
}

std::string describe(const nlohmann::json& v) {
  if (v.is_object()) return v.empty() ? "an empty object" : "an object";
  if (v.is_array()) return v.empty() ? "an empty array" : "an array of " + std::to_string(v.size());
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
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
