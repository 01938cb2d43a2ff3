#include "sim/redis/commands.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

constexpr uint32_t W = kCmdWrite;
constexpr uint32_t R = kCmdReadOnly;
constexpr uint32_t NS = kCmdNoScript;
constexpr uint32_t PS = kCmdPubSub;
constexpr uint32_t SC = kCmdSubscribedContext;
constexpr uint32_t F = kCmdFast;
constexpr uint32_t A = kCmdAdmin;
constexpr uint32_t S = kCmdStale;
constexpr uint32_t C = kCmdContainer;
constexpr uint32_t B = kCmdBlocking;

// Redis 7.0.15's subcommands and their arities (src/commands/*.json); the ones the model does
// not answer are listed so that they get a clear refusal instead of "unknown subcommand".
constexpr bool kNotModelled = false;
constexpr Subcommand kClientSubcommands[] = {
    {"caching", 3, kNotModelled}, {"getname", 2},     {"getredir", 2, kNotModelled}, {"help", 2, kNotModelled},
    {"id", 2},                    {"info", 2},        {"kill", -3, kNotModelled},    {"list", -2},
    {"no-evict", 3},              {"pause", -3, kNotModelled}, {"reply", 3, kNotModelled}, {"setname", 3},
    {"tracking", -3, kNotModelled}, {"trackinginfo", 2, kNotModelled}, {"unblock", -3, kNotModelled},
    {"unpause", 2, kNotModelled},
};
constexpr Subcommand kConfigSubcommands[] = {
    {"get", -3}, {"help", 2, kNotModelled}, {"resetstat", 2}, {"rewrite", 2, kNotModelled}, {"set", -4},
};
constexpr Subcommand kCommandSubcommands[] = {
    {"count", 2},  {"docs", -2}, {"getkeys", -4, kNotModelled}, {"getkeysandflags", -4, kNotModelled},
    {"help", 2, kNotModelled}, {"info", -2}, {"list", -2},
};
constexpr Subcommand kScriptSubcommands[] = {
    {"debug", 3}, {"exists", -3}, {"flush", -2}, {"help", 2}, {"kill", 2}, {"load", 3},
};
constexpr Subcommand kObjectSubcommands[] = {
    {"encoding", 3}, {"freq", 3}, {"help", 2}, {"idletime", 3}, {"refcount", 3},
};
constexpr Subcommand kPubsubSubcommands[] = {
    {"channels", -2}, {"help", 2, kNotModelled}, {"numpat", 2}, {"numsub", -2}, {"shardchannels", -2},
    {"shardnumsub", -2},
};

constexpr Subcommand kFunctionSubcommands[] = {
    {"delete", 3, true, kCmdWrite}, {"dump", 2, kNotModelled}, {"flush", -2, true, kCmdWrite}, {"help", 2},
    {"kill", 2},  {"list", -2},  {"load", -3, true, kCmdWrite},  {"restore", -3, kNotModelled, kCmdWrite},
    {"stats", 2},
};

