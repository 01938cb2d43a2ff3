// The command table: name, arity, flags and handler of every command the model implements.
//
// Mirrors Redis's command table. Arity follows Redis: N > 0 means exactly N arguments (the
// command name included), -N means at least N. Lookup is case-insensitive and allocation-free
// (the name is lower-cased into a stack buffer), because it sits on the scripting hot path.
#ifndef LOCKSTEP_SIM_REDIS_COMMANDS_H_
#define LOCKSTEP_SIM_REDIS_COMMANDS_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "sim/redis/server.h"

namespace lockstep::redis {

enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,     // changes data: refused on replicas and in read-only scripts
  kCmdReadOnly = 1u << 1,  // reads data
  kCmdNoScript = 1u << 2,  // not allowed from scripts
  kCmdPubSub = 1u << 3,    // a pub/sub command (COMMAND's "pubsub" flag)
  kCmdFast = 1u << 4,
  kCmdAdmin = 1u << 5,
  kCmdStale = 1u << 6,
  kCmdMayReplicate = 1u << 7,  // may propagate without writing (PUBLISH): refused in RO scripts
  // Allowed while a RESP2 connection is subscribed: Redis 7.0's fixed list ((P)SUBSCRIBE,
  // (P)UNSUBSCRIBE, PING, QUIT, RESET; not PUBLISH). Not a COMMAND flag.
  kCmdSubscribedContext = 1u << 8,
  // Has subcommands (CLIENT, CONFIG, OBJECT...): its full name for CLIENT LIST's cmd= is
  // "name|sub". Not a COMMAND flag.
  kCmdContainer = 1u << 9,
  kCmdBlocking = 1u << 10,  // may block the client (BLPOP)
  kCmdNoMulti = 1u << 11,   // refused inside MULTI ("Command not allowed inside a transaction")
};

struct Command;
using CommandHandler = void (*)(Call&);
// Flags that depend on the arguments (EVAL with a shebang declaring writes). Returns the flags.
using CommandFlagsFn = uint32_t (*)(Server&, const Command&, Args);

// A subcommand of a container command (CLIENT LIST is "client|list"), as Redis 7.0's command
// table has it: dispatch refuses an unknown one, checks its arity and names it in errors before
// the container's handler runs.
struct Subcommand {
  std::string_view name;  // lower case
  int arity;              // counting the container's name
  bool modelled = true;   // false: Redis has it, the model answers that it does not support it
  uint32_t flags = 0;     // added to the container's (FUNCTION LOAD writes)
};

struct Command {
  std::string_view name;  // lower case, as in error messages
  int arity;
  uint32_t flags;
  CommandHandler handler;
  int first_key = 0;  // for COMMAND INFO; 0 when the command takes no keys
  int last_key = 0;
  int key_step = 0;
  CommandFlagsFn flags_fn = nullptr;
  std::span<const Subcommand> subcommands = {};  // non-empty exactly for kCmdContainer commands
};

// The subcommand of container `cmd` named `name` (any case), or nullptr.
const Subcommand* lookup_subcommand(const Command& cmd, std::string_view name);
// A call's subcommand as Redis's command lookup resolves it, before anything runs: dispatch and
// redis.call share it, so a container's handler only ever sees a known subcommand with the
// arguments its table entry allows. *sub is the subcommand (nullptr for a command without one,
// or a container called without arguments, which the container's own arity refuses).
enum class SubcommandProblem : uint8_t { kNone, kUnknown, kArity, kNotModelled };
SubcommandProblem resolve_subcommand(const Command& cmd, Args argv, const Subcommand** sub);
// "ERR unknown subcommand '<argv[1]>'. Try <ARGV[0]> HELP." (processCommand's text).
std::string unknown_subcommand_text(Args argv);
// "ERR lockstep model: CLIENT KILL is not supported".
std::string not_modelled_text(const Command& cmd, const Subcommand& sub);
// "client|list", or "get" for a command without subcommand.
std::string full_command_name(const Command& cmd, const Subcommand* sub);

// The command named `name` (any case), or nullptr.
const Command* lookup_command(std::string_view name);
// Every command, in table order.
std::span<const Command> all_commands();
// True when argc satisfies `arity`.
inline bool arity_ok(int arity, size_t argc) {
  return arity > 0 ? argc == static_cast<size_t>(arity) : argc >= static_cast<size_t>(-arity);
}
// The effective flags of a command call (flags_fn applied, a subcommand's added).
uint32_t command_flags(const Command& cmd, Server& srv, Args argv);

// Redis's reply to an unknown command, e.g. "ERR unknown command 'foo', with args beginning
// with: 'a' 'b' ".
std::string unknown_command_error(Args argv);
// Redis's arity error for a command (or "parent|sub" subcommand) name:
// "ERR wrong number of arguments for '<name>' command".
std::string arity_error_text(std::string_view name);
// Drops trailing CR/LF and replaces inner CR/LF by spaces, as Redis does for formatted errors.
std::string sanitize_error(std::string text);
// Replies unknown_subcommand_text: a container handler's last branch, which resolve_subcommand
// keeps from being reached.
void unknown_subcommand(Call& c);
// Replies "ERR unknown subcommand or wrong number of arguments for '<argv[1]>'. Try <ARGV[0]>
// HELP." (addReplySubcommandSyntaxError).
void subcommand_syntax_error(Call& c);

