#include "sim/redis/eval.h"

#include <cctype>
#include <cstring>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/node.h"
#include "sim/redis/script_lua.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";


// Splits on whitespace (Redis uses sdssplitargs; quoting is not modelled).
std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) i++;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// The 40-character digest argument in lower case, or false if it cannot be a digest.
bool normalize_sha(std::string_view arg, char (&out)[40]) {
  if (arg.size() != 40) return false;
  for (size_t i = 0; i < 40; i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, arg.data() + i, 8);
    word = ascii_lower8(word);
    std::memcpy(out + i, &word, 8);
  }
  return true;
}

}  // namespace

bool parse_shebang(std::string_view body, uint32_t* flags, size_t* shebang_len, std::string* error) {
  *flags = kScriptCompat;
  *shebang_len = 0;
  if (body.substr(0, 2) != "#!") return true;
  // Redis looks for the newline with strchr, which stops at a NUL byte.
  std::string_view text = body.substr(0, body.find('\0'));
  size_t newline = text.find('\n');
  if (newline == std::string_view::npos) {
    *error = "Invalid script shebang";
    return false;
  }
  std::vector<std::string_view> parts = split_words(text.substr(0, newline));
  if (parts.empty()) {
    *error = "Invalid engine in script shebang";
    return false;
  }
  if (parts[0] != "#!lua") {
    *error = "Unexpected engine in script shebang: " + std::string(parts[0]);
    return false;
  }
  uint32_t result = 0;
  for (size_t j = 1; j < parts.size(); j++) {
    if (parts[j].substr(0, 6) != "flags=") {
      *error = "Unknown lua shebang option: " + std::string(parts[j]);
      return false;
    }
    std::string_view list = parts[j].substr(6);
    // "flags=" alone declares no flags; otherwise every comma-separated item must be known.
    for (size_t pos = 0; !list.empty() && pos <= list.size();) {
      size_t comma = list.find(',', pos);
      std::string_view item = list.substr(pos, comma == std::string_view::npos ? list.npos : comma - pos);
      uint32_t found = 0;
      for (const ScriptFlagName& f : kScriptFlagNames) {
        if (f.name == item) found = f.flag;
      }
      if (found == 0) {
        *error = "Unexpected flag in script shebang: " + std::string(item);
        return false;
      }
      result |= found;
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  *flags = result;
  *shebang_len = newline;
  return true;
}

Scripting::Scripting(Server& server, uint64_t instruction_budget, size_t memory_limit_bytes)
    : server_(server), budget_(instruction_budget), memory_limit_(memory_limit_bytes) {
  LS_ASSERT(budget_ > 0);
  lua_ = make_host();
  // The functions' host is made by the first FUNCTION LOAD: a node that never loads a library
  // (every simulated one) pays for one Lua state, not two.
}

std::unique_ptr<LuaHost> Scripting::make_host() {
  auto host = std::make_unique<LuaHost>(server_, rand_, budget_, memory_limit_);
  host->set_busy_check(busy_check_, busy_context_);
  host->set_line_counts(server_.config().line_counts);
  return host;
}

void Scripting::set_busy_check(LuaHost::BusyCheck check, void* context) {
  busy_check_ = check;
  busy_context_ = context;
  lua_->set_busy_check(check, context);
  if (function_lua_) function_lua_->set_busy_check(check, context);
}

const LuaHost* Scripting::running_host() const {
  if (lua_->script_running()) return lua_.get();
  if (function_lua_ && function_lua_->script_running()) return function_lua_.get();
  return nullptr;
}

Scripting::~Scripting() = default;

void Scripting::flush() {
  cache_.clear();
  lua_.reset();  // closes the old state before the new one allocates
  lua_ = make_host();
  LS_ASSERT(cache_.empty());
}

void Scripting::reset() {
  flush();
  flush_functions();
  rand_.reset();
}

const Scripting::Script* Scripting::find(std::string_view sha) const {
  auto it = cache_.find(sha);
  return it == cache_.end() ? nullptr : &it->second;
}

const Scripting::Script* Scripting::load(Call& c, std::string_view body, char (&sha)[40]) {
  const std::string& digest = sha_memo_.digest(body);
  LS_ASSERT(digest.size() == sizeof(sha));
  std::memcpy(sha, digest.data(), sizeof(sha));
  if (const Script* s = find(std::string_view(sha, sizeof(sha))); s != nullptr) return s;
  Script script;
  size_t shebang_len = 0;
  std::string error;
  if (!parse_shebang(body, &script.flags, &shebang_len, &error)) {
    c.error(sanitize_error("ERR " + error));
    return nullptr;
  }
  if (cache_.size() >= kMaxCachedScripts) {
    c.error("ERR lockstep model: the script cache is full (" + std::to_string(kMaxCachedScripts) +
            " scripts); use SCRIPT FLUSH");
    return nullptr;
  }
  // The shebang line is left out but its newline kept, so line numbers stay those of the body.
  if (!lua_->compile(body.substr(shebang_len), &script.ref, &error)) {
    c.error(sanitize_error("ERR Error compiling script (new function): " + error));
    return nullptr;
  }
  auto [it, inserted] = cache_.emplace(std::string(sha, sizeof(sha)), script);
  LS_ASSERT(inserted);
  return &it->second;
}

void Scripting::eval(Call& c, bool by_sha, bool read_only_command) {
  int64_t numkeys = 0;
  if (!parse_int64(c.argv[2], &numkeys)) return c.not_integer();
  if (numkeys > static_cast<int64_t>(c.argv.size()) - 3) {
    return c.error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return c.error("ERR Number of keys can't be negative");
  Args keys = c.argv.subspan(3, static_cast<size_t>(numkeys));
  // Step 1 of fetching the script's keys early (step 2 is in LuaHost::run).
  for (size_t i = 0; i < keys.size() && i < kPrefetchKeys; i++) c.db().prefetch_slot(keys[i]);
  char digest[40];
  const Script* script = nullptr;
  const std::string_view sha(digest, sizeof(digest));
  if (by_sha) {
    if (!normalize_sha(c.argv[1], digest)) return c.error(kNoScript);
    script = find(sha);
    if (script == nullptr) return c.error(kNoScript);
  } else {
    script = load(c, c.argv[1], digest);
    if (script == nullptr) return;
  }
  if (!(script->flags & kScriptCompat) && !(script->flags & kScriptNoWrites)) {
    if (server_.replica()) return c.error("READONLY Can not run script with write flag on readonly replica");
    if (read_only_command) return c.error("ERR Can not execute a script with write flag using *_ro command.");
  }
  ScriptRun how{sha, read_only_command || (script->flags & kScriptNoWrites) != 0};
  Args args = c.argv.subspan(3 + static_cast<size_t>(numkeys));
  c.reply(lua_->run(script->ref, how, c.client, keys, args));
}

uint32_t Scripting::eval_command_flags(Args argv, bool by_sha, uint32_t base_flags) {
  uint32_t flags = 0;
  if (by_sha) {
    char digest[40];
    if (!normalize_sha(argv[1], digest)) return base_flags;
    const Script* s = find(std::string_view(digest, 40));
    if (s == nullptr) return base_flags;
    flags = s->flags;
  } else if (const Script* s = find(sha_memo_.digest(argv[1])); s != nullptr) {
    flags = s->flags;
  } else {
    size_t len = 0;
    std::string error;
    if (!parse_shebang(argv[1], &flags, &len, &error)) return base_flags;
  }
  if (flags & kScriptCompat) return base_flags;
  return (flags & kScriptNoWrites) ? base_flags : (base_flags | kCmdWrite);
}

namespace {

constexpr std::string_view kScriptHelp[] = {
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
};

}  // namespace

void Scripting::script_command(Call& c) {
  std::string_view sub = c.argv[1];
  if (iequals(sub, "load")) {
    char sha[40];
    if (load(c, c.argv[2], sha) != nullptr) c.reply(Reply::bulk(std::string_view(sha, sizeof(sha))));
  } else if (iequals(sub, "exists")) {
    std::vector<Reply> found;
    for (size_t j = 2; j < c.argv.size(); j++) {
      char digest[40];
      bool hit = normalize_sha(c.argv[j], digest) && find(std::string_view(digest, 40)) != nullptr;
      found.push_back(Reply::integer_of(hit ? 1 : 0));
    }
    c.reply(Reply::array(std::move(found)));
  } else if (iequals(sub, "flush")) {
    if (c.argv.size() > 3 ||
        (c.argv.size() == 3 && !iequals(c.argv[2], "sync") && !iequals(c.argv[2], "async"))) {
      return c.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    flush();
    c.reply(Reply::ok());
  } else if (iequals(sub, "kill")) {
    // Commands never run while a script runs: there is never anything to kill.
    c.error("NOTBUSY No scripts in execution right now.");
  } else if (iequals(sub, "debug")) {
    if (iequals(c.argv[2], "no")) return c.reply(Reply::ok());
    c.error("ERR lockstep model: SCRIPT DEBUG (the Lua debugger) is not supported");
  } else if (iequals(sub, "help")) {
    std::vector<Reply> lines;
    for (std::string_view line : kScriptHelp) lines.push_back(Reply::status(line));
    c.reply(Reply::array(std::move(lines)));
  } else {
    unknown_subcommand(c);
  }
}

// ---- Command handlers ------------------------------------------------------------------------

void cmd_eval(Call& c) { c.srv.scripting().eval(c, false, false); }
void cmd_evalsha(Call& c) { c.srv.scripting().eval(c, true, false); }
void cmd_eval_ro(Call& c) { c.srv.scripting().eval(c, false, true); }
void cmd_evalsha_ro(Call& c) { c.srv.scripting().eval(c, true, true); }
void cmd_script(Call& c) { c.srv.scripting().script_command(c); }

uint32_t eval_flags(Server& srv, const Command& cmd, Args argv) {
  return srv.scripting().eval_command_flags(argv, false, cmd.flags);
}
uint32_t evalsha_flags(Server& srv, const Command& cmd, Args argv) {
  return srv.scripting().eval_command_flags(argv, true, cmd.flags);
}

}  // namespace lockstep::redis