// Arity, flags and key positions as Redis 7.0's command table has them.
const Command kCommands[] = {
    // strings
    {"get", 2, R | F, cmd_get, 1, 1, 1},
    {"set", -3, W, cmd_set, 1, 1, 1},
    {"setnx", 3, W | F, cmd_setnx, 1, 1, 1},
    {"setex", 4, W, cmd_setex, 1, 1, 1},
    {"psetex", 4, W, cmd_psetex, 1, 1, 1},
    {"incr", 2, W | F, cmd_incr, 1, 1, 1},
    {"decr", 2, W | F, cmd_decr, 1, 1, 1},
    {"incrby", 3, W | F, cmd_incrby, 1, 1, 1},
    {"decrby", 3, W | F, cmd_decrby, 1, 1, 1},
    {"mget", -2, R | F, cmd_mget, 1, -1, 1},
    {"mset", -3, W, cmd_mset, 1, -1, 2},
    {"append", 3, W, cmd_append, 1, 1, 1},
    {"strlen", 2, R | F, cmd_strlen, 1, 1, 1},
    {"getdel", 2, W | F, cmd_getdel, 1, 1, 1},
    {"incrbyfloat", 3, W | F, cmd_incrbyfloat, 1, 1, 1},
    {"getset", 3, W | F, cmd_getset, 1, 1, 1},
    {"getex", -2, W | F, cmd_getex, 1, 1, 1},
    // hashes
    {"hset", -4, W | F, cmd_hset, 1, 1, 1},
    {"hmset", -4, W | F, cmd_hmset, 1, 1, 1},
    {"hsetnx", 4, W | F, cmd_hsetnx, 1, 1, 1},
    {"hget", 3, R | F, cmd_hget, 1, 1, 1},
    {"hmget", -3, R | F, cmd_hmget, 1, 1, 1},
    {"hexists", 3, R | F, cmd_hexists, 1, 1, 1},
    {"hdel", -3, W | F, cmd_hdel, 1, 1, 1},
    {"hincrby", 4, W | F, cmd_hincrby, 1, 1, 1},
    {"hlen", 2, R | F, cmd_hlen, 1, 1, 1},
    {"hkeys", 2, R, cmd_hkeys, 1, 1, 1},
    {"hvals", 2, R, cmd_hvals, 1, 1, 1},
    {"hgetall", 2, R, cmd_hgetall, 1, 1, 1},
    {"hincrbyfloat", 4, W | F, cmd_hincrbyfloat, 1, 1, 1},
    {"hstrlen", 3, R | F, cmd_hstrlen, 1, 1, 1},
    // lists
    {"lpush", -3, W | F, cmd_lpush, 1, 1, 1},
    {"rpush", -3, W | F, cmd_rpush, 1, 1, 1},
    {"lpop", -2, W | F, cmd_lpop, 1, 1, 1},
    {"rpop", -2, W | F, cmd_rpop, 1, 1, 1},
    {"lindex", 3, R, cmd_lindex, 1, 1, 1},
    {"lrange", 4, R, cmd_lrange, 1, 1, 1},
    {"llen", 2, R | F, cmd_llen, 1, 1, 1},
    {"lrem", 4, W, cmd_lrem, 1, 1, 1},
    {"lset", 4, W, cmd_lset, 1, 1, 1},
    {"ltrim", 4, W, cmd_ltrim, 1, 1, 1},
    {"lpos", -3, R, cmd_lpos, 1, 1, 1},
    {"lmove", 5, W, cmd_lmove, 1, 2, 1},
    {"blpop", -3, W | NS | B, cmd_blpop, 1, -2, 1},
    {"brpop", -3, W | NS | B, cmd_brpop, 1, -2, 1},
    // sets
    {"sadd", -3, W | F, cmd_sadd, 1, 1, 1},
    {"srem", -3, W | F, cmd_srem, 1, 1, 1},
    {"sismember", 3, R | F, cmd_sismember, 1, 1, 1},
    {"smembers", 2, R, cmd_smembers, 1, 1, 1},
    {"scard", 2, R | F, cmd_scard, 1, 1, 1},
    {"smismember", -3, R | F, cmd_smismember, 1, 1, 1},
    {"spop", -2, W | F, cmd_spop, 1, 1, 1},
    {"srandmember", -2, R, cmd_srandmember, 1, 1, 1},
    // sorted sets
    {"zadd", -4, W | F, cmd_zadd, 1, 1, 1},
    {"zincrby", 4, W | F, cmd_zincrby, 1, 1, 1},
    {"zscore", 3, R | F, cmd_zscore, 1, 1, 1},
    {"zrem", -3, W | F, cmd_zrem, 1, 1, 1},
    {"zrange", -4, R, cmd_zrange, 1, 1, 1},
    {"zrangebyscore", -4, R, cmd_zrangebyscore, 1, 1, 1},
    {"zcard", 2, R | F, cmd_zcard, 1, 1, 1},
    {"zrank", 3, R | F, cmd_zrank, 1, 1, 1},
    {"zrevrank", 3, R | F, cmd_zrevrank, 1, 1, 1},
    {"zrevrange", -4, R, cmd_zrevrange, 1, 1, 1},
    {"zrevrangebyscore", -4, R, cmd_zrevrangebyscore, 1, 1, 1},
    {"zrangebylex", -4, R, cmd_zrangebylex, 1, 1, 1},
    {"zrevrangebylex", -4, R, cmd_zrevrangebylex, 1, 1, 1},
    {"zcount", 4, R | F, cmd_zcount, 1, 1, 1},
    {"zlexcount", 4, R | F, cmd_zlexcount, 1, 1, 1},
    {"zremrangebyscore", 4, W, cmd_zremrangebyscore, 1, 1, 1},
    {"zremrangebylex", 4, W, cmd_zremrangebylex, 1, 1, 1},
    {"zremrangebyrank", 4, W, cmd_zremrangebyrank, 1, 1, 1},
    // keyspace
    {"del", -2, W, cmd_del, 1, -1, 1},
    {"unlink", -2, W | F, cmd_del, 1, -1, 1},
    {"exists", -2, R | F, cmd_exists, 1, -1, 1},
    {"type", 2, R | F, cmd_type, 1, 1, 1},
    {"keys", 2, R, cmd_keys},
    {"dbsize", 1, R | F, cmd_dbsize},
    {"flushall", -1, W, cmd_flushall},
    {"flushdb", -1, W, cmd_flushdb},
    {"select", 2, F | S, cmd_select},
    {"randomkey", 1, R, cmd_randomkey},
    {"object", -2, R | C, cmd_object, 0, 0, 0, nullptr, kObjectSubcommands},
    {"rename", 3, W, cmd_rename, 1, 2, 1},
    {"renamenx", 3, W | F, cmd_renamenx, 1, 2, 1},
    {"copy", -3, W, cmd_copy, 1, 2, 1},
    {"scan", -2, R, cmd_scan},
    {"hscan", -3, R, cmd_hscan, 1, 1, 1},
    {"sscan", -3, R, cmd_sscan, 1, 1, 1},
    {"zscan", -3, R, cmd_zscan, 1, 1, 1},
    // expiry
    {"expire", -3, W | F, cmd_expire, 1, 1, 1},
    {"pexpire", -3, W | F, cmd_pexpire, 1, 1, 1},
    {"expireat", -3, W | F, cmd_expireat, 1, 1, 1},
    {"pexpireat", -3, W | F, cmd_pexpireat, 1, 1, 1},
    {"ttl", 2, R | F, cmd_ttl, 1, 1, 1},
    {"pttl", 2, R | F, cmd_pttl, 1, 1, 1},
    {"persist", 2, W | F, cmd_persist, 1, 1, 1},
    {"expiretime", 2, R | F, cmd_expiretime, 1, 1, 1},
    {"pexpiretime", 2, R | F, cmd_pexpiretime, 1, 1, 1},
    // pub/sub
    {"publish", 3, PS | F | S | kCmdMayReplicate, cmd_publish},
    {"subscribe", -2, PS | NS | S | SC, cmd_subscribe},
    {"unsubscribe", -1, PS | NS | S | SC, cmd_unsubscribe},
    {"psubscribe", -2, PS | NS | S | SC, cmd_psubscribe},
    {"punsubscribe", -1, PS | NS | S | SC, cmd_punsubscribe},
    {"spublish", 3, PS | F | S | kCmdMayReplicate, cmd_spublish, 1, 1, 1},
    {"ssubscribe", -2, PS | NS | S | SC, cmd_ssubscribe, 1, -1, 1},
    {"sunsubscribe", -1, PS | NS | S | SC, cmd_sunsubscribe, 1, -1, 1},
    {"pubsub", -2, S | C, cmd_pubsub, 0, 0, 0, nullptr, kPubsubSubcommands},
    // scripting
    {"eval", -3, NS | S, cmd_eval, 0, 0, 0, eval_flags},
    {"evalsha", -3, NS | S, cmd_evalsha, 0, 0, 0, evalsha_flags},
    {"eval_ro", -3, NS | S | R, cmd_eval_ro, 0, 0, 0, eval_flags},
    {"evalsha_ro", -3, NS | S | R, cmd_evalsha_ro, 0, 0, 0, evalsha_flags},
    {"script", -2, NS | C, cmd_script, 0, 0, 0, nullptr, kScriptSubcommands},
    {"fcall", -3, NS | S | kCmdMayReplicate, cmd_fcall, 0, 0, 0, fcall_flags},
    {"fcall_ro", -3, NS | S | R, cmd_fcall_ro, 0, 0, 0, fcall_flags},
    {"function", -2, NS | C, cmd_function, 0, 0, 0, nullptr, kFunctionSubcommands},
    // server and connection
    {"ping", -1, F | S | SC, cmd_ping},
    {"echo", 2, F, cmd_echo},
    {"time", 1, F | S, cmd_time},
    {"wait", 3, NS, cmd_wait},
    {"command", -1, S | C, cmd_command, 0, 0, 0, nullptr, kCommandSubcommands},
    {"hello", -1, NS | F | S, cmd_hello},
    {"client", -2, NS | S | C, cmd_client, 0, 0, 0, nullptr, kClientSubcommands},
    {"config", -2, NS | A | S | C, cmd_config, 0, 0, 0, nullptr, kConfigSubcommands},
    {"info", -1, S, cmd_info},
    {"quit", -1, NS | F | S | SC, cmd_quit},
    {"shutdown", -1, NS | A | S | kCmdNoMulti, cmd_shutdown},
    {"reset", 1, NS | F | S | SC, cmd_reset},
    {"multi", 1, NS | F | S, cmd_multi},
    {"exec", 1, NS | S, cmd_exec},
    {"discard", 1, NS | F | S, cmd_discard},
    {"watch", -2, NS | F | S, cmd_watch, 1, -1, 1},
    {"unwatch", 1, NS | F | S, cmd_unwatch},
};