// ---- Handlers, one file per group as in Redis -------------------------------------------------
// multi.cc
void cmd_multi(Call&);
void cmd_exec(Call&);
void cmd_discard(Call&);
void cmd_watch(Call&);
void cmd_unwatch(Call&);
// t_string.cc
void cmd_get(Call&);
void cmd_set(Call&);
void cmd_setnx(Call&);
void cmd_setex(Call&);
void cmd_psetex(Call&);
void cmd_incr(Call&);
void cmd_decr(Call&);
void cmd_incrby(Call&);
void cmd_decrby(Call&);
void cmd_mget(Call&);
void cmd_mset(Call&);
void cmd_append(Call&);
void cmd_strlen(Call&);
void cmd_getdel(Call&);
// t_hash.cc
void cmd_hset(Call&);
void cmd_hmset(Call&);
void cmd_hsetnx(Call&);
void cmd_hget(Call&);
void cmd_hmget(Call&);
void cmd_hexists(Call&);
void cmd_hdel(Call&);
void cmd_hincrby(Call&);
void cmd_hlen(Call&);
void cmd_hkeys(Call&);
void cmd_hvals(Call&);
void cmd_hgetall(Call&);
// t_list.cc
void cmd_lpush(Call&);
void cmd_rpush(Call&);
void cmd_lpop(Call&);
void cmd_rpop(Call&);
void cmd_lindex(Call&);
void cmd_lrange(Call&);
void cmd_llen(Call&);
void cmd_lrem(Call&);
// t_set.cc
void cmd_sadd(Call&);
void cmd_srem(Call&);
void cmd_sismember(Call&);
void cmd_smembers(Call&);
void cmd_scard(Call&);
void cmd_spop(Call&);
void cmd_srandmember(Call&);
// t_zset.cc
void cmd_zadd(Call&);
void cmd_zincrby(Call&);
void cmd_zscore(Call&);
void cmd_zrem(Call&);
void cmd_zrange(Call&);
void cmd_zrangebyscore(Call&);
void cmd_zcard(Call&);
void cmd_zrank(Call&);
void cmd_incrbyfloat(Call&);
void cmd_getset(Call&);
void cmd_getex(Call&);
void cmd_expiretime(Call&);
void cmd_pexpiretime(Call&);
void cmd_hincrbyfloat(Call&);
void cmd_hstrlen(Call&);
void cmd_smismember(Call&);
void cmd_lset(Call&);
void cmd_ltrim(Call&);
void cmd_lpos(Call&);
void cmd_lmove(Call&);
void cmd_blpop(Call&);
void cmd_brpop(Call&);
void cmd_rename(Call&);
void cmd_renamenx(Call&);
void cmd_copy(Call&);
void cmd_pubsub(Call&);
void cmd_scan(Call&);
void cmd_hscan(Call&);
void cmd_sscan(Call&);
void cmd_zscan(Call&);
void cmd_zrevrank(Call&);
void cmd_zrevrange(Call&);
void cmd_zrevrangebyscore(Call&);
void cmd_zrangebylex(Call&);
void cmd_zrevrangebylex(Call&);
void cmd_zcount(Call&);
void cmd_zlexcount(Call&);
void cmd_zremrangebyscore(Call&);
void cmd_zremrangebylex(Call&);
void cmd_zremrangebyrank(Call&);
// t_keys.cc
void cmd_del(Call&);
void cmd_exists(Call&);
void cmd_type(Call&);
void cmd_keys(Call&);
void cmd_dbsize(Call&);
void cmd_flushall(Call&);
void cmd_flushdb(Call&);
void cmd_select(Call&);
void cmd_randomkey(Call&);
void cmd_object(Call&);
// expire.cc
void cmd_expire(Call&);
void cmd_pexpire(Call&);
void cmd_expireat(Call&);
void cmd_pexpireat(Call&);
void cmd_ttl(Call&);
void cmd_pttl(Call&);
void cmd_persist(Call&);
// pubsub.cc
void cmd_publish(Call&);
void cmd_subscribe(Call&);
void cmd_unsubscribe(Call&);
void cmd_psubscribe(Call&);
void cmd_punsubscribe(Call&);
void cmd_spublish(Call&);
void cmd_ssubscribe(Call&);
void cmd_sunsubscribe(Call&);
// eval.cc
void cmd_eval(Call&);
void cmd_evalsha(Call&);
void cmd_eval_ro(Call&);
void cmd_evalsha_ro(Call&);
void cmd_script(Call&);
uint32_t eval_flags(Server&, const Command&, Args);
// functions.cc
void cmd_fcall(Call&);
void cmd_fcall_ro(Call&);
void cmd_function(Call&);
uint32_t fcall_flags(Server&, const Command&, Args);
uint32_t evalsha_flags(Server&, const Command&, Args);
// t_server.cc
void cmd_ping(Call&);
void cmd_echo(Call&);
void cmd_time(Call&);
void cmd_wait(Call&);
void cmd_command(Call&);
void cmd_hello(Call&);
void cmd_client(Call&);
void cmd_config(Call&);
void cmd_info(Call&);
void cmd_quit(Call&);
void cmd_shutdown(Call&);
void cmd_reset(Call&);

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_COMMANDS_H_
