// Redis 7.0 functions (Redis's functions.c): FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL/HELP
// and FCALL/FCALL_RO, on the same sandbox as EVAL but in a Lua state of their own.
//
// A library is code whose first line is "#!lua name=<library>"; running it registers functions
// with redis.register_function (LuaHost::load_library). Function names are global across
// libraries. FUNCTION DUMP and RESTORE (Redis's binary payload) are not modelled, and the model
// keeps no functions across a restart, persistent or not (docs/serve.md).
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/eval.h"
#include "sim/redis/script_lua.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

constexpr std::string_view kBadLibraryName =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

struct LibraryMetadata {
  std::string name;
  std::string engine;
  std::string_view code;  // from the shebang's newline on, so line numbers stay the text's
};

// functionExtractLibMetaData. False with Redis's error text (without "ERR ").
bool extract_metadata(std::string_view payload, LibraryMetadata* md, std::string* error) {
  if (payload.substr(0, 2) != "#!") {
    *error = "Missing library metadata";
    return false;
  }
  // Redis looks for the newline with strchr, which stops at a NUL byte.
  const size_t newline = payload.substr(0, payload.find('\0')).find('\n');
  if (newline == std::string_view::npos) {
    *error = "Invalid library metadata";
    return false;
  }
  // Redis splits the shebang with sdssplitargs; quoting is not modelled (words split on spaces).
  std::vector<std::string_view> parts;
  std::string_view line = payload.substr(0, newline);
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') i++;
    if (i > start) parts.push_back(line.substr(start, i - start));
  }
  if (parts.empty()) {
    *error = "Invalid library metadata";
    return false;
  }
  md->engine = std::string(parts[0].substr(2));
  bool named = false;
  for (size_t j = 1; j < parts.size(); j++) {
    if (parts[j].size() >= 5 && iequals(parts[j].substr(0, 5), "name=")) {
      if (named) {
        *error = "Invalid metadata value, name argument was given multiple times";
        return false;
      }
      md->name = std::string(parts[j].substr(5));
      named = true;
      continue;
    }
    *error = "Invalid metadata value given: " + std::string(parts[j]);
    return false;
  }
  if (!named) {
    *error = "Library name was not given";
    return false;
  }
  md->code = payload.substr(newline);
  return true;
}

constexpr std::string_view kFunctionHelp[] = {
    "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LOAD [REPLACE] <FUNCTION CODE>",
    "    Create a new library with the given library name and code.",
    "DELETE <LIBRARY NAME>",
    "    Delete the given library.",
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries:",
    "    * Library name",
    "    * The engine used to run the Library",
    "    * Library description",
    "    * Functions list",
    "    * Library code (if WITHCODE is given)",
    "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
    "STATS",
    "    Return information about the current function running:",
    "    * Function name",
    "    * Command used to run the function",
    "    * Duration in MS that the function is running",
    "    If no function is running, return nil",
    "    In addition, returns a list of available engines.",
    "KILL",
    "    Kill the current running function.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the libraries.",
    "    * SYNC: Synchronously flush the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE "
    "command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
    "    control how to handle existing libraries (default APPEND):",
    "    * FLUSH: delete all existing libraries.",
    "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
    "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
    "      libraries with the new libraries (notice that even on this option there is a chance of failure",
    "      in case of functions name collision with another library).",
    "HELP",
    "    Prints this help.",
};

}  // namespace

bool valid_function_name(std::string_view name) {
  if (name.empty()) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    if (!ok) return false;
  }
  return true;
}

void Scripting::drop_library(const std::string& name) {
  auto it = libraries_.find(name);
  LS_ASSERT(it != libraries_.end());
  for (const std::string& f : it->second.functions) {
    auto fit = functions_.find(f);
    LS_ASSERT(fit != functions_.end());
    function_lua_->release(fit->second.registered.ref);
    functions_.erase(fit);
  }
  libraries_.erase(it);
}

void Scripting::flush_functions() {
  libraries_.clear();
  functions_.clear();
  function_lua_.reset();  // the next FUNCTION LOAD makes a new one
}