// Lookups sit on the script hot path (every redis.call), so they must not allocate or hash.
// Every name fits in 16 bytes: the lower-cased name, zero-padded, is two 64-bit words, and the
// index keeps each command's words in a bucket chosen by (length, first letter).
constexpr size_t kNameBytes = 16;
constexpr size_t kLetters = 27;  // a-z, and one bucket for anything else
constexpr size_t kMaxBucket = 8;

struct PackedName {
  uint64_t lo = 0, hi = 0;
  bool operator==(const PackedName&) const = default;
};

// Lower-cases and packs a name. REQUIRES: name.size() <= kNameBytes.
PackedName pack(std::string_view name) {
  char buf[kNameBytes] = {};
  std::memcpy(buf, name.data(), name.size());
  PackedName p;
  std::memcpy(&p.lo, buf, 8);
  std::memcpy(&p.hi, buf + 8, 8);
  p.lo = ascii_lower8(p.lo);
  p.hi = ascii_lower8(p.hi);
  return p;
}

size_t letter_of(char ch) {
  char c = ascii_lower(ch);
  return (c >= 'a' && c <= 'z') ? static_cast<size_t>(c - 'a') : kLetters - 1;
}

struct CommandIndex {
  struct Slot {
    PackedName name;
    const Command* cmd = nullptr;
  };
  Slot buckets[kNameBytes + 1][kLetters][kMaxBucket] = {};
  CommandIndex() {
    for (const Command& c : kCommands) {
      LS_ASSERT(!c.name.empty() && c.name.size() <= kNameBytes);
      LS_ASSERT(((c.flags & kCmdContainer) != 0) == !c.subcommands.empty());
      Slot* bucket = buckets[c.name.size()][letter_of(c.name[0])];
      size_t i = 0;
      while (i < kMaxBucket && bucket[i].cmd != nullptr) {
        LS_ASSERT(bucket[i].cmd->name != c.name);
        i++;
      }
      LS_ASSERT(i < kMaxBucket);
      bucket[i] = Slot{pack(c.name), &c};
    }
  }
};

