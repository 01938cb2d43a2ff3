// Server and connection commands: PING, ECHO, TIME, WAIT, COMMAND, HELLO, CLIENT, CONFIG, INFO,
// QUIT, RESET — what redis-cli, redis-benchmark and client libraries send, answered honestly
// for a model (no persistence settings to report, no replicas of its own).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/pubsub.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

constexpr std::string_view kVersion = "7.0.15";

// Client names: printable ASCII without spaces (validateClientName).
bool valid_client_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char ch) { return ch >= '!' && ch <= '~'; });
}

constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// One line of CLIENT LIST / CLIENT INFO, in Redis 7.0's field order. The model has no socket
// buffers: qbuf, qbuf-free, rbs, rbp, obl, oll and omem read 0, argv-mem counts the request
// being run (for the caller) and multi-mem the queued commands' arguments, tot-mem their sum.
std::string client_info_line(const Call& c, const Client& cl) {
  std::string flags;
  if (cl.total_subscription_count() > 0) flags += 'P';
  if (cl.multi) flags += 'x';
  if (cl.blocked) flags += 'b';
  if (cl.dirty_cas) flags += 'd';
  if (cl.no_evict) flags += 'e';
  if (flags.empty()) flags = "N";
  uint64_t argv_mem = 0, multi_mem = 0;
  if (&cl == &c.client) {
    for (std::string_view a : c.argv) argv_mem += a.size();
  }
  for (const std::vector<std::string>& q : cl.tx.get().queued) {
    for (const std::string& a : q) multi_mem += a.size();
  }
  const std::string cmd =
      cl.last_command != nullptr ? full_command_name(*cl.last_command, cl.last_subcommand) : std::string("NULL");
  const int64_t now_s = c.srv.mstime() / 1000;
  auto n = [](auto v) { return std::to_string(v); };
  return "id=" + n(cl.id) + " addr=" + cl.info.get().addr + " laddr=" + cl.info.get().laddr +
         " fd=" + n(cl.info.get().fd) +
         " name=" + cl.name.get() + " age=" + n(now_s - cl.created_ms / 1000) +
         " idle=" + n(now_s - cl.last_interaction_ms / 1000) + " flags=" + flags + " db=" + n(cl.db) +
         " sub=" + n(cl.subs.get().channels.size()) + " psub=" + n(cl.subs.get().patterns.size()) +
         " ssub=" + n(cl.subs.get().shard_channels.size()) + " multi=" +
         (cl.multi ? n(cl.tx.get().queued.size()) : std::string("-1")) + " qbuf=0 qbuf-free=0 argv-mem=" + n(argv_mem) +
         " multi-mem=" + n(multi_mem) + " rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=" + n(argv_mem + multi_mem) +
         " events=r cmd=" + cmd + " user=default redir=-1 resp=" + n(cl.resp) + "\n";
}

// CLIENT LIST TYPE's classes (getClientTypeByName); the model's clients are normal or pub/sub.
bool client_type_matches(const Client& cl, std::string_view type, bool* known) {
  *known = true;
  if (iequals(type, "normal")) return cl.total_subscription_count() == 0;
  if (iequals(type, "pubsub")) return cl.total_subscription_count() > 0;
  if (iequals(type, "replica") || iequals(type, "slave") || iequals(type, "master")) return false;
  *known = false;
  return false;
}

}  // namespace

void cmd_ping(Call& c) {
  if (c.argv.size() > 2) return c.arity_error();
  if (c.client.total_subscription_count() > 0 && !c.client.resp3()) {
    // RESP2 subscribed mode answers with a pub/sub-shaped array (RESP3 has pushes for that).
    c.reply(Reply::array({Reply::bulk("pong"), Reply::bulk(c.argv.size() == 2 ? c.argv[1] : "")}));
    return;
  }
  c.reply(c.argv.size() == 1 ? Reply::status("PONG") : Reply::bulk(c.argv[1]));
}

void cmd_echo(Call& c) { c.reply(Reply::bulk(c.argv[1])); }

