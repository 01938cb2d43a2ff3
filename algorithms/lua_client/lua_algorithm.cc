// Loading a Lua algorithm: reading its declaration and registering it (docs/lua-algorithms.md).
#include "algorithms/lua_client/lua_algorithm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_internal.h"
#include "sim/core/assert.h"
#include "sim/core/files.h"

namespace lockstep::algorithms::lua_client {
namespace {

constexpr size_t kMaxName = 64;
constexpr size_t kMaxDescription = 200;
constexpr size_t kMaxStringOption = 4096;

bool name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!first && (c == '-' || c == '_' || c == '.'));
}

bool good_name(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!name_char(s[i], i == 0)) return false;
  }
  return true;
}

bool printable_text(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// Reads the declaration returned by the file (on top of L) into `d`. Errors are "<what>: ..."
// (the caller prefixes the file).
class DeclarationReader {
 public:
  DeclarationReader(lua_State* L, Definition& d, std::string dir) : L_(L), d_(d), dir_(std::move(dir)) {}

  Status read() {
    if (!lua_istable(L_, -1)) return err("the file must return a table (the algorithm's declaration), found a " + type(-1));
    const int t = lua_gettop(L_);
    static const std::set<std::string> kFields = {"name", "kind", "description", "fair", "independent_masters",
                                                  "options", "scripts", "coverage", "acquire", "release",
                                                  "force_release", "default_lease_ms", "grants", "renews"};
    lua_pushnil(L_);
    while (lua_next(L_, t) != 0) {
      lua_pop(L_, 1);
      const std::string key = lua_type(L_, -1) == LUA_TSTRING ? lua_tostring(L_, -1) : "";
      if (kFields.count(key) == 0) {
        lua_pop(L_, 1);
        return err("the returned table: unknown field '" + (key.empty() ? std::string("(not a string)") : key) +
                   "' (expected name, kind, description, fair, independent_masters, default_lease_ms, "
                   "grants, renews, options, scripts, coverage, acquire, release, force_release)");
      }
    }
    Status s = read_strings(t);
    if (s.ok()) s = read_functions(t);
    if (s.ok()) s = read_options(t);
    if (s.ok()) s = read_flags(t);  // after the options: renews may name one
    if (s.ok()) s = read_scripts(t);
    if (s.ok()) s = read_coverage(t);
    if (s.ok()) s = read_default_lease(t);
    if (s.ok()) s = read_grants(t);
    return s;
  }

 private:
  Status err(const std::string& m) const { return Status::error(m); }
  std::string type(int idx) const { return luaL_typename(L_, idx); }

  // Pushes field `name` of the table at `t`, raw: the declaration is read outside a protected
  // call, where a metatable's __index must not run.
  int field(int t, const char* name) {
    t = t < 0 ? lua_gettop(L_) + t + 1 : t;
    lua_pushstring(L_, name);
    lua_rawget(L_, t);
    return lua_gettop(L_);
  }

  Status read_strings(int t) {
    const int n = field(t, "name");
    if (lua_type(L_, n) != LUA_TSTRING) return err("name: expected a string, found " + type(n));
    d_.name = lua_tostring(L_, n);
    if (!good_name(d_.name, kMaxName)) {
      return err("name: expected 1 to 64 of a-z, 0-9, '-', '_', '.' starting with a letter or digit, found '" +
                 d_.name.substr(0, kMaxName) + "'");
    }
    const int k = field(t, "kind");
    if (!lua_isnil(L_, k)) {
      const char* kind = lua_type(L_, k) == LUA_TSTRING ? lua_tostring(L_, k) : "";
      d_.kind = kind;
      if (d_.kind != "simple" && d_.kind != "reentrant" && d_.kind != "rwlock" && d_.kind != "redlock") {
        return err("kind: expected one of simple, reentrant, rwlock, redlock, found " +
                   (lua_type(L_, k) == LUA_TSTRING ? "'" + d_.kind + "'" : "a " + type(k)));
      }
    }
    const int desc = field(t, "description");
    if (!lua_isnil(L_, desc)) {
      if (lua_type(L_, desc) != LUA_TSTRING) return err("description: expected a string, found " + type(desc));
      d_.description = lua_tostring(L_, desc);
      if (d_.description.size() > kMaxDescription || !printable_text(d_.description)) {
        return err("description: expected one line of at most 200 characters");
      }
    }
    if (d_.description.empty()) d_.description = "a lock written in Lua";
    lua_settop(L_, t);
    return Status::ok_status();
  }

  Status read_flags(int t) {
    d_.independent_masters = d_.kind == "redlock";
    for (auto [name, slot] : {std::pair<const char*, bool*>{"fair", &d_.fair},
                              {"independent_masters", &d_.independent_masters},
                              {"renews", &d_.renews}}) {
      const int f = field(t, name);
      if (lua_isnil(L_, f)) continue;
      if (slot == &d_.renews && lua_type(L_, f) == LUA_TSTRING) {
        // renews = "auto_renewal": the name of a boolean option that says whether it renews.
        d_.renews_option = lua_tostring(L_, f);
        bool found = false;
        for (const OptionSpec& o : d_.options) found = found || (o.name == d_.renews_option && o.type == OptionSpec::Type::kBoolean);
        if (!found) return err("renews: '" + d_.renews_option + "' is not a boolean option (give true, false, or such an option's name)");
        continue;
      }
      if (!lua_isboolean(L_, f)) return err(std::string(name) + ": expected true or false, found " + type(f));
      *slot = lua_toboolean(L_, f) != 0;
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  Status read_functions(int t) {
    for (const char* name : {"acquire", "release", "force_release"}) {
      const int f = field(t, name);
      const bool optional = std::string_view(name) == "force_release";
      if (lua_isnil(L_, f) && optional) continue;
      if (!lua_isfunction(L_, f)) {
        return err(std::string(name) + ": expected a function(thread, request), found " + type(f));
      }
      if (optional) d_.has_force_release = true;
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  // options = { name = default, or name = {default = ..., min = ..., max = ..., values = {...}} }
  Status read_options(int t) {
    const int o = field(t, "options");
    if (lua_isnil(L_, o)) return Status::ok_status();
    if (!lua_istable(L_, o)) return err("options: expected a table of name = default, found " + type(o));
    lua_pushnil(L_);
    while (lua_next(L_, o) != 0) {
      const int v = lua_gettop(L_);
      if (lua_type(L_, v - 1) != LUA_TSTRING) return err("options: every key must be a string");
      OptionSpec spec;
      spec.name = lua_tostring(L_, v - 1);
      const std::string where = "options." + spec.name;
      if (!good_name(spec.name, kMaxName) || spec.name.find_first_of("-.") != std::string::npos) {
        return err(where + ": expected a name of a-z, 0-9 and '_'");
      }
      int def = v;
      if (lua_istable(L_, v)) {
        static const std::set<std::string> kSpec = {"default", "min", "max", "values"};
        lua_pushnil(L_);
        while (lua_next(L_, v) != 0) {
          lua_pop(L_, 1);
          const std::string key = lua_type(L_, -1) == LUA_TSTRING ? lua_tostring(L_, -1) : "";
          if (kSpec.count(key) == 0) {
            lua_pop(L_, 1);
            return err(where + ": unknown field '" + key + "' (expected default, min, max, values)");
          }
        }
        def = field(v, "default");
      }
      Status s = read_default(def, where, spec);
      if (s.ok() && lua_istable(L_, v)) s = read_bounds(v, where, spec);
      if (!s.ok()) return s;
      d_.options.push_back(std::move(spec));
      lua_settop(L_, v - 1);
    }
    std::sort(d_.options.begin(), d_.options.end(),
              [](const OptionSpec& a, const OptionSpec& b) { return a.name < b.name; });
    lua_settop(L_, t);
    return Status::ok_status();
  }

  Status read_default(int def, const std::string& where, OptionSpec& spec) {
    switch (lua_type(L_, def)) {
      case LUA_TNUMBER: {
        const double d = lua_tonumber(L_, def);
        if (d != static_cast<double>(static_cast<int64_t>(d)) || std::abs(d) > 9.0e15) {
          return err(where + ": expected an integer default (options are integers, booleans or strings)");
        }
        spec.type = OptionSpec::Type::kInteger;
        spec.default_value = static_cast<int64_t>(d);
        return Status::ok_status();
      }
      case LUA_TBOOLEAN:
        spec.type = OptionSpec::Type::kBoolean;
        spec.default_value = lua_toboolean(L_, def) != 0;
        return Status::ok_status();
      case LUA_TSTRING:
        spec.type = OptionSpec::Type::kString;
        spec.default_value = std::string(lua_tostring(L_, def));
        return Status::ok_status();
      default:
        return err(where + ": expected a default that is an integer, a boolean or a string, found " + type(def));
    }
  }

  Status read_bounds(int v, const std::string& where, OptionSpec& spec) {
    for (auto [name, slot] : {std::pair<const char*, int64_t*>{"min", &spec.min}, {"max", &spec.max}}) {
      const int b = field(v, name);
      if (lua_isnil(L_, b)) continue;
      if (spec.type != OptionSpec::Type::kInteger || lua_type(L_, b) != LUA_TNUMBER) {
        return err(where + "." + name + ": expected an integer bound of an integer option");
      }
      *slot = static_cast<int64_t>(lua_tonumber(L_, b));
    }
    const int64_t dv = spec.type == OptionSpec::Type::kInteger ? spec.default_value.get<int64_t>() : 0;
    if (spec.type == OptionSpec::Type::kInteger && (spec.min > spec.max || dv < spec.min || dv > spec.max)) {
      return err(where + ": the default " + std::to_string(dv) + " is not within [min, max]");
    }
    const int values = field(v, "values");
    if (lua_isnil(L_, values)) return Status::ok_status();
    if (spec.type != OptionSpec::Type::kString || !lua_istable(L_, values)) {
      return err(where + ".values: expected a list of strings for a string option");
    }
    const size_t n = lua_objlen(L_, values);
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L_, values, static_cast<int>(i));
      if (lua_type(L_, -1) != LUA_TSTRING) return err(where + ".values: expected strings only");
      spec.values.push_back(lua_tostring(L_, -1));
      lua_pop(L_, 1);
    }
    const std::string dv_text = spec.default_value.get<std::string>();
    if (std::find(spec.values.begin(), spec.values.end(), dv_text) == spec.values.end()) {
      return err(where + ": the default '" + dv_text + "' is not among its values");
    }
    return Status::ok_status();
  }

  // scripts = { name = "<Lua source>", or name = {file = "relative/path.lua"} }
  Status read_scripts(int t) {
    const int sc = field(t, "scripts");
    if (lua_isnil(L_, sc)) return Status::ok_status();
    if (!lua_istable(L_, sc)) return err("scripts: expected a table of name = source, found " + type(sc));
    std::map<std::string, std::string> found;  // in name order: deterministic
    lua_pushnil(L_);
    while (lua_next(L_, sc) != 0) {
      const int v = lua_gettop(L_);
      if (lua_type(L_, v - 1) != LUA_TSTRING) return err("scripts: every key must be a string");
      const std::string name = lua_tostring(L_, v - 1);
      const std::string where = "scripts." + name;
      if (!good_name(name, kMaxName)) return err(where + ": expected a name of a-z, 0-9, '-', '_', '.'");
      std::string body;
      if (lua_type(L_, v) == LUA_TSTRING) {
        size_t len = 0;
        const char* s = lua_tolstring(L_, v, &len);
        body.assign(s, len);
      } else if (lua_istable(L_, v)) {
        const int f = field(v, "file");
        if (lua_type(L_, f) != LUA_TSTRING) return err(where + ": expected {file = \"path\"}");
        if (dir_.empty()) return err(where + ": an embedded algorithm cannot name script files");
        const std::string path = (std::filesystem::path(dir_) / lua_tostring(L_, f)).lexically_normal().string();
        Result<std::string> text = read_text_file(path, kMaxFileBytes);
        if (!text.ok()) return err(where + ": " + text.status().message());
        body = std::move(text.value());
      } else {
        return err(where + ": expected the script's source or {file = \"path\"}, found " + type(v));
      }
      if (body.empty() || body.size() > kMaxFileBytes) return err(where + ": expected a script of 1 byte to 1 MiB");
      found[name] = std::move(body);
      lua_settop(L_, v - 1);
    }
    for (auto& [name, body] : found) {
      d_.script_names.push_back(name);
      d_.script_bodies.push_back(std::move(body));
      d_.scripts.push_back(make_script(d_.script_names.back().c_str(), d_.script_bodies.back()));
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  Status read_coverage(int t) {
    const int c = field(t, "coverage");
    if (lua_isnil(L_, c)) return Status::ok_status();
    if (!lua_istable(L_, c)) return err("coverage: expected a list of coverage point names, found " + type(c));
    const size_t n = lua_objlen(L_, c);
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L_, c, static_cast<int>(i));
      const std::string p = lua_type(L_, -1) == LUA_TSTRING ? lua_tostring(L_, -1) : "";
      lua_pop(L_, 1);
      if (!coverage::known(p)) {
        return err("coverage[" + std::to_string(i) + "]: '" + p + "' is not a coverage point (docs/coverage.md lists them)");
      }
      if (std::find(d_.coverage.begin(), d_.coverage.end(), p) == d_.coverage.end()) d_.coverage.push_back(p);
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  // default_lease_ms = 10000, or = "lease_ms" (an integer option's name).
  Status read_default_lease(int t) {
    const int f = field(t, "default_lease_ms");
    if (lua_type(L_, f) == LUA_TNUMBER) {
      const double v = lua_tonumber(L_, f);
      if (v != std::floor(v) || v < 0 || v > 86'400'000) {
        return err("default_lease_ms: expected an integer in [0, 86400000] (0: no lease at all)");
      }
      d_.default_lease_ms = static_cast<int64_t>(v);
    } else if (lua_type(L_, f) == LUA_TSTRING) {
      d_.default_lease_option = lua_tostring(L_, f);
      bool found = false;
      for (const OptionSpec& o : d_.options) {
        if (o.name != d_.default_lease_option) continue;
        found = o.type == OptionSpec::Type::kInteger && o.min >= 0;
      }
      if (!found) {
        return err("default_lease_ms: '" + d_.default_lease_option +
                   "' is not an integer option with min >= 0 (give a number, or such an option's name)");
      }
    } else if (!lua_isnil(L_, f)) {
      return err("default_lease_ms: expected an integer or an option's name, found " + type(f));
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  // grants = { acquire = 1, release = "never" }: the reply of a declared script by which a node
  // grants (false: a nil reply; "never": the script never grants).
  Status read_grants(int t) {
    const int g = field(t, "grants");
    if (lua_isnil(L_, g)) return Status::ok_status();
    if (!lua_istable(L_, g)) return err("grants: expected a table of script name = granting reply, found " + type(g));
    lua_pushnil(L_);
    while (lua_next(L_, g) != 0) {
      const std::string name = lua_type(L_, -2) == LUA_TSTRING ? lua_tostring(L_, -2) : "";
      if (d_.script(name) == nullptr) return err("grants: '" + name + "' is not one of the declared scripts");
      if (lua_type(L_, -1) == LUA_TBOOLEAN && !lua_toboolean(L_, -1)) {
        d_.grants[name] = history::kAbsent;
      } else if (lua_type(L_, -1) == LUA_TSTRING && std::string_view(lua_tostring(L_, -1)) == "never") {
        d_.grants[name] = kNeverGrants;
      } else if (lua_type(L_, -1) == LUA_TNUMBER && lua_tonumber(L_, -1) == std::floor(lua_tonumber(L_, -1))) {
        d_.grants[name] = static_cast<int64_t>(lua_tonumber(L_, -1));
      } else {
        return err("grants." + name + ": expected the integer reply that grants, false for a nil reply, or \"never\"");
      }
      lua_pop(L_, 1);
    }
    lua_settop(L_, t);
    return Status::ok_status();
  }

  lua_State* L_;
  Definition& d_;
  const std::string dir_;
};

// Option `name` as a scenario sets it, else its declared default. REQUIRES: `name` is declared
// (checked when the file was read).
const nlohmann::json& option_value(const Definition& d, const nlohmann::json& options, const std::string& name) {
  if (options.contains(name)) return options[name];
  for (const OptionSpec& o : d.options) {
    if (o.name == name) return o.default_value;
  }
  LS_ASSERT(false);
  return options;  // not reached
}

nlohmann::json defaults_of(const Definition& d) {
  nlohmann::json j = nlohmann::json::object();
  for (const OptionSpec& o : d.options) j[o.name] = o.default_value;
  return j;
}

Status validate_options(const Definition& d, const nlohmann::json& options, const std::string& path) {
  std::vector<std::string> names;
  for (const OptionSpec& o : d.options) names.push_back(o.name);
  if (!options.is_object()) return Status::error(path + ": expected an object, found " + options.dump());
  if (options.empty()) return Status::ok_status();
  if (names.empty()) return Status::error(path + ": algorithm \"" + d.name + "\" declares no options");
  Status s = check_known_fields(options, path, names);
  for (const OptionSpec& o : d.options) {
    if (!s.ok()) return s;
    switch (o.type) {
      case OptionSpec::Type::kInteger:
        s = check_int_field(options, path, o.name, o.min, o.max);
        break;
      case OptionSpec::Type::kBoolean:
        s = check_bool_field(options, path, o.name);
        break;
      case OptionSpec::Type::kString:
        if (!o.values.empty()) {
          s = check_string_field(options, path, o.name, o.values);
        } else if (options.contains(o.name)) {
          const nlohmann::json& v = options[o.name];
          if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxStringOption ||
              !printable_text(v.get_ref<const std::string&>())) {
            s = Status::error(path + "/" + o.name + ": expected a string of at most 4096 printable characters");
          }
        }
        break;
    }
  }
  return s;
}

// Reads the definition from its source; `dir` is where script files are looked up ("" for an
// embedded algorithm).
Result<std::shared_ptr<Definition>> define(std::string file, std::string chunk_name, std::string source,
                                           const std::string& dir) {
  auto d = std::make_shared<Definition>();
  d->file = std::move(file);
  d->chunk_name = std::move(chunk_name);
  d->source = std::move(source);
  Status s = with_loaded_module(*d, nlohmann::json::object(), [&](lua_State* L) {
    return DeclarationReader(L, *d, dir).read();
  });
  if (!s.ok()) return Status::error(d->named(s.message()));
  return d;
}

AlgorithmInfo info_of(std::shared_ptr<const Definition> d) {
  AlgorithmInfo info;
  info.name = d->name;
  info.lock_kind = d->kind;
  info.description = d->description;
  info.fair = d->fair;
  info.modes = d->kind == "rwlock";
  info.multi_master = d->independent_masters;
  info.option_defaults = defaults_of(*d);
  info.validate = [d](const nlohmann::json& options, const std::string& path) {
    return validate_options(*d, options, path);
  };
  info.scripts = [d](const nlohmann::json&) {
    std::vector<const Script*> out;
    for (const Script& s : d->scripts) out.push_back(&s);
    return out;
  };
  info.coverage_points = coverage::declare(d->coverage);
  if (d->kind == "redlock") {
    // Which replies grant (checker/quorum.cc); a script not named here is unreadable, not a grant.
    info.history_header = [d](const nlohmann::json&) {
      nlohmann::json g = nlohmann::json::object();
      for (const auto& [name, reply] : d->grants) {
        g[name] = reply == history::kAbsent ? nlohmann::json(nullptr)
                  : reply == kNeverGrants  ? nlohmann::json("never")
                                           : nlohmann::json(reply);
      }
      return nlohmann::json{{"grant_replies", g}};
    };
  }
  info.renews_default_lease = [d](const nlohmann::json& options) {
    return d->renews_option.empty() ? d->renews : option_value(*d, options, d->renews_option).get<bool>();
  };
  if (d->default_lease_ms >= 0 || !d->default_lease_option.empty()) {
    info.default_lease_ms = [d](const nlohmann::json& options) -> int64_t {
      if (d->default_lease_option.empty()) return d->default_lease_ms;
      return option_value(*d, options, d->default_lease_option).get<int64_t>();
    };
  }
  info.make = [d](Runtime& rt, const nlohmann::json& options) {
    nlohmann::json merged = defaults_of(*d);
    for (auto it = options.begin(); it != options.end(); ++it) merged[it.key()] = it.value();
    return make_lua_client(d, rt, merged);
  };
  return info;
}

struct Loaded {
  std::string file;  // canonical path
  AlgorithmInfo info;
};
std::deque<Loaded>& loaded() {
  static std::deque<Loaded> all;
  return all;
}

}  // namespace

Result<const AlgorithmInfo*> load_lua_algorithm(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) file = (std::filesystem::path(path) / "lock.lua").string();
  if (Status s = check_input_file(file, "the algorithm's Lua file"); !s.ok()) return s;
  const std::string canonical = std::filesystem::weakly_canonical(file, ec).string();
  for (const Loaded& l : loaded()) {
    if (l.file == canonical) return &l.info;
  }
  Result<std::string> source = read_text_file(file, kMaxFileBytes);
  if (!source.ok()) return source.status();
  const std::string dir = std::filesystem::path(canonical).parent_path().string();
  // Messages name the file as the user gave it (Lua shortens chunk names past 60 bytes).
  std::string shown = file.size() <= 55 ? file : std::filesystem::path(file).filename().string();
  Result<std::shared_ptr<Definition>> d = define(canonical, "@" + shown, std::move(source.value()), dir);
  if (!d.ok()) return d.status();
  const std::string& name = d.value()->name;
  for (const AlgorithmInfo& a : algorithms()) {
    if (a.name == name) return Status::error(file + ": name: \"" + name + "\" is the name of a built-in algorithm; choose another");
  }
  for (const Loaded& l : loaded()) {
    if (l.info.name == name) return Status::error(file + ": name: \"" + name + "\" is already the name of " + l.file);
  }
  loaded().push_back(Loaded{canonical, info_of(d.value())});
  return &loaded().back().info;
}

std::string algorithm_file(std::string_view name) {
  for (const Loaded& l : loaded()) {
    if (l.info.name == name) return l.file;
  }
  return "";
}

const AlgorithmInfo* find_loaded(std::string_view name) {
  for (const Loaded& l : loaded()) {
    if (l.info.name == name) return &l.info;
  }
  return nullptr;
}

AlgorithmInfo builtin_lua_algorithm(const char* chunk_name, std::string_view source) {
  Result<std::shared_ptr<Definition>> d = define("", std::string("@") + chunk_name, std::string(source), "");
  if (!d.ok()) std::fprintf(stderr, "%s\n", d.status().message().c_str());
  LS_ASSERT(d.ok() && "an embedded Lua algorithm must load");
  return info_of(d.value());
}

}  // namespace lockstep::algorithms::lua_client