const CommandIndex& command_index() {
  static const CommandIndex index;
  return index;
}

}  // namespace

const Command* lookup_command(std::string_view name) {
  if (name.empty() || name.size() > kNameBytes) return nullptr;
  const CommandIndex::Slot* bucket = command_index().buckets[name.size()][letter_of(name[0])];
  const PackedName key = pack(name);
  for (size_t i = 0; i < kMaxBucket && bucket[i].cmd != nullptr; i++) {
    if (bucket[i].name == key) return bucket[i].cmd;
  }
  return nullptr;
}

std::span<const Command> all_commands() { return kCommands; }

const Subcommand* lookup_subcommand(const Command& cmd, std::string_view name) {
  for (const Subcommand& sub : cmd.subcommands) {
    if (iequals(sub.name, name)) return &sub;
  }
  return nullptr;
}

SubcommandProblem resolve_subcommand(const Command& cmd, Args argv, const Subcommand** sub) {
  *sub = nullptr;
  if (cmd.subcommands.empty() || argv.size() < 2) return SubcommandProblem::kNone;
  *sub = lookup_subcommand(cmd, argv[1]);
  if (*sub == nullptr) return SubcommandProblem::kUnknown;
  if (!arity_ok((*sub)->arity, argv.size())) return SubcommandProblem::kArity;
  if (!(*sub)->modelled) return SubcommandProblem::kNotModelled;
  return SubcommandProblem::kNone;
}

