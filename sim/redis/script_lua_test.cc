// The Lua host: reply conversion, sandbox, globals protection, error texts, budget, random.
// Expected replies and error texts were taken from redis-server 7.0.15 for the same scripts.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/redis/script_lua.h"
#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

Reply eval(TestNode& t, std::string_view body) { return t.run({"eval", body, "0"}); }

// An error raised while a script runs, as Redis 7.0 words it.
Reply script_error(std::string_view body, std::string_view message, int line = 1) {
  return E(std::string(message) + " script: " + sha1_hex(body) + ", on @user_script:" + std::to_string(line) + ".");
}

TEST(ScriptReplyTest, LuaToRedis) {
  TestNode t;
  EXPECT_EQ(eval(t, "return 123"), I(123));
  EXPECT_EQ(eval(t, "return 3.99"), I(3));
  EXPECT_EQ(eval(t, "return -3.99"), I(-3));
  EXPECT_EQ(eval(t, "return 1e20"), I(INT64_MIN));
  EXPECT_EQ(eval(t, "return 0/0"), I(INT64_MIN));
  EXPECT_EQ(eval(t, "return 2^53"), I(9007199254740992));
  EXPECT_EQ(eval(t, "return 'abc'"), B("abc"));
  EXPECT_EQ(eval(t, "return true"), I(1));
  EXPECT_EQ(eval(t, "return false"), N());
  EXPECT_EQ(eval(t, "return nil"), N());
  EXPECT_EQ(eval(t, "return"), N());
  EXPECT_EQ(eval(t, "return function() end"), N());
  EXPECT_EQ(eval(t, "return {}"), A({}));
  EXPECT_EQ(eval(t, "return {1,2,nil,4}"), A({I(1), I(2)}));
  EXPECT_EQ(eval(t, "local t = {}; t[1] = 1; t[2] = 2; t[4] = 4; return t"), A({I(1), I(2)}));
  EXPECT_EQ(eval(t, "return {1,2.9,-3.7,'x',true,false,{1,{2}}}"),
            A({I(1), I(2), I(-3), B("x"), I(1), N(), A({I(1), A({I(2)})})}));
  EXPECT_EQ(eval(t, "return {a=1, 5}"), A({I(5)}));
  EXPECT_EQ(eval(t, "return {function() end, 1}"), A({N(), I(1)}));
}

TEST(ScriptReplyTest, StatusErrorAndRespThreeShapes) {
  TestNode t;
  EXPECT_EQ(eval(t, "return {ok='FINE'}"), S("FINE"));
  EXPECT_EQ(eval(t, "return {ok='+FINE'}"), S("+FINE"));
  EXPECT_EQ(eval(t, "return {ok='a\\r\\nb'}"), S("a  b"));
  EXPECT_EQ(eval(t, "return {ok='a\\n'}"), S("a "));
  EXPECT_EQ(eval(t, "return {err='My Error'}"), E("My Error"));
  EXPECT_EQ(eval(t, "return {err='-My Error'}"), E("-My Error"));
  EXPECT_EQ(eval(t, "return {err='a\\r\\nb'}"), E("a  b"));
  EXPECT_EQ(eval(t, "return {err='a\\n'}"), E("a"));
  EXPECT_EQ(eval(t, "return {err='x', ok='y'}"), E("x"));
  EXPECT_EQ(eval(t, "return {ok=5}"), A({}));
  EXPECT_EQ(eval(t, "return {err=5}"), A({}));
  EXPECT_EQ(eval(t, "return {1, {err='x'}, {ok='y'}}"), A({I(1), E("x"), S("y")}));
  EXPECT_EQ(eval(t, "return {double=3.5}"), B("3.5"));
  EXPECT_EQ(eval(t, "return {double=0.1}"), B("0.10000000000000001"));
  EXPECT_EQ(eval(t, "return {double=1/0}"), B("inf"));
  EXPECT_EQ(eval(t, "return {double='3.5'}"), A({}));
  EXPECT_EQ(eval(t, "return {map={a=1}}"), A({B("a"), I(1)}));
  EXPECT_EQ(eval(t, "return {set={a=true}}"), A({B("a")}));
  EXPECT_EQ(eval(t, "return {big_number='123'}"), B("123"));
  EXPECT_EQ(eval(t, "return {verbatim_string={format='txt', string='x'}}"), B("x"));
  // A cycle ends at the nesting limit instead of recursing forever.
  Reply cyclic = eval(t, "local t = {}; t[1] = t; return t");
  const Reply* r = &cyclic;
  int depth = 0;
  while (r->type == Reply::Type::kArray) {
    r = &r->elements[0];
    depth++;
  }
  EXPECT_EQ(*r, E("ERR reached lua stack limit"));
  EXPECT_GT(depth, 100);
}