void cmd_time(Call& c) {
  int64_t us = c.srv.ustime();
  int64_t sec = us >= 0 ? us / 1'000'000 : -((-us + 999'999) / 1'000'000);
  int64_t usec = us - sec * 1'000'000;
  c.reply(Reply::array({Reply::bulk(int_to_string(sec)), Reply::bulk(int_to_string(usec))}));
}

void cmd_wait(Call& c) {
  if (c.srv.replica()) {
    return c.error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if "
        "a replica is configured to be writable (which is not the default) writes to replicas are "
        "just local and are not propagated.");
  }
  int64_t numreplicas = 0, timeout_ms = 0;
  if (!parse_int64(c.argv[1], &numreplicas)) return c.not_integer();
  if (!parse_int64(c.argv[2], &timeout_ms)) return c.error("ERR timeout is not an integer or out of range");
  if (timeout_ms < 0) return c.error("ERR timeout is negative");
  int64_t now = c.srv.mstime();
  if (timeout_ms > 0 && now > 0 && timeout_ms > INT64_MAX - now) return c.error("ERR timeout is out of range");
  if (c.srv.hooks().on_wait) {
    // The simulator knows the replicas' acknowledgements and answers later.
    c.srv.hooks().on_wait(c.client.id, numreplicas, timeout_ms);
    return;
  }
  c.reply(Reply::integer_of(0));
}

namespace {

// One command's COMMAND INFO entry. Redis 7.0 replies the flags, ACL categories, tips and key
// specs as sets, and the subcommands as a set when there are none (the model has none of the
// last four).
Reply command_entry(const Command& cmd) {
  std::vector<Reply> flags;
  struct FlagName {
    uint32_t flag;
    std::string_view name;
  };
  static constexpr FlagName kNames[] = {
      {kCmdWrite, "write"}, {kCmdReadOnly, "readonly"}, {kCmdAdmin, "admin"},
      {kCmdPubSub, "pubsub"}, {kCmdNoScript, "noscript"}, {kCmdStale, "stale"},
      {kCmdFast, "fast"},   {kCmdMayReplicate, "may_replicate"}, {kCmdBlocking, "blocking"},
      {kCmdNoMulti, "no_multi"},
  };
  for (const FlagName& f : kNames) {
    if (cmd.flags & f.flag) flags.push_back(Reply::status(f.name));
  }
  return Reply::array({Reply::bulk(cmd.name), Reply::integer_of(cmd.arity), Reply::set(std::move(flags)),
                       Reply::integer_of(cmd.first_key), Reply::integer_of(cmd.last_key),
                       Reply::integer_of(cmd.key_step), Reply::set({}), Reply::set({}),
                       Reply::set({}), Reply::set({})});
}

}  // namespace

void cmd_command(Call& c) {
  if (c.argv.size() == 1) {
    std::vector<Reply> all;
    for (const Command& cmd : all_commands()) all.push_back(command_entry(cmd));
    return c.reply(Reply::array(std::move(all)));
  }
  std::string_view sub = c.argv[1];
  if (iequals(sub, "count")) {
    c.reply(Reply::integer_of(static_cast<int64_t>(all_commands().size())));
  } else if (iequals(sub, "docs")) {
    // The model carries no documentation; an empty map is valid for every client.
    c.reply(Reply::map({}));
  } else if (iequals(sub, "info")) {
    std::vector<Reply> entries;
    if (c.argv.size() == 2) {
      for (const Command& cmd : all_commands()) entries.push_back(command_entry(cmd));
    }
    for (size_t j = 2; j < c.argv.size(); j++) {
      const Command* cmd = lookup_command(c.argv[j]);
      entries.push_back(cmd != nullptr ? command_entry(*cmd) : Reply::nil());
    }
    c.reply(Reply::array(std::move(entries)));
  } else if (iequals(sub, "list")) {
    if (c.argv.size() > 2) return c.syntax_error();  // FILTERBY is not modelled
    std::vector<Reply> names;
    for (const Command& cmd : all_commands()) names.push_back(Reply::bulk(cmd.name));
    c.reply(Reply::array(std::move(names)));
  } else {
    unknown_subcommand(c);
  }
}

namespace {

// HELLO's reply: a map in RESP3, a flat array in RESP2 (the protocol just chosen).
Reply hello_reply(const Call& c) {
  return Reply::map({Reply::bulk("server"), Reply::bulk("redis"), Reply::bulk("version"), Reply::bulk(kVersion),
                     Reply::bulk("proto"), Reply::integer_of(c.client.resp), Reply::bulk("id"),
                     Reply::integer_of(static_cast<int64_t>(c.client.id)), Reply::bulk("mode"),
                     Reply::bulk("standalone"), Reply::bulk("role"),
                     Reply::bulk(c.srv.replica() ? "replica" : "master"), Reply::bulk("modules"),
                     Reply::array({})});
}

// One HELLO option at argv[*j] (AUTH user pass, SETNAME name), carried out at once as Redis
// 7.0 does: an option that fails stops HELLO, and those before it stay done. Advances *j past
// the option's arguments; replies the error and returns false.
bool hello_option(Call& c, size_t* j) {
  const std::string_view opt = c.argv[*j];
  const size_t more = c.argv.size() - 1 - *j;
  if (iequals(opt, "auth") && more >= 2) {
    // Only the default user exists, without a password ("nopass"): any password is accepted
    // for it, as on a redis-server without requirepass.
    if (c.argv[*j + 1] != "default") {
      c.error("WRONGPASS invalid username-password pair or user is disabled.");
      return false;
    }
    *j += 2;
  } else if (iequals(opt, "setname") && more >= 1) {
    const std::string_view name = c.argv[*j + 1];
    if (!valid_client_name(name)) {
      c.error(kBadClientName);
      return false;
    }
    c.client.name.for_write() = std::string(name);
    *j += 1;
  } else {
    c.error(sanitize_error("ERR Syntax error in HELLO option '" + std::string(opt) + "'"));
    return false;
  }
  return true;
}

}  // namespace

// HELLO [protover [AUTH username password] [SETNAME clientname]]: the version is checked first
// (2 or 3), then the options run in order, and only once all succeeded does the connection
// switch protocols; the reply is in the new one.
void cmd_hello(Call& c) {
  int64_t version = 0;
  if (c.argv.size() >= 2) {
    if (!parse_int64(c.argv[1], &version)) return c.error("ERR Protocol version is not an integer or out of range");
    if (version < 2 || version > 3) return c.error("NOPROTO unsupported protocol version");
  }
  for (size_t j = 2; j < c.argv.size(); j++) {
    if (!hello_option(c, &j)) return;
  }
  if (version != 0) c.client.resp = static_cast<int>(version);
  c.reply(hello_reply(c));
}

void cmd_client(Call& c) {
  std::string_view sub = c.argv[1];
  if (iequals(sub, "id")) {
    c.reply(Reply::integer_of(static_cast<int64_t>(c.client.id)));
  } else if (iequals(sub, "setname")) {
    if (!valid_client_name(c.argv[2])) return c.error(kBadClientName);
    c.client.name.for_write() = std::string(c.argv[2]);
    c.reply(Reply::ok());
  } else if (iequals(sub, "getname")) {
    c.reply(c.client.name.get().empty() ? Reply::nil() : Reply::bulk(c.client.name.get()));
  } else if (iequals(sub, "no-evict")) {
    // The model evicts nothing; the flag is kept for CLIENT LIST, as Redis 7.0 keeps it.
    if (!iequals(c.argv[2], "on") && !iequals(c.argv[2], "off")) return c.syntax_error();
    c.client.no_evict = iequals(c.argv[2], "on");
    c.reply(Reply::ok());
  } else if (iequals(sub, "info")) {
    c.reply(Reply::verbatim("txt", client_info_line(c, c.client)));
  } else if (iequals(sub, "list")) {
    std::string text;
    if (c.argv.size() == 4 && iequals(c.argv[2], "type")) {
      bool known = false;
      client_type_matches(c.client, c.argv[3], &known);
      if (!known) return c.error("ERR Unknown client type '" + std::string(c.argv[3]) + "'");
      c.srv.clients().for_each([&](const Client& cl) {
        bool unused = false;
        if (client_type_matches(cl, c.argv[3], &unused)) text += client_info_line(c, cl);
      });
    } else if (c.argv.size() > 3 && iequals(c.argv[2], "id")) {
      for (size_t j = 3; j < c.argv.size(); j++) {
        int64_t wanted = 0;
        if (!parse_int64(c.argv[j], &wanted)) return c.error("ERR Invalid client ID");
        if (const Client* cl = c.srv.client(static_cast<ConnectionId>(wanted)); wanted > 0 && cl != nullptr) {
          text += client_info_line(c, *cl);
        }
      }
    } else if (c.argv.size() != 2) {
      return c.syntax_error();
    }  else {
      c.srv.clients().for_each([&](const Client& cl) { text += client_info_line(c, cl); });
    }
    c.reply(Reply::verbatim("txt", text));
  } else {
    unknown_subcommand(c);
  }
}

// PUBSUB CHANNELS [pattern] / NUMSUB [channel ...] / NUMPAT, and the sharded variants.
void cmd_pubsub(Call& c) {
  std::string_view sub = c.argv[1];
  const PubSub& ps = c.srv.pubsub();
  if (iequals(sub, "channels") || iequals(sub, "shardchannels")) {
    const bool shard = iequals(sub, "shardchannels");
    if (c.argv.size() > 3) return subcommand_syntax_error(c);  // pubsubCommand's own check, after the table's
    std::vector<Reply> out;
    for (const std::string& ch :
         ps.active_channels(shard, c.argv.size() > 2 ? c.argv[2] : std::string_view(), c.argv.size() == 2)) {
      out.push_back(Reply::bulk(ch));
    }
    c.reply(Reply::array(std::move(out)));
  } else if (iequals(sub, "numsub") || iequals(sub, "shardnumsub")) {
    const bool shard = iequals(sub, "shardnumsub");
    std::vector<Reply> out;
    for (size_t j = 2; j < c.argv.size(); j++) {
      out.push_back(Reply::bulk(c.argv[j]));
      out.push_back(Reply::integer_of(ps.subscribers(shard, c.argv[j])));
    }
    c.reply(Reply::array(std::move(out)));
  } else if (iequals(sub, "numpat")) {
    c.reply(Reply::integer_of(ps.pattern_count()));
  } else {
    unknown_subcommand(c);
  }
}

void cmd_config(Call& c) {
  // The few parameters clients ask about, with the values of a node without persistence.
  static constexpr std::pair<std::string_view, std::string_view> kParams[] = {
      {"appendonly", "no"}, {"databases", "16"}, {"save", ""},
  };
  std::string_view sub = c.argv[1];
  if (iequals(sub, "get")) {
    std::vector<Reply> pairs;  // a map
    for (const auto& [name, value] : kParams) {
      bool match = false;
      for (size_t j = 2; j < c.argv.size() && !match; j++) match = glob_match(c.argv[j], name, true);
      if (!match) continue;
      pairs.push_back(Reply::bulk(name));
      pairs.push_back(Reply::bulk(value));
    }
    c.reply(Reply::map(std::move(pairs)));
  } else if (iequals(sub, "set")) {
    c.error(sanitize_error("ERR lockstep model: configuration is fixed, CONFIG SET is not supported - '" +
                           std::string(c.argv[2]) + "'"));
  } else if (iequals(sub, "resetstat")) {
    c.reply(Reply::ok());
  } else {
    unknown_subcommand(c);
  }
}

void cmd_info(Call& c) {
  bool all = c.argv.size() == 1;
  auto wanted = [&](std::string_view section) {
    if (all) return true;
    for (size_t j = 1; j < c.argv.size(); j++) {
      if (iequals(c.argv[j], section) || iequals(c.argv[j], "all") || iequals(c.argv[j], "default") ||
          iequals(c.argv[j], "everything")) {
        return true;
      }
    }
    return false;
  };
  std::string text;
  auto section = [&](std::string_view title, const std::string& body) {
    if (!text.empty()) text += "\r\n";
    text += "# ";
    text += title;
    text += "\r\n";
    text += body;
  };
  if (wanted("server")) {
    section("Server", "redis_version:" + std::string(kVersion) +
                          "\r\nredis_mode:standalone\r\nlockstep_model:1\r\ntcp_port:" +
                          std::to_string(c.srv.config().tcp_port) + "\r\n");
  }
  if (wanted("clients")) {
    section("Clients", "connected_clients:" + std::to_string(c.srv.clients().size()) + "\r\n");
  }
  if (wanted("replication")) {
    section("Replication", std::string("role:") + (c.srv.replica() ? "slave" : "master") +
                               "\r\nconnected_slaves:0\r\n");
  }
  if (wanted("keyspace")) {
    std::string body;
    for (int i = 0; i < kDatabases; i++) {
      const Keyspace& ks = c.srv.db(i);
      if (ks.size() == 0) continue;
      body += "db" + std::to_string(i) + ":keys=" + std::to_string(ks.size()) +
              ",expires=" + std::to_string(ks.volatile_count()) + ",avg_ttl=0\r\n";
    }
    section("Keyspace", body);
  }
  // A verbatim text in RESP3, a bulk string in RESP2.
  c.reply(Reply::verbatim("txt", text));
}

void cmd_quit(Call& c) { c.reply(Reply::ok()); }

ShutdownArgs parse_shutdown(std::span<const std::string_view> argv) {
  ShutdownArgs args;
  bool now = false, force = false;
  for (size_t i = 1; i < argv.size(); i++) {
    if (iequals(argv[i], "nosave")) {
      args.nosave = true;
    } else if (iequals(argv[i], "save")) {
      args.save = true;
    } else if (iequals(argv[i], "now")) {
      now = true;
    } else if (iequals(argv[i], "force")) {
      force = true;
    } else if (iequals(argv[i], "abort")) {
      args.abort = true;
    } else {
      return args;
    }
  }
  // As Redis 7.0: ABORT stands alone, and SAVE and NOSAVE exclude each other.
  const bool others = args.nosave || args.save || now || force;
  args.valid = !(args.abort && others) && !(args.save && args.nosave);
  return args;
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] | SHUTDOWN ABORT. The model keeps nothing on disk: the
// host ends the node (hooks.on_shutdown: `lockstep serve` closes its port and connections),
// and the caller gets no reply, as from a redis-server that exited. Without the hook (the
// simulator, whose node faults are scheduled) SHUTDOWN fails as Redis's does when it cannot.
void cmd_shutdown(Call& c) {
  const ShutdownArgs args = parse_shutdown(c.argv);
  if (!args.valid) return c.syntax_error();
  // No shutdown ever waits here (no replicas to catch up), so none is in progress.
  if (args.abort) return c.error("ERR No shutdown in progress.");
  if (args.save) {
    return c.error("ERR Errors trying to SHUTDOWN: SAVE asks for a snapshot, and the model keeps nothing on "
                   "disk (SHUTDOWN or SHUTDOWN NOSAVE ends the node)");
  }
  if (!c.srv.hooks().on_shutdown) return c.error("ERR Errors trying to SHUTDOWN. Check logs.");
  c.srv.hooks().on_shutdown(c.client.id);
}

// RESET: the connection as a new one (no subscriptions, database 0, no name, RESP2).
void cmd_reset(Call& c) {
  c.srv.discard_transaction(c.client);
  c.srv.pubsub().drop(c.client);
  c.client.db = 0;
  c.client.name.reset();
  c.client.resp = 2;
  c.reply(Reply::status("RESET"));
}

}  // namespace lockstep::redis