namespace {
std::string upper(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = ascii_upper(ch);
  return out;
}
}  // namespace

std::string unknown_subcommand_text(Args argv) {
  return sanitize_error("ERR unknown subcommand '" + std::string(argv[1].substr(0, 128)) + "'. Try " +
                        upper(argv[0]) + " HELP.");
}

std::string not_modelled_text(const Command& cmd, const Subcommand& sub) {
  return "ERR lockstep model: " + upper(cmd.name) + " " + upper(sub.name) + " is not supported";
}

std::string full_command_name(const Command& cmd, const Subcommand* sub) {
  std::string name(cmd.name);
  if (sub != nullptr) {
    name += '|';
    name += sub->name;
  }
  return name;
}

uint32_t command_flags(const Command& cmd, Server& srv, Args argv) {
  uint32_t flags = cmd.flags_fn != nullptr ? cmd.flags_fn(srv, cmd, argv) : cmd.flags;
  if (!cmd.subcommands.empty() && argv.size() > 1) {
    if (const Subcommand* sub = lookup_subcommand(cmd, argv[1]); sub != nullptr) flags |= sub->flags;
  }
  return flags;
}

std::string sanitize_error(std::string text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.pop_back();
  std::replace(text.begin(), text.end(), '\r', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

std::string unknown_command_error(Args argv) {
  // Redis prints the name cut at 128 bytes and the arguments until 128 bytes of them are shown.
  constexpr size_t kLimit = 128;
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < kLimit; i++) {
    std::string_view shown = argv[i].substr(0, kLimit - args.size());
    args += '\'';
    args += shown;
    args += "' ";
  }
  std::string_view name = argv.empty() ? std::string_view() : argv[0].substr(0, kLimit);
  return sanitize_error("ERR unknown command '" + std::string(name) +
                        "', with args beginning with: " + args);
}

void Call::wrong_type() { error(kWrongTypeError); }
void Call::syntax_error() { error(kSyntaxError); }
void Call::not_integer() { error(kNotIntegerError); }
std::string arity_error_text(std::string_view name) {
  std::string text = "ERR wrong number of arguments for '";
  text += name;
  text += "' command";
  return text;
}

void unknown_subcommand(Call& c) { c.error(unknown_subcommand_text(c.argv)); }

void subcommand_syntax_error(Call& c) {
  c.error(sanitize_error("ERR unknown subcommand or wrong number of arguments for '" +
                         std::string(c.argv[1].substr(0, 128)) + "'. Try " + upper(c.argv[0]) + " HELP."));
}

void Call::arity_error() { error(arity_error_text(cmd != nullptr ? cmd->name : std::string_view("?"))); }

}  // namespace lockstep::redis