TEST(ScriptReplyTest, RedisToLua) {
  TestNode t;
  t.run({"set", "s", "v"});
  EXPECT_EQ(eval(t, "return type(redis.call('get','nokey'))"), B("boolean"));
  EXPECT_EQ(eval(t, "return redis.call('get','nokey') == false"), I(1));
  EXPECT_EQ(eval(t, "return type(redis.call('lpop','nolist', 2))"), B("boolean"));
  EXPECT_EQ(eval(t, "return type(redis.call('incr','n'))"), B("number"));
  EXPECT_EQ(eval(t, "return redis.call('ping').ok"), B("PONG"));
  EXPECT_EQ(eval(t, "return redis.call('ping')"), S("PONG"));
  EXPECT_EQ(eval(t, "return redis.pcall('hget','s','x').err"), B("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(eval(t, "return redis.pcall('hget','s','x')"), E("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(eval(t, "local r = redis.call('hgetall', 'nokey'); return #r"), I(0));
  t.run({"rpush", "l", "a", "b"});
  EXPECT_EQ(eval(t, "local r = redis.call('lrange', 'l', 0, -1); return {#r, r[1], r[2]}"), A({I(2), B("a"), B("b")}));
}

// What a script returns, typed as Redis 7.0 types it (the caller's protocol then writes it):
// the RESP3 tables in either script protocol, and booleans as the script's protocol says.
TEST(ScriptReplyTest, RespThreeTablesAndBooleansReachTheCaller) {
  TypedTestNode t;
  EXPECT_EQ(eval(t, "return {double=1.5}"), D(1.5));
  EXPECT_EQ(eval(t, "return {double=0.1}").str, "0.10000000000000001");
  EXPECT_EQ(eval(t, "return {double=0/0}").str, "-nan");  // as glibc prints Lua's 0/0
  EXPECT_EQ(eval(t, "return {double=-1/0}"), D(-INFINITY));
  EXPECT_EQ(eval(t, "return {double=-0.0}").str, "-0");
  EXPECT_EQ(eval(t, "return {big_number='123\\r\\n4'}"), Reply::big_number("123  4"));
  EXPECT_EQ(eval(t, "return {big_number=12}"), A({}));
  EXPECT_EQ(eval(t, "return {verbatim_string={format='markdown', string='hi'}}").str, "mar:hi");
  EXPECT_EQ(eval(t, "return {verbatim_string={format='x', string='hi'}}").str, "x  :hi");
  EXPECT_EQ(eval(t, "return {verbatim_string={format='', string='hi'}}").str, "   :hi");
  EXPECT_EQ(eval(t, "return {verbatim_string={format='a\\0b', string='hi'}}").str, "a  :hi");
  EXPECT_EQ(eval(t, "return {verbatim_string={format='txt'}}"), A({}));
  EXPECT_EQ(eval(t, "return {map={a=1}}"), M({B("a"), I(1)}));
  EXPECT_EQ(eval(t, "return {map={a=false}}"), M({B("a"), N()}));
  EXPECT_EQ(eval(t, "return {map={[1.5]=2}}"), M({I(1), I(2)}));
  EXPECT_EQ(eval(t, "return {set={a=true}}"), Set({B("a")}));
  EXPECT_EQ(eval(t, "return {map={a=1}, set={b=true}}"), M({B("a"), I(1)}));  // map is checked first
  // RESP2 scripts: true is 1, false a nil. RESP3 scripts (redis.setresp(3)): booleans.
  EXPECT_EQ(eval(t, "return {true, false}"), A({I(1), N()}));
  EXPECT_EQ(eval(t, "return false"), N());
  EXPECT_EQ(eval(t, "redis.setresp(3) return true"), T(true));
  EXPECT_EQ(eval(t, "redis.setresp(3) return {true, false, nil, 1}"), A({T(true), T(false)}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return {map={a=false}}"), M({B("a"), T(false)}));
  EXPECT_EQ(eval(t, "redis.setresp(3) redis.setresp(2) return true"), I(1));
  // Without typed replies (the simulator) the same scripts give RESP2 shapes.
  TestNode u;
  EXPECT_EQ(eval(u, "redis.setresp(3) return {true, false, {double=2.5}, {map={a=1}}}"),
            A({I(1), I(0), B("2.5"), A({B("a"), I(1)})}));
}

// Replies reaching Lua after redis.setresp(3): nil instead of false, {double=}, {map=},
// {set=}, {verbatim_string=} tables, holes where an array had nulls; each script starts in RESP2.
TEST(ScriptReplyTest, RespThreeRepliesReachLua) {
  TypedTestNode t;
  t.run({"hset", "h", "f", "v"});
  t.run({"sadd", "s", "a"});
  t.run({"zadd", "z", "1.5", "m", "0.1", "n"});
  EXPECT_EQ(eval(t, "redis.setresp(3) return type(redis.call('hget', 'h', 'nofield'))"), B("nil"));
  EXPECT_EQ(eval(t, "return type(redis.call('hget', 'h', 'nofield'))"), B("boolean"));  // RESP2 again
  EXPECT_EQ(eval(t, "redis.setresp(3) local a = type(redis.call('get', 'x')) redis.setresp(2) "
                    "return a .. type(redis.call('get', 'x'))"),
            B("nilboolean"));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('hget', 'h', 'nofield')"), N());
  EXPECT_EQ(eval(t, "redis.setresp(3) local d = redis.call('zscore', 'z', 'n') return {type(d), tostring(d.double)}"),
            A({B("table"), B("0.1")}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('zscore', 'z', 'n')"), D(0.1));
  EXPECT_EQ(eval(t, "return redis.call('zscore', 'z', 'n')"), B("0.10000000000000001"));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('hgetall', 'h').map.f"), B("v"));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('hgetall', 'h')"), M({B("f"), B("v")}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return tostring(redis.call('smembers', 's').set.a)"), B("true"));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('smembers', 's')"), Set({B("a")}));
  EXPECT_EQ(eval(t, "redis.setresp(3) local v = redis.call('info', 'keyspace').verbatim_string "
                    "return {v.format, v.string}"),
            A({B("txt"), B("# Keyspace\r\ndb0:keys=3,expires=0,avg_ttl=0\r\n")}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('info', 'keyspace')").type, Reply::Type::kVerbatim);
  // ZRANGE WITHSCORES: pairs with {double=} scores in RESP3, flat strings in RESP2.
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('zrange', 'z', 0, -1, 'withscores')"),
            A({A({B("n"), D(0.1)}), A({B("m"), D(1.5)})}));
  EXPECT_EQ(eval(t, "return redis.call('zrange', 'z', 0, -1, 'withscores')"),
            A({B("n"), B("0.10000000000000001"), B("m"), B("1.5")}));
  // A null in an array leaves a hole, exactly where Redis's table has one (# sees no border).
  EXPECT_EQ(eval(t, "redis.setresp(3) local r = redis.call('hmget', 'h', 'x', 'f') return {#r, r[2], type(r[1])}"),
            A({I(0), B("v"), B("nil")}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('mget', 'x', 'h')"), A({}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return {redis.call('lpop', 'nolist', 2)}"), A({}));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.call('ping')"), S("PONG"));
  EXPECT_EQ(eval(t, "redis.setresp(3) return redis.pcall('get', 'h')"),
            E("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST(ScriptReplyTest, NumberArgumentsUsePercent17g) {
  TestNode t;
  EXPECT_EQ(eval(t, "return redis.call('set','y',0.1)"), OK());
  EXPECT_EQ(t.run({"get", "y"}), B("0.10000000000000001"));
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"123", "123"}, {"3.0", "3"}, {"-0.0", "-0"}, {"1e300", "1.0000000000000001e+300"},
      {"1/0", "inf"}, {"0/0", "-nan"}, {"2^63", "9.2233720368547758e+18"}};
  for (const auto& [expr, stored] : cases) {
    eval(t, "return redis.call('set', 'num', " + std::string(expr) + ")");
    EXPECT_EQ(t.run({"get", "num"}), B(stored)) << expr;
  }
}

// Where Redis prints an address, the model prints a number the node's Lua state gives in order
// (sim/core/lua_tostring.h): a reply, and so a history, never depends on the process's memory.
TEST(ScriptSandboxTest, TostringPrintsNoAddress) {
  TestNode t;
  EXPECT_EQ(eval(t, "return tostring({}) .. ' ' .. tostring(redis.call)"),
            B("table: 0x000000000001 function: 0x000000000002"));
  EXPECT_EQ(eval(t, "return tostring(redis.call) .. ' ' .. tostring(12)"), B("function: 0x000000000002 12"));
  TestNode other;
  EXPECT_EQ(eval(other, "return tostring({})"), B("table: 0x000000000001"));
}

TEST(ScriptSandboxTest, LibrariesAndRemovedFunctions) {
  TestNode t;
  for (std::string_view name : {"os", "io", "debug", "loadfile", "dofile", "require", "print", "setfenv",
                                "getfenv", "newproxy", "module", "package"}) {
    std::string body = "return type(" + std::string(name) + ")";
    EXPECT_EQ(eval(t, body), script_error(body, "ERR user_script:1: Script attempted to access nonexistent global variable '" +
                                                    std::string(name) + "'")) << name;
  }
  for (std::string_view name : {"loadstring", "load", "unpack", "collectgarbage", "gcinfo", "setmetatable",
                                "pcall", "xpcall", "tonumber", "tostring", "select", "next"}) {
    EXPECT_EQ(eval(t, "return type(" + std::string(name) + ")"), B("function")) << name;
  }
  for (std::string_view name : {"coroutine", "_G", "string", "table", "math", "redis"}) {
    EXPECT_EQ(eval(t, "return type(" + std::string(name) + ")"), B("table")) << name;
  }
  EXPECT_EQ(eval(t, "return _VERSION"), B("Lua 5.1"));
  EXPECT_EQ(eval(t, "return select('#', ...)"), I(0));
  EXPECT_EQ(eval(t, "local n = 0; for k, v in pairs(string) do n = n + 1 end; return n"), I(15));
  EXPECT_EQ(eval(t, "return getmetatable('').__index == string"), I(1));
  EXPECT_EQ(eval(t, "return ('abc'):upper()"), B("ABC"));
  EXPECT_EQ(eval(t, "return loadstring('return 7')()"), I(7));
  EXPECT_EQ(eval(t, "local f, e = loadstring(string.dump(function() end)); return e"),
            B("[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'"));
  EXPECT_EQ(eval(t, "local f, e = loadstring('return +'); return e"), B("[string \"return +\"]:1: unexpected symbol near '+'"));
  EXPECT_EQ(eval(t, "local f = load(function() return nil end); return type(f)"), B("function"));
  EXPECT_EQ(eval(t, "return tostring(1e15)"), B("1e+15"));
  EXPECT_EQ(eval(t, "return tonumber('0x10')"), I(16));
  EXPECT_EQ(eval(t, "return string.format('%d', 3.7)"), B("3"));
}

TEST(ScriptSandboxTest, GlobalsAndLibrariesAreReadOnly) {
  TestNode t;
  auto ro = [&](std::string_view body, std::string_view message) { EXPECT_EQ(eval(t, body), script_error(body, message)) << body; };
  ro("x = 1", "ERR user_script:1: Attempt to modify a readonly table");
  ro("redis.call = nil", "ERR user_script:1: Attempt to modify a readonly table");
  ro("string.x = 1; return string.x", "ERR user_script:1: Attempt to modify a readonly table");
  ro("_G.x = 1", "ERR user_script:1: Attempt to modify a readonly table");
  ro("function f() end", "ERR user_script:1: Attempt to modify a readonly table");
  ro("rawset(_G,'x',1)", "ERR Attempt to modify a readonly table");
  ro("return setmetatable(_G, nil)", "ERR Attempt to modify a readonly table");
  ro("local mt = getmetatable(_G); mt.__newindex = nil; return 1", "ERR user_script:1: Attempt to modify a readonly table");
  ro("return y", "ERR user_script:1: Script attempted to access nonexistent global variable 'y'");
  EXPECT_EQ(eval(t, "return rawget(_G,'zz')"), N());
  EXPECT_EQ(eval(t, "return rawget(_G,'redis') == redis"), I(1));
  EXPECT_EQ(eval(t, "return type(rawget(_G,'redis'))"), B("table"));
  EXPECT_EQ(eval(t, "return type(getmetatable(_G))"), B("table"));
  EXPECT_EQ(eval(t, "local n = 0; for k in pairs(redis) do n = n + 1 end; return n > 20"), I(1));
  // A chunk loaded by the script gets the same protection; its source names the chunk.
  std::string body = "local f = loadstring('x = 5'); f(); return 1";
  EXPECT_EQ(eval(t, body), E("ERR [string \"x = 5\"]:1: Attempt to modify a readonly table script: " + sha1_hex(body) + ", on x = 5:1."));
  // Nothing leaked into later scripts.
  EXPECT_EQ(eval(t, "return type(redis.call)"), B("function"));
}

TEST(ScriptSandboxTest, KeysAndArgvAreFreshEveryRun) {
  TestNode t;
  EXPECT_EQ(t.run({"eval", "return KEYS", "2", "a", "b", "c"}), A({B("a"), B("b")}));
  EXPECT_EQ(t.run({"eval", "return ARGV", "2", "a", "b", "c"}), A({B("c")}));
  EXPECT_EQ(t.run({"eval", "KEYS[1] = 'x'; return KEYS[1]", "1", "a"}), B("x"));
  EXPECT_EQ(t.run({"eval", "return KEYS", "1", "a"}), A({B("a")}));
  EXPECT_EQ(t.run({"eval", "table.insert(KEYS, 'extra'); return #KEYS", "1", "a"}), I(2));
  EXPECT_EQ(t.run({"eval", "return KEYS", "1", "a"}), A({B("a")}));
  EXPECT_EQ(t.run({"eval", "KEYS[5] = 'far'; KEYS.name = 'n'; return 1", "1", "a"}), I(1));
  EXPECT_EQ(t.run({"eval", "return {KEYS[5], KEYS.name, #KEYS}", "1", "a"}), A({}));
  EXPECT_EQ(t.run({"eval", "rawset(ARGV, 3, 'r'); return 1", "0", "a"}), I(1));
  EXPECT_EQ(t.run({"eval", "return {ARGV[1], ARGV[3]}", "0", "b"}), A({B("b")}));
  EXPECT_EQ(t.run({"eval", "setmetatable(KEYS, {__index = function() return 'm' end}); return KEYS[9]", "0"}), B("m"));
  EXPECT_EQ(t.run({"eval", "return KEYS[9]", "0"}), N());
  EXPECT_EQ(t.run({"eval", "return getmetatable(KEYS) == nil", "0"}), I(1));
  // Without its marker the table misses additions that bypass __newindex: it must not be reused.
  EXPECT_EQ(t.run({"eval", "setmetatable(ARGV, nil); ARGV.x = 1; ARGV[1] = 'y'; return 1", "0", "a"}), I(1));
  EXPECT_EQ(t.run({"eval", "return {#ARGV, ARGV.x == nil and 1 or 0, ARGV[1]}", "0", "b"}), A({I(1), I(1), B("b")}));
  EXPECT_EQ(t.run({"eval", "return ARGV", "0", "c"}), A({B("c")}));
  EXPECT_EQ(t.run({"eval", "return #KEYS", "0"}), I(0));
  EXPECT_EQ(t.run({"eval", "return {#KEYS, #ARGV}", "3", "a", "b", "c"}), A({I(3), I(0)}));
  EXPECT_EQ(t.run({"eval", "return {#KEYS, #ARGV}", "1", "a", "b", "c"}), A({I(1), I(2)}));
}

TEST(ScriptErrorTest, RuntimeAndCompileErrors) {
  TestNode t;
  auto check = [&](std::string_view body, std::string_view message, int line = 1) {
    EXPECT_EQ(eval(t, body), script_error(body, message, line)) << body;
  };
  EXPECT_EQ(eval(t, "return 1 +"), E("ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"));
  EXPECT_EQ(t.run({"script", "load", "return +"}),
            E("ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'"));
  check("error('boom')", "ERR user_script:1: boom");
  check("error({err='My Error'})", "My Error");
  check("error({err='My Error'}, 0)", "My Error");
  check("error('boom', 0)", "ERR boom");
  check("error()", "ERR nil");
  check("error(nil)", "ERR nil");
  check("error(12)", "ERR user_script:1: 12");
  check("error({})", "ERR unknown error");  // Redis 7.0.15 crashes here
  check("local t = nil; return t.x", "ERR user_script:1: attempt to index local 't' (a nil value)");
  check("error('a\\nb')", "ERR user_script:1: a b");
  check("\n\nerror('x')", "ERR user_script:3: x", 3);
  check("error(redis.error_reply('bad'))", "ERR bad");
  t.run({"set", "str", "abc"});
  check("return redis.call('incr','str')", "ERR value is not an integer or out of range");
  check("return redis.call('hget','str','x')", "WRONGTYPE Operation against a key holding the wrong kind of value");
  check("local r = redis.pcall('hget','str','x'); error(r)", "WRONGTYPE Operation against a key holding the wrong kind of value");
  check("return redis.call('nosuch')", "ERR Unknown Redis command called from script");
  check("return redis.call()", "ERR Please specify at least one argument for this redis lib call");
  check("return redis.call('get', {})", "ERR Lua redis lib command arguments must be strings or integers");
  check("return redis.call('get', nil)", "ERR Lua redis lib command arguments must be strings or integers");
  check("return redis.call('incr','k1','k2')", "ERR Wrong number of args calling Redis command from script");
  check("return redis.call('subscribe','x')", "ERR This Redis command is not allowed from script");
  // Subcommands resolve as in Redis's command lookup (checked against redis-server 7.0.15).
  check("return redis.call('OBJECT','ENCODING')", "ERR Wrong number of args calling Redis command from script");
  check("return redis.call('OBJECT','FOO','x')", "ERR Unknown Redis command called from script");
  check("return redis.call('PUBSUB','NUMPAT','x')", "ERR Wrong number of args calling Redis command from script");
  check("return redis.call('COMMAND','GETKEYS')", "ERR Wrong number of args calling Redis command from script");
  check("return redis.call('pexpire','str', 1.5)", "ERR value is not an integer or out of range");
}

TEST(ScriptErrorTest, PcallAndErrorReplies) {
  TestNode t;
  t.run({"set", "str", "abc"});
  EXPECT_EQ(eval(t, "return redis.pcall('incr','k1','k2')"), E("ERR Wrong number of args calling Redis command from script"));
  EXPECT_EQ(eval(t, "return redis.pcall('nosuch')"), E("ERR Unknown Redis command called from script"));
  EXPECT_EQ(eval(t, "return redis.pcall()"), E("ERR Please specify at least one argument for this redis lib call"));
  EXPECT_EQ(eval(t, "local r = redis.pcall('incr','str'); return r.err"), B("ERR value is not an integer or out of range"));
  // Redis 7.0's pcall turns a caught error table into its err string.
  EXPECT_EQ(eval(t, "local ok, e = pcall(redis.call, 'hget','str','x'); return {ok, e}"),
            A({N(), B("WRONGTYPE Operation against a key holding the wrong kind of value")}));
  EXPECT_EQ(eval(t, "local ok, e = pcall(function() error('x') end); return e"), B("user_script:1: x"));
  EXPECT_EQ(eval(t, "return {pcall(error, {err=5})}"), A({N(), I(5)}));
  EXPECT_EQ(eval(t, "return pcall()"), N());
  EXPECT_EQ(eval(t, "return {xpcall(function() return redis.call('nosuch') end, function(e) return type(e) end)}"),
            A({N(), B("table")}));
  EXPECT_EQ(eval(t, "return redis.error_reply('My Error')"), E("My Error"));
  EXPECT_EQ(eval(t, "return redis.error_reply('-My Error')"), E("My Error"));
  EXPECT_EQ(eval(t, "return redis.error_reply('ERR x')"), E("ERR x"));
  EXPECT_EQ(eval(t, "return redis.error_reply('')"), E("ERR "));
  EXPECT_EQ(eval(t, "return redis.error_reply('-')"), E("ERR "));
  EXPECT_EQ(eval(t, "return redis.error_reply('a\\nb')"), E("ERR a b"));
  EXPECT_EQ(eval(t, "return redis.error_reply('-X a\\r\\n')"), E("X a"));
  EXPECT_EQ(eval(t, "return {1, redis.error_reply('bad')}"), A({I(1), E("ERR bad")}));
  EXPECT_EQ(eval(t, "return redis.status_reply('FINE')"), S("FINE"));
  for (std::string_view bad : {"redis.status_reply()", "redis.status_reply(1)", "redis.error_reply(1)",
                               "redis.error_reply()", "redis.status_reply('a','b')"}) {
    EXPECT_EQ(eval(t, "return " + std::string(bad)), E("ERR wrong number or type of arguments")) << bad;
  }
}

TEST(ScriptErrorTest, NoRollbackAfterAnError) {
  TestNode t;
  std::string body = "redis.call('set', 'a', '1'); redis.call('incr', 'a'); error('late')";
  EXPECT_EQ(eval(t, body), script_error(body, "ERR user_script:1: late"));
  EXPECT_EQ(t.run({"get", "a"}), B("2"));
  ASSERT_EQ(t.effects.size(), 2u);  // the writes that happened are propagated
  EXPECT_EQ(t.effects[0].group, t.effects[1].group);
}

TEST(ScriptBudgetTest, EndlessScriptsAreStoppedAndTheNodeGoesOn) {
  TestNode t(/*start_ms=*/1'000'000, /*budget=*/200'000);
  std::string body = "local x = 0\nwhile true do x = x + 1 end";
  Reply r = eval(t, body);
  ASSERT_TRUE(r.is_error());
  EXPECT_EQ(r.str.rfind("ERR Script exceeded the lockstep instruction budget (200000 Lua instructions) and was stopped script: ", 0), 0u) << r.str;
  EXPECT_NE(r.str.find(", on @user_script:2."), std::string::npos) << r.str;
  // pcall cannot swallow the stop.
  Reply r2 = eval(t, "while true do pcall(function() while true do end end) end");
  EXPECT_NE(r2.str.find("instruction budget"), std::string::npos) << r2.str;
  Reply r3 = eval(t, "local co = coroutine.wrap(function() while true do end end); co()");
  EXPECT_NE(r3.str.find("instruction budget"), std::string::npos) << r3.str;
  EXPECT_EQ(eval(t, "return 1"), I(1));
  EXPECT_EQ(eval(t, "local s = 0; for i = 1, 1000 do s = s + i end; return s"), I(500500));
}

// Issue 10: coroutine.resume returns the budget error as a value; a tree of coroutines, each
// below the hook's period, must still be stopped, and the stop must reach the caller.
TEST(ScriptBudgetTest, CoroutinesCannotSwallowOrOutrunTheBudget) {
  TestNode t(/*start_ms=*/1'000'000, /*budget=*/200'000);
  const char* attacks[] = {
      // The budget error caught by resume, forever.
      "while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
      // Many short coroutines, each far below the hook period.
      "while true do coroutine.resume(coroutine.create(function() for i = 1, 500 do end end)) end",
      // A tree: every coroutine resumes two children before it ends.
      "local function f(d) if d > 0 then for i = 1, 2 do coroutine.resume(coroutine.create(f), d - 1) end end end\n"
      "while true do f(8) end",
      // resume inside pcall inside a coroutine.
      "while true do pcall(coroutine.resume, coroutine.create(function() while true do end end)) end",
      // The main thread spends its instructions inside pcall, while coroutines are stopped.
      "while true do pcall(function() for i = 1, 100 do\n"
      "  coroutine.resume(coroutine.create(function() while true do end end)) end end) end",
  };
  for (const char* body : attacks) {
    Reply r = eval(t, body);
    ASSERT_TRUE(r.is_error()) << body;
    EXPECT_NE(r.str.find("instruction budget"), std::string::npos) << body << ": " << r.str;
  }
  EXPECT_EQ(eval(t, "return 1"), I(1));
}

// Issue 10: EVAL and SCRIPT LOAD refuse precompiled chunks as Redis does (its parser meets the
// escape byte); loadstring inside a script too.
TEST(ScriptSandboxTest, BinaryChunksAreRefused) {
  TestNode t;
  Reply dump = eval(t, "return string.dump(function() return 42 end)");
  ASSERT_EQ(dump.type, Reply::Type::kBulk);
  ASSERT_EQ(dump.str[0], '\x1b');
  const Reply refused = E("ERR Error compiling script (new function): user_script:1: unexpected symbol near 'char(27)'");
  EXPECT_EQ(t.run({"eval", dump.str, "0"}), refused);
  EXPECT_EQ(t.run({"script", "load", dump.str}), refused);
  EXPECT_EQ(eval(t, "return loadstring(string.dump(function() return 1 end))"), N());
}

// Compiled scripts are shared by the process (a cache of binary chunks); a node's Lua state must
// not show whether a script was compiled there first or found compiled: each node loads the
// same binary chunk either way. Lua's own memory count, which a script can read, is the witness.
TEST(ScriptCompileTest, ANodeCannotTellWhetherTheProcessCompiledAScriptBefore) {
  // Texts no other test compiles: the first node parses them, the second finds them parsed.
  const std::string body = "-- ScriptCompileTest\nlocal t = {}\nfor i = 1, 3 do t[i] = 'v' .. i end\nreturn t";
  const std::string count = "-- ScriptCompileTest\nreturn tostring(collectgarbage('count'))";
  const std::string failing = "-- ScriptCompileTest\nlocal x = 1\nreturn x.y.z";
  std::vector<Reply> seen[2];
  for (std::vector<Reply>& replies : seen) {
    TestNode t;
    replies.push_back(eval(t, body));
    replies.push_back(eval(t, count));
    replies.push_back(eval(t, failing));
    replies.push_back(eval(t, count));
  }
  EXPECT_EQ(seen[0][0], A({B("v1"), B("v2"), B("v3")}));
  // The line and the local's name come from the chunk's debug information.
  EXPECT_EQ(seen[0][2], script_error(failing, "ERR user_script:3: attempt to index local 'x' (a number value)", 3));
  for (size_t i = 0; i < seen[0].size(); ++i) EXPECT_EQ(seen[0][i], seen[1][i]) << i;
  // A compile error is the parser's message, found compiled or not.
  const Reply bad = E("ERR Error compiling script (new function): user_script:2: '=' expected near 'syntax'");
  for (int i = 0; i < 2; ++i) {
    TestNode t;
    EXPECT_EQ(eval(t, "-- ScriptCompileTest\nbad syntax"), bad);
  }
}

// Issue 10: the string metatable is shared by every script; no script may change it.
TEST(ScriptSandboxTest, TheStringMetatableIsReadOnly) {
  TestNode t;
  const std::string rawset_body = "rawset(getmetatable(''), '__index', {sub = function() return 'pwn' end}) return 1";
  EXPECT_EQ(eval(t, rawset_body), script_error(rawset_body, "ERR Attempt to modify a readonly table"));
  const std::string assign_body = "getmetatable('').__index = {} return 1";
  EXPECT_EQ(eval(t, assign_body), script_error(assign_body, "ERR user_script:1: Attempt to modify a readonly table"));
  const std::string setmt_body = "setmetatable(getmetatable(''), nil) return 1";
  EXPECT_EQ(eval(t, setmt_body), script_error(setmt_body, "ERR Attempt to modify a readonly table"));
  const std::string nested_body = "getmetatable('').__index.sub = nil return 1";
  EXPECT_EQ(eval(t, nested_body), script_error(nested_body, "ERR user_script:1: Attempt to modify a readonly table"));
  // What another script sees is unchanged.
  EXPECT_EQ(t.run({"eval", "return ARGV[1]:sub(1, 3)", "0", "abcdef"}), B("abc"));
  EXPECT_EQ(eval(t, "return getmetatable('').__index == string"), I(1));
}

TEST(ScriptBudgetTest, MemoryIsCapped) {
  NodeConfig config;
  config.clock_us = [] { return int64_t{1'000'000'000}; };
  config.lua_memory_limit_bytes = 8 << 20;
  Node node(config);
  ConnectionId c = node.connect();
  std::vector<std::string_view> hog = {"eval", "local t = {} for i = 1, 1e7 do t[i] = string.rep('x', 100) .. i end", "0"};
  Reply r = node.execute_one(c, hog);
  ASSERT_TRUE(r.is_error());
  EXPECT_NE(r.str.find("not enough memory"), std::string::npos) << r.str;
  std::vector<std::string_view> ok = {"eval", "return #string.rep('x', 1000)", "0"};
  EXPECT_EQ(node.execute_one(c, ok), I(1000));
}

TEST(ScriptRandomTest, MathRandomFollowsRedisSequence) {
  TestNode t;
  // The generator starts where a fresh redis-server 7.0.15 starts and is not reseeded per script.
  EXPECT_EQ(eval(t, "return {math.random(1000), math.random(1000), math.random(1000)}"), A({I(397), I(841), I(354)}));
  EXPECT_EQ(eval(t, "return {math.random(1000), math.random(1000), math.random(1000)}"), A({I(447), I(319), I(887)}));
  EXPECT_EQ(eval(t, "math.randomseed(42); return {math.random(1000), math.random(1000)}"), A({I(745), I(343)}));
  auto check = [&](std::string_view body, std::string_view message) { EXPECT_EQ(eval(t, body), script_error(body, message)); };
  check("return math.random(0)", "ERR user_script:1: bad argument #1 to 'random' (interval is empty)");
  check("return math.random(5,1)", "ERR user_script:1: bad argument #2 to 'random' (interval is empty)");
  check("return math.random(1,2,3)", "ERR user_script:1: wrong number of arguments");
  check("return math.random('x')", "ERR user_script:1: bad argument #1 to 'random' (number expected, got string)");
  check("return math.random(3000000000)", "ERR user_script:1: bad argument #1 to 'random' (interval is empty)");
  check("math.randomseed(); return 1", "ERR user_script:1: bad argument #1 to 'randomseed' (number expected, got no value)");
  // A restart starts the sequence again; SCRIPT FLUSH does not.
  t.node->reset();
  ConnectionId c = t.node->connect();
  EXPECT_EQ(t.run_on(c, {"eval", "return math.random(1000)", "0"}), I(397));
  t.run_on(c, {"script", "flush"});
  EXPECT_EQ(t.run_on(c, {"eval", "return math.random(1000)", "0"}), I(841));
}

TEST(ScriptApiTest, RedisTableFunctions) {
  TestNode t;
  EXPECT_EQ(eval(t, "return redis.sha1hex('')"), B("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
  EXPECT_EQ(eval(t, "return redis.sha1hex(1)"), B("356a192b7913b04c54574d18c28d46e6395428ab"));
  EXPECT_EQ(eval(t, "return redis.sha1hex(nil)"), B("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
  EXPECT_EQ(eval(t, "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"), A({I(0), I(1), I(2), I(3)}));
  EXPECT_EQ(eval(t, "return redis.log(redis.LOG_WARNING, 'hi')"), N());
  EXPECT_EQ(eval(t, "return redis.REDIS_VERSION"), B("7.0.15"));
  EXPECT_EQ(eval(t, "return redis.REDIS_VERSION_NUM"), I(458767));
  EXPECT_EQ(eval(t, "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}"),
            A({I(0), I(1), I(2), I(2), I(3)}));
  EXPECT_EQ(eval(t, "return redis.replicate_commands()"), I(1));
  EXPECT_EQ(eval(t, "return redis.breakpoint()"), N());
  EXPECT_EQ(eval(t, "return redis.debug('x')"), N());
  EXPECT_EQ(eval(t, "return redis.acl_check_cmd('get','x')"), I(1));
  EXPECT_EQ(eval(t, "redis.setresp(2); return 1"), I(1));
  auto check = [&](std::string_view body, std::string_view message) { EXPECT_EQ(eval(t, body), script_error(body, message)); };
  check("return redis.sha1hex()", "ERR wrong number of arguments");
  check("return redis.log()", "ERR redis.log() requires two arguments or more.");
  check("return redis.log(99, 'x')", "ERR Invalid debug level.");
  check("return redis.log('x','y')", "ERR First argument must be a number (log level).");
  check("return redis.setresp()", "ERR redis.setresp() requires one argument.");
  check("return redis.setresp(4)", "ERR RESP version must be 2 or 3.");
  EXPECT_EQ(eval(t, "redis.setresp(3); return 1"), I(1));
  EXPECT_EQ(eval(t, "redis.setresp('3'); return 1"), I(1));  // a number string, as Lua converts it
  check("return redis.set_repl()", "ERR redis.set_repl() requires two arguments.");
  check("return redis.set_repl(99)", "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  check("return redis.acl_check_cmd('nosuch')", "ERR Invalid command passed to redis.acl_check_cmd()");
  check("return redis.acl_check_cmd()", "ERR Please specify at least one argument for this redis lib call");
}

// redis.call remembers commands by the address of their name: names built at run time, collected
// and rebuilt (so that an address is reused for another name), in any case, still run the
// command they name, and an unknown name is refused after a known one of the same length.
TEST(ScriptApiTest, CommandNamesBuiltAtRunTimeRunTheCommandTheyName) {
  TestNode t;
  const std::string body =
      "local names = {'in', 'IN', 'de', 'De'}\n"
      "local out = {}\n"
      "for i = 1, 400 do\n"
      "  local name = names[i % 4 + 1] .. 'cr'\n"
      "  out[#out + 1] = redis.call(name, 'k')\n"
      "  if i % 7 == 0 then collectgarbage() end\n"
      "end\n"
      "return {out[1], out[2], out[3], out[4], out[400], redis.call('GET', 'k')}";
  // i % 4 + 1: 2 (INcr), 3 (decr), 4 (Decr), 1 (incr), ... : +1 -1 -1 +1 over each four.
  EXPECT_EQ(eval(t, body), A({I(1), I(0), I(-1), I(0), I(0), B("0")}));
  const Reply unknown = eval(t, "redis.call('incr', 'k'); return redis.pcall('incx', 'k')['err']");
  EXPECT_NE(unknown.str.find("Unknown Redis command called from script"), std::string::npos) << unknown.str;
  EXPECT_EQ(eval(t, "return redis.call('get', 'k')"), B("1"));
}

}  // namespace
}  // namespace lockstep::redis::testing

namespace lockstep::redis::testing {
namespace {

// Coverage (NodeConfig::line_counts): a script counts each line it executes while the caller
// points `current` somewhere, and nothing otherwise; the replies are the same either way.
TEST(ScriptCoverageTest, CountsTheLinesAScriptExecutesOnlyWhenAsked) {
  LineCounts counts;
  NodeConfig config;
  config.clock_us = [] { return int64_t{1'000'000'000}; };
  config.line_counts = &counts;
  Node node(std::move(config));
  const uint64_t conn = node.connect();
  const std::string body =
      "local n = tonumber(ARGV[1])\n"
      "if n > 0 then\n"
      "  return 'positive'\n"
      "end\n"
      "for i = 1, 3 do n = n - 1 end\n"
      "return 'not positive'\n";
  auto run = [&](std::string_view arg) {
    std::vector<std::string_view> argv = {"EVAL", body, "0", arg};
    std::vector<Reply> out;
    node.execute(conn, argv, out);
    return out.at(0);
  };
  std::vector<uint64_t> hits;
  counts.current = &hits;
  EXPECT_EQ(run("1"), B("positive"));
  EXPECT_EQ(run("2"), B("positive"));
  EXPECT_EQ(run("-1"), B("not positive"));
  counts.current = nullptr;
  EXPECT_EQ(run("-5"), B("not positive"));  // not counted
  ASSERT_GE(hits.size(), 7u);
  EXPECT_EQ(hits[1], 3u);
  EXPECT_EQ(hits[2], 3u);
  EXPECT_EQ(hits[3], 2u);
  EXPECT_EQ(hits[4], 0u);
  EXPECT_GE(hits[5], 1u);  // the loop's line, once per iteration step
  EXPECT_EQ(hits[6], 1u);
  // The lines that hold code, as Lua reports them: the `end` of an if with a return is none.
  const std::vector<int> code = LuaHost::code_lines(body);
  EXPECT_EQ(code, (std::vector<int>{1, 2, 3, 5, 6}));
  EXPECT_TRUE(LuaHost::code_lines("return (").empty());  // does not compile: nothing to cover
}

}  // namespace
}  // namespace lockstep::redis::testing