// FUNCTION LOAD [REPLACE] code (functionLoadCommand, functionsCreateWithLibraryCtx).
void Scripting::function_load(Call& c) {
  bool replace = false;
  size_t pos = 2;
  while (pos < c.argv.size() - 1) {
    std::string_view option = c.argv[pos++];
    if (iequals(option, "replace")) {
      replace = true;
      continue;
    }
    return c.error(sanitize_error("ERR Unknown option given: " + std::string(option)));
  }
  const std::string_view payload = c.argv[pos];
  LibraryMetadata md;
  std::string error;
  if (!extract_metadata(payload, &md, &error)) return c.error(sanitize_error("ERR " + error));
  if (!valid_function_name(md.name)) return c.error(kBadLibraryName);
  if (!iequals(md.engine, "lua")) return c.error(sanitize_error("ERR Engine '" + md.engine + "' not found"));
  const bool exists = libraries_.count(md.name) > 0;
  if (exists && !replace) return c.error(sanitize_error("ERR Library '" + md.name + "' already exists"));
  std::vector<RegisteredFunction> registered;
  if (!function_lua_) function_lua_ = make_host();
  if (!function_lua_->load_library(md.code, &registered, &error)) return c.error(sanitize_error("ERR " + error));
  auto release_all = [&] {
    for (const RegisteredFunction& f : registered) function_lua_->release(f.ref);
  };
  if (registered.empty()) return c.error("ERR No functions registered");
  for (const RegisteredFunction& f : registered) {
    auto it = functions_.find(f.name);
    if (it != functions_.end() && it->second.library != md.name) {
      release_all();
      return c.error(sanitize_error("ERR Function " + f.name + " already exists"));
    }
  }
  if (exists) drop_library(md.name);
  Library lib;
  lib.code = std::string(payload);
  for (RegisteredFunction& f : registered) {
    std::string name = f.name;
    lib.functions.push_back(name);
    functions_.emplace(std::move(name), Function{std::move(f), md.name});
  }
  libraries_.emplace(md.name, std::move(lib));
  c.dirty++;
  c.reply(Reply::bulk(md.name));
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]: libraries in name order, functions in the
// order they were registered (Redis lists both in its dicts' orders).
void Scripting::function_list(Call& c) {
  bool with_code = false;
  bool have_pattern = false;
  std::string_view pattern;
  for (size_t i = 2; i < c.argv.size(); i++) {
    std::string_view arg = c.argv[i];
    if (!with_code && iequals(arg, "withcode")) {
      with_code = true;
      continue;
    }
    if (!have_pattern && iequals(arg, "libraryname")) {
      if (i >= c.argv.size() - 1) return c.error("ERR library name argument was not given");
      pattern = c.argv[++i];
      have_pattern = true;
      continue;
    }
    return c.error(sanitize_error("ERR Unknown argument " + std::string(arg)));
  }
  std::vector<Reply> out;
  for (const auto& [name, lib] : libraries_) {
    if (have_pattern && !glob_match(pattern, name, /*nocase=*/true)) continue;
    std::vector<Reply> functions;
    for (const std::string& fname : lib.functions) {
      const RegisteredFunction& f = functions_.at(fname).registered;
      std::vector<Reply> flags;
      for (const ScriptFlagName& flag : kScriptFlagNames) {
        if (f.flags & flag.flag) flags.push_back(Reply::status(flag.name));  // status replies, as Redis
      }
      functions.push_back(Reply::map({Reply::bulk("name"), Reply::bulk(f.name), Reply::bulk("description"),
                                      f.description ? Reply::bulk(*f.description) : Reply::nil(), Reply::bulk("flags"),
                                      Reply::set(std::move(flags))}));
    }
    std::vector<Reply> fields{Reply::bulk("library_name"), Reply::bulk(name), Reply::bulk("engine"), Reply::bulk("LUA"),
                              Reply::bulk("functions"), Reply::array(std::move(functions))};
    if (with_code) {
      fields.push_back(Reply::bulk("library_code"));
      fields.push_back(Reply::bulk(lib.code));
    }
    out.push_back(Reply::map(std::move(fields)));
  }
  c.reply(Reply::array(std::move(out)));
}

