#include <gtest/gtest.h>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

// Replies checked against redis-server 7.0.15, except where the model says what it is.

TEST(ServerTest, PingEchoTime) {
  TestNode t(/*start_ms=*/1'700'000'000'123);
  EXPECT_EQ(t.run({"ping"}), S("PONG"));
  EXPECT_EQ(t.run({"ping", "hi"}), B("hi"));
  EXPECT_EQ(t.run({"ping", "a", "b"}), E("ERR wrong number of arguments for 'ping' command"));
  EXPECT_EQ(t.run({"echo", "hi"}), B("hi"));
  EXPECT_EQ(t.run({"echo"}), E("ERR wrong number of arguments for 'echo' command"));
  EXPECT_EQ(t.run({"time"}), A({B("1700000000"), B("123000")}));
  EXPECT_EQ(t.run({"time", "x"}), E("ERR wrong number of arguments for 'time' command"));
  EXPECT_EQ(t.run({"quit"}), OK());
}

TEST(ServerTest, WaitWithoutAndWithHook) {
  TestNode t;
  EXPECT_EQ(t.run({"wait", "0", "0"}), I(0));
  EXPECT_EQ(t.run({"wait", "-5", "0"}), I(0));
  EXPECT_EQ(t.run({"wait", "x", "-1"}), E("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run({"wait", "0", "x"}), E("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(t.run({"wait", "0", "-1"}), E("ERR timeout is negative"));
  EXPECT_EQ(t.run({"wait", "0"}), E("ERR wrong number of arguments for 'wait' command"));

  int64_t seen_replicas = -1, seen_timeout = -1;
  ConnectionId seen_conn = 0;
  NodeConfig config;
  config.clock_us = [] { return int64_t{5}; };
  config.hooks.on_wait = [&](ConnectionId c, int64_t n, int64_t timeout_ms) {
    seen_conn = c;
    seen_replicas = n;
    seen_timeout = timeout_ms;
  };
  Node node(config);
  ConnectionId c = node.connect();
  std::vector<Reply> out;
  std::vector<std::string_view> argv = {"WAIT", "1", "1000"};
  node.execute(c, argv, out);
  EXPECT_TRUE(out.empty());  // the hook owns the reply
  EXPECT_EQ(seen_conn, c);
  EXPECT_EQ(seen_replicas, 1);
  EXPECT_EQ(seen_timeout, 1000);
}

// SHUTDOWN: Redis 7.0's syntax and refusals (checked against redis-server 7.0.15); a node whose
// host has no on_shutdown hook (the simulator) cannot be shut down and says so.
TEST(ServerTest, ShutdownSyntaxRefusalsAndHook) {
  TestNode t;
  EXPECT_EQ(t.run({"shutdown", "foo"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"shutdown", "save", "nosave"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"shutdown", "abort", "now"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"shutdown", "abort"}), E("ERR No shutdown in progress."));
  EXPECT_EQ(t.run({"shutdown", "now"}), E("ERR Errors trying to SHUTDOWN. Check logs."));
  EXPECT_TRUE(t.run({"shutdown", "save"}).str.starts_with("ERR Errors trying to SHUTDOWN: SAVE asks for a snapshot"));
  // Not inside MULTI (the transaction is then aborted), not from a script.
  EXPECT_EQ(t.run({"multi"}), OK());
  EXPECT_EQ(t.run({"shutdown"}), E("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(t.run({"exec"}), E("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_TRUE(t.run({"eval", "return redis.call('shutdown')", "0"})
                  .str.starts_with("ERR This Redis command is not allowed from script"));

  std::vector<ConnectionId> shut_by;
  NodeConfig config;
  config.clock_us = [] { return int64_t{5}; };
  config.hooks.on_shutdown = [&](ConnectionId c) { shut_by.push_back(c); };
  Node node(config);
  const ConnectionId c = node.connect();
  std::vector<Reply> out;
  std::vector<std::string_view> argv = {"SHUTDOWN", "NOW", "nosave", "FORCE", "force"};
  node.execute(c, argv, out);
  EXPECT_TRUE(out.empty());  // the caller gets no reply: its server is gone
  EXPECT_EQ(shut_by, std::vector<ConnectionId>{c});
  EXPECT_FALSE(parse_shutdown(std::vector<std::string_view>{"shutdown", "nosave", "abort"}).valid);
  const ShutdownArgs plain = parse_shutdown(std::vector<std::string_view>{"shutdown"});
  EXPECT_TRUE(plain.valid && !plain.nosave && !plain.save && !plain.abort);
}

// HELLO's reply as the model gives it to the simulator (RESP2 shape: a flat array).
Reply flat_hello(const TestNode& t, int proto) {
  return A({B("server"), B("redis"), B("version"), B("7.0.15"), B("proto"), I(proto), B("id"),
            I(static_cast<int64_t>(t.conn)), B("mode"), B("standalone"), B("role"), B("master"),
            B("modules"), A({})});
}

TEST(ServerTest, HelloAndClient) {
  TestNode t;
  EXPECT_EQ(t.run({"hello"}), flat_hello(t, 2));
  EXPECT_EQ(t.run({"hello", "2"}), flat_hello(t, 2));
  // Without typed replies (the simulator) a RESP3 connection still gets RESP2 shapes.
  EXPECT_EQ(t.run({"hello", "3"}), flat_hello(t, 3));
  EXPECT_EQ(t.node->protocol(t.conn), 3);
  EXPECT_EQ(t.run({"hset", "h", "f", "v"}), I(1));
  EXPECT_EQ(t.run({"hgetall", "h"}), A({B("f"), B("v")}));
  EXPECT_EQ(t.run({"hello", "2"}), flat_hello(t, 2));
  EXPECT_EQ(t.run({"hello", "4"}), E("NOPROTO unsupported protocol version"));
  EXPECT_EQ(t.run({"hello", "1"}), E("NOPROTO unsupported protocol version"));
  EXPECT_EQ(t.run({"hello", "x"}), E("ERR Protocol version is not an integer or out of range"));
  EXPECT_EQ(t.run({"hello", "2", "foo"}), E("ERR Syntax error in HELLO option 'foo'"));
  EXPECT_EQ(t.run({"hello", "2", "setname"}), E("ERR Syntax error in HELLO option 'setname'"));
  EXPECT_EQ(t.run({"hello", "2", "auth", "a", "b"}), E("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(t.run({"hello", "2", "auth", "default", "any", "setname", "foo"}), flat_hello(t, 2));
  EXPECT_EQ(t.run({"client", "getname"}), B("foo"));
  EXPECT_EQ(t.run({"client", "setname", "a b"}), E("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(t.run({"client", "setname", ""}), OK());
  EXPECT_EQ(t.run({"client", "getname"}), N());
  EXPECT_EQ(t.run({"client", "id"}), I(static_cast<int64_t>(t.conn)));
  EXPECT_EQ(t.run({"client", "foo"}), E("ERR unknown subcommand 'foo'. Try CLIENT HELP."));
  EXPECT_EQ(t.run({"client"}), E("ERR wrong number of arguments for 'client' command"));
  EXPECT_EQ(t.run({"client", "setname"}), E("ERR wrong number of arguments for 'client|setname' command"));
}

// HELLO's reply as Redis builds it: a map (RESP2 clients get it flattened).
Reply hello_map(const TestNode& t, int proto) { return M(flat_hello(t, proto).elements); }

TEST(ServerTest, HelloSwitchesTheProtocolOnlyWhenEverythingSucceeded) {
  TypedTestNode t;
  EXPECT_EQ(t.node->protocol(t.conn), 2);
  EXPECT_EQ(t.run({"hello"}), hello_map(t, 2));
  EXPECT_EQ(t.run({"hello", "3"}), hello_map(t, 3));
  EXPECT_EQ(t.node->protocol(t.conn), 3);
  EXPECT_EQ(t.run({"hello"}), hello_map(t, 3));  // no version: the protocol stays
  EXPECT_EQ(t.run({"HELLO", "2"}), hello_map(t, 2));
  EXPECT_EQ(t.node->protocol(t.conn), 2);
  // Options run in order and stay done when a later one fails; the protocol does not switch.
  EXPECT_EQ(t.run({"hello", "3", "setname", "zz", "foo"}), E("ERR Syntax error in HELLO option 'foo'"));
  EXPECT_EQ(t.run({"client", "getname"}), B("zz"));
  EXPECT_EQ(t.run({"hello", "3", "setname", "yy", "auth", "bob", "pw"}),
            E("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(t.run({"hello", "3", "auth", "bob", "pw", "setname", "xx"}),
            E("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(t.run({"client", "getname"}), B("yy"));
  EXPECT_EQ(t.run({"hello", "3", "setname", "a b", "foo"}),
            E("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(t.run({"hello", "3", "auth", "default"}), E("ERR Syntax error in HELLO option 'auth'"));
  EXPECT_EQ(t.run({"hello", "4", "foo"}), E("NOPROTO unsupported protocol version"));
  EXPECT_EQ(t.node->protocol(t.conn), 2);
  // The default user has no password: any password logs it in.
  EXPECT_EQ(t.run({"hello", "3", "AUTH", "default", "anything", "SETNAME", "a", "SETNAME", "b"}), hello_map(t, 3));
  EXPECT_EQ(t.run({"client", "getname"}), B("b"));
  EXPECT_EQ(t.run({"hello", "3", "setname", ""}), hello_map(t, 3));
  EXPECT_EQ(t.run({"client", "getname"}), N());
  // RESET: back to RESP2.
  EXPECT_EQ(t.run({"reset"}), S("RESET"));
  EXPECT_EQ(t.node->protocol(t.conn), 2);
  // Each connection has its own protocol.
  const ConnectionId other = t.node->connect();
  EXPECT_EQ(t.run_on(other, {"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(t.node->protocol(other), 3);
  EXPECT_EQ(t.node->protocol(t.conn), 2);
}

TEST(ServerTest, TypedRepliesOfServerCommands) {
  TypedTestNode t;
  EXPECT_EQ(t.run({"config", "get", "databases"}), M({B("databases"), B("16")}));
  EXPECT_EQ(t.run({"config", "get", "nosuch"}), M({}));
  EXPECT_EQ(t.run({"command", "docs", "get"}), M({}));
  const Reply info = t.run({"info", "keyspace"});
  EXPECT_EQ(info, Reply::verbatim("txt", "# Keyspace\r\n"));
  EXPECT_EQ(info.str, "txt:# Keyspace\r\n");
  Reply get_info = t.run({"command", "info", "nosuch", "get"});
  ASSERT_EQ(get_info.elements.size(), 2u);
  EXPECT_EQ(get_info.elements[0], N());
  EXPECT_EQ(get_info.elements[1], A({B("get"), I(2), Set({S("readonly"), S("fast")}), I(1), I(1), I(1), Set({}),
                                     Set({}), Set({}), Set({})}));
  // Only pub/sub commands carry the "pubsub" flag (not PING, QUIT, RESET).
  EXPECT_EQ(t.run({"command", "info", "ping"}).elements[0].elements[2], Set({S("stale"), S("fast")}));
  EXPECT_EQ(t.run({"command", "info", "publish"}).elements[0].elements[2],
            Set({S("pubsub"), S("stale"), S("fast"), S("may_replicate")}));
  EXPECT_EQ(t.run({"client", "getname"}), N());
  EXPECT_EQ(t.run({"time"}).type, Reply::Type::kArray);
}

TEST(ServerTest, ConfigInfoCommand) {
  TestNode t;
  EXPECT_EQ(t.run({"config", "get", "save"}), A({B("save"), B("")}));
  EXPECT_EQ(t.run({"config", "get", "appendonly"}), A({B("appendonly"), B("no")}));
  EXPECT_EQ(t.run({"config", "get", "nosuch"}), A({}));
  EXPECT_EQ(t.run({"config", "get", "save", "appendonly"}), A({B("appendonly"), B("no"), B("save"), B("")}));
  EXPECT_EQ(t.run({"config", "get", "SAVE"}), A({B("save"), B("")}));
  EXPECT_EQ(t.run({"config", "get"}), E("ERR wrong number of arguments for 'config|get' command"));
  EXPECT_EQ(t.run({"config", "foo"}), E("ERR unknown subcommand 'foo'. Try CONFIG HELP."));
  EXPECT_EQ(t.run({"config"}), E("ERR wrong number of arguments for 'config' command"));
  EXPECT_TRUE(t.run({"config", "set", "save", ""}).is_error());
  std::string info = t.run({"info"}).str;
  EXPECT_NE(info.find("redis_version:7.0.15\r\n"), std::string::npos);
  EXPECT_NE(info.find("role:master\r\n"), std::string::npos);
  EXPECT_EQ(t.run({"info", "nosuch"}), B(""));
  Reply count = t.run({"command", "count"});
  EXPECT_EQ(count.type, Reply::Type::kInteger);
  EXPECT_GT(count.integer, 80);
  EXPECT_EQ(t.run({"command", "docs", "get"}), A({}));
  EXPECT_EQ(t.run({"command", "foo"}), E("ERR unknown subcommand 'foo'. Try COMMAND HELP."));
  Reply get_info = t.run({"command", "info", "nosuch", "get"});
  ASSERT_EQ(get_info.elements.size(), 2u);
  EXPECT_EQ(get_info.elements[0], N());
  EXPECT_EQ(get_info.elements[1].elements[0], B("get"));
  EXPECT_EQ(get_info.elements[1].elements[1], I(2));
  EXPECT_EQ(t.run({"command", "list"}).elements.size(), static_cast<size_t>(count.integer));
}

TEST(ServerTest, ConnectionCommandsAreNotAllowedInScripts) {
  TestNode t;
  for (std::string_view call : {"'client','id'", "'hello','2'", "'quit'", "'reset'", "'config','get','save'",
                                 "'wait','0','0'", "'eval','return 1','0'", "'script','load','return 1'"}) {
    std::string body = "return redis.call(" + std::string(call) + ")";
    Reply r = t.run({"eval", body, "0"});
    EXPECT_NE(r.str.find("ERR This Redis command is not allowed from script script: "), std::string::npos) << call;
  }
  // Arity is checked before the script permission, as in Redis's scriptCall.
  EXPECT_NE(t.run({"eval", "return redis.call('client')", "0"}).str.find("ERR Wrong number of args calling Redis command from script"),
            std::string::npos);
  EXPECT_EQ(t.run({"eval", "return redis.call('ping', 'x')", "0"}), B("x"));
  EXPECT_EQ(t.run({"eval", "return redis.call('echo', 'x')", "0"}), B("x"));
  EXPECT_EQ(t.run({"eval", "return redis.call('command', 'count') > 0", "0"}), I(1));
}


TEST(ServerTest, ClientListAndInfo) {
  TestNode t;
  ConnectionInfo info;
  info.addr = "127.0.0.1:5000";
  info.laddr = "127.0.0.1:6379";
  info.fd = 9;
  const ConnectionId other = t.node->connect(info);
  t.run_on(other, {"client", "setname", "worker"});
  t.run_on(other, {"subscribe", "ch"});
  t.advance_ms(3000);
  t.run({"select", "2"});
  t.run({"client", "no-evict", "on"});
  Reply self = t.run({"client", "info"});
  ASSERT_EQ(self.type, Reply::Type::kBulk);
  EXPECT_EQ(self.str,
            "id=1 addr=?:0 laddr=?:0 fd=-1 name= age=3 idle=0 flags=e db=2 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 "
            "qbuf-free=0 argv-mem=10 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=10 events=r cmd=client|info "
            "user=default redir=-1 resp=2\n");
  Reply all = t.run({"client", "list"});
  EXPECT_NE(all.str.find("id=1 "), std::string::npos);
  EXPECT_NE(all.str.find("\nid=2 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=9 name=worker age=3 idle=3 flags=P "
                         "db=0 sub=1 psub=0 ssub=0 multi=-1 "),
            std::string::npos)
      << all.str;
  EXPECT_NE(all.str.find("cmd=subscribe "), std::string::npos);
  EXPECT_EQ(t.run({"client", "list", "type", "pubsub"}).str.substr(0, 5), "id=2 ");
  EXPECT_EQ(t.run({"client", "list", "type", "replica"}).str, "");
  EXPECT_EQ(t.run({"client", "list", "id", "2", "77"}).str.substr(0, 5), "id=2 ");
  EXPECT_EQ(t.run({"client", "list", "type", "foo"}), E("ERR Unknown client type 'foo'"));
  EXPECT_EQ(t.run({"client", "list", "id", "abc"}), E("ERR Invalid client ID"));
  EXPECT_EQ(t.run({"client", "list", "x"}), E("ERR syntax error"));
  EXPECT_EQ(t.run({"client", "info", "x"}), E("ERR wrong number of arguments for 'client|info' command"));
  // An unknown command leaves cmd=NULL; MULTI shows its queue.
  t.run_on(other, {"reset"});
  t.run_on(other, {"nosuch"});
  EXPECT_NE(t.run({"client", "list", "id", "2"}).str.find(" cmd=NULL "), std::string::npos);
  t.run_on(other, {"multi"});
  t.run_on(other, {"set", "k", "v"});
  EXPECT_NE(t.run({"client", "list", "id", "2"}).str.find(" flags=x db=0 sub=0 psub=0 ssub=0 multi=1 "),
            std::string::npos);
}

TEST(ServerTest, InfoReportsTheConfiguredPort) {
  NodeConfig config;
  config.clock_us = [] { return int64_t{0}; };
  config.tcp_port = 6390;
  Node node(std::move(config));
  const ConnectionId id = node.connect();
  std::vector<std::string_view> argv{"info", "server"};
  EXPECT_NE(node.execute_one(id, argv).str.find("\r\ntcp_port:6390\r\n"), std::string::npos);
}

}  // namespace
}  // namespace lockstep::redis::testing