void Scripting::function_command(Call& c) {
  // Dispatch has checked the subcommand and its arity (commands.cc); DUMP and RESTORE are
  // refused there as not modelled.
  std::string_view sub = c.argv[1];
  if (iequals(sub, "load")) return function_load(c);
  if (iequals(sub, "list")) return function_list(c);
  if (iequals(sub, "delete")) {
    const std::string name(c.argv[2]);
    if (libraries_.count(name) == 0) return c.error("ERR Library not found");
    drop_library(name);
    c.dirty++;
    return c.reply(Reply::ok());
  }
  if (iequals(sub, "flush")) {
    if (c.argv.size() > 3) return subcommand_syntax_error(c);
    if (c.argv.size() == 3 && !iequals(c.argv[2], "sync") && !iequals(c.argv[2], "async")) {
      return c.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    flush_functions();
    c.dirty++;
    return c.reply(Reply::ok());
  }
  if (iequals(sub, "stats")) {
    // Commands never run while a function runs (serve answers STATS itself meanwhile).
    const Reply engine = Reply::map({Reply::bulk("libraries_count"), Reply::integer_of(static_cast<int64_t>(libraries_.size())),
                                     Reply::bulk("functions_count"), Reply::integer_of(static_cast<int64_t>(functions_.size()))});
    return c.reply(Reply::map({Reply::bulk("running_script"), Reply::nil(), Reply::bulk("engines"),
                               Reply::map({Reply::bulk("LUA"), engine})}));
  }
  if (iequals(sub, "kill")) return c.error("NOTBUSY No scripts in execution right now.");
  if (iequals(sub, "help")) {
    std::vector<Reply> lines;
    for (std::string_view line : kFunctionHelp) lines.push_back(Reply::status(line));
    return c.reply(Reply::array(std::move(lines)));
  }
  unknown_subcommand(c);
}

// FCALL / FCALL_RO function numkeys key... arg... (fcallCommandGeneric).
void Scripting::fcall(Call& c, bool read_only_command) {
  auto it = functions_.find(c.argv[1]);
  if (it == functions_.end()) return c.error("ERR Function not found");
  int64_t numkeys = 0;
  if (!parse_int64(c.argv[2], &numkeys)) return c.error("ERR Bad number of keys provided");
  if (numkeys > static_cast<int64_t>(c.argv.size()) - 3) {
    return c.error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return c.error("ERR Number of keys can't be negative");
  const RegisteredFunction& f = it->second.registered;
  if (!(f.flags & kScriptNoWrites)) {
    if (server_.replica()) return c.error("READONLY Can not run script with write flag on readonly replica");
    if (read_only_command) return c.error("ERR Can not execute a script with write flag using *_ro command.");
  }
  Args keys = c.argv.subspan(3, static_cast<size_t>(numkeys));
  Args args = c.argv.subspan(3 + static_cast<size_t>(numkeys));
  for (size_t i = 0; i < keys.size() && i < kPrefetchKeys; i++) c.db().prefetch_slot(keys[i]);
  // The name outlives the run: a function cannot unload its own library while it runs.
  const ScriptRun how{f.name, read_only_command || (f.flags & kScriptNoWrites) != 0};
  c.reply(function_lua_->call_function(f.ref, how, c.client, keys, args));
}

uint32_t Scripting::fcall_command_flags(Args argv, uint32_t base_flags) const {
  if (argv.size() < 2) return base_flags;
  auto it = functions_.find(argv[1]);
  if (it == functions_.end() || (it->second.registered.flags & kScriptNoWrites)) return base_flags;
  return base_flags | kCmdWrite;
}

// ---- Command handlers ------------------------------------------------------------------------

void cmd_fcall(Call& c) { c.srv.scripting().fcall(c, false); }
void cmd_fcall_ro(Call& c) { c.srv.scripting().fcall(c, true); }
void cmd_function(Call& c) { c.srv.scripting().function_command(c); }
uint32_t fcall_flags(Server& srv, const Command& cmd, Args argv) {
  return srv.scripting().fcall_command_flags(argv, cmd.flags);
}

}  // namespace lockstep::redis
