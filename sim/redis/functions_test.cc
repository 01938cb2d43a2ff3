// FUNCTION and FCALL; every expected reply was checked against redis-server 7.0.15.
#include <gtest/gtest.h>

#include <string>

#include "sim/redis/test_node.h"

namespace lockstep::redis::testing {
namespace {

const std::string kLib =
    "#!lua name=mylib\n"
    "redis.register_function('f1', function(keys, args) return {keys[1], args[1], #keys, #args} end)\n"
    "redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys[1]) "
    "end, flags={'no-writes'}, description='reads'}\n"
    "redis.register_function('boom', function(keys, args) return redis.call('nosuch') end)\n"
    "redis.register_function('err', function(keys, args) error('bad') end)\n"
    "redis.register_function('w', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n"
    "redis.register_function('g', function(keys, args) return KEYS end)\n"
    "redis.register_function('s', function(keys, args) return string.upper(args[1]) end)\n"
    "redis.register_function('rf', function(keys, args) return redis.register_function('x', function() end) end)\n";

Reply load(TestNode& t, const std::string& code) { return t.run({"function", "load", code}); }

TEST(FunctionsTest, FcallRunsRegisteredFunctions) {
  TestNode t;
  EXPECT_EQ(load(t, kLib), B("mylib"));
  EXPECT_EQ(t.run({"fcall", "f1", "1", "k", "a"}), A({B("k"), B("a"), I(1), I(1)}));
  EXPECT_EQ(t.run({"fcall", "f1", "0", "a"}), A({}));  // keys[1] is nil: the array stops there
  EXPECT_EQ(t.run({"fcall", "nosuch", "0"}), E("ERR Function not found"));
  EXPECT_EQ(t.run({"fcall", "f1", "2", "k"}), E("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(t.run({"fcall", "f1", "-1"}), E("ERR Number of keys can't be negative"));
  EXPECT_EQ(t.run({"fcall", "f1", "abc"}), E("ERR Bad number of keys provided"));
  EXPECT_EQ(t.run({"fcall_ro", "w", "1", "k", "v"}), E("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(t.run({"fcall_ro", "ro", "1", "k"}), N());
  EXPECT_EQ(t.run({"fcall", "w", "1", "k", "v"}), OK());
  EXPECT_EQ(t.run({"fcall", "ro", "1", "k"}), B("v"));
  EXPECT_EQ(t.run({"fcall", "boom", "0"}),
            E("ERR Unknown Redis command called from script script: boom, on @user_function:4."));
  EXPECT_EQ(t.run({"fcall", "err", "0"}), E("ERR user_function:5: bad script: err, on @user_function:5."));
  EXPECT_EQ(t.run({"fcall", "g", "0"}),
            E("ERR user_function:7: Script attempted to access nonexistent global variable 'KEYS' script: g, on "
              "@user_function:7."));
  EXPECT_EQ(t.run({"fcall", "s", "0", "abc"}), B("ABC"));
  EXPECT_EQ(t.run({"fcall", "rf", "0"}),
            E("ERR user_function:9: attempt to call field 'register_function' (a nil value) script: rf, on "
              "@user_function:9."));
  EXPECT_EQ(t.run({"fcall"}), E("ERR wrong number of arguments for 'fcall' command"));
}

TEST(FunctionsTest, LoadErrors) {
  TestNode t;
  EXPECT_EQ(load(t, "return 1"), E("ERR Missing library metadata"));
  EXPECT_EQ(load(t, "#!lua"), E("ERR Invalid library metadata"));
  EXPECT_EQ(load(t, "#!lua name=a-b\nredis.register_function('f', function() return 1 end)"),
            E("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one "
              "character long"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nreturn 1"), E("ERR No functions registered"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function('f-1', function() return 1 end)"),
            E("ERR Error registering functions: ERR Library names can only contain letters, numbers, or "
              "underscores(_) and must be at least one character long"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)\n"
                    "redis.register_function('f1', function() return 1 end)"),
            E("ERR Error registering functions: ERR Function already exists in the library"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nlocal x = string.len('a')"),
            E("ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global "
              "variable 'string'"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.call('set','a','b')"),
            E("ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global "
              "variable 'call'"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function('f1')"),
            E("ERR Error registering functions: ERR calling redis.register_function with a single argument is only "
              "applicable to Lua table (representing named arguments)."));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() return 1 "
                    "end, flags={'bad'}}"),
            E("ERR Error registering functions: ERR unknown flag given"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() return 1 "
                    "end, foo=1}"),
            E("ERR Error registering functions: ERR unknown argument given to redis.register_function"));
  EXPECT_EQ(load(t, "#!lua name=lib1 foo=bar\nredis.register_function('f1', function() return 1 end)"),
            E("ERR Invalid metadata value given: foo=bar"));
  EXPECT_EQ(load(t, "#!lua name=lib1 name=lib2\nredis.register_function('f1', function() return 1 end)"),
            E("ERR Invalid metadata value, name argument was given multiple times"));
  EXPECT_EQ(load(t, "#!lua name=lib1\nredis.register_function('f1', function() return 1 end"),
            E("ERR Error compiling function: user_function:2: ')' expected near '<eof>'"));
  EXPECT_EQ(load(t, "#!lua\nredis.register_function('f1', function() return 1 end)"),
            E("ERR Library name was not given"));
  EXPECT_EQ(load(t, "#!foo name=x\nredis.register_function('f1', function() return 1 end)"),
            E("ERR Engine 'foo' not found"));
  EXPECT_EQ(load(t, "#!lua name=x1\nlocal a = nil + 1"),
            E("ERR Error registering functions: ERR user_function:2: attempt to perform arithmetic on a nil value"));
  EXPECT_EQ(load(t, "#!lua name=x2\nredis.register_function('f', 5)"),
            E("ERR Error registering functions: ERR second argument to redis.register_function must be a function"));
  EXPECT_EQ(load(t, "#!lua name=x4\nredis.register_function()"),
            E("ERR Error registering functions: ERR wrong number of arguments to redis.register_function"));
  EXPECT_EQ(load(t, "#!lua name=x5\nredis.register_function{callback=function() end}"),
            E("ERR Error registering functions: ERR redis.register_function must get a function name argument"));
  EXPECT_EQ(load(t, "#!lua name=x6\nredis.register_function{function_name='a'}"),
            E("ERR Error registering functions: ERR redis.register_function must get a callback argument"));
  EXPECT_EQ(load(t, "#!lua name=x8\nredis.setresp(3)"),
            E("ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global "
              "variable 'setresp'"));
  EXPECT_EQ(load(t, "#!lua name=x10\nwhile true do end"), E("ERR Error registering functions: ERR FUNCTION LOAD timeout"));
  EXPECT_EQ(t.run({"function", "load", "foo", "bar"}), E("ERR Unknown option given: foo"));
  EXPECT_EQ(t.run({"function", "load", "REPLACE"}), E("ERR Missing library metadata"));
  // Nothing stayed registered.
  EXPECT_EQ(t.run({"function", "list"}), A({}));
  // A number is a name (lua_isstring), and the load environment has the log and the version.
  EXPECT_EQ(load(t, "#!lua name=x3\nredis.register_function(5, function() end)"), B("x3"));
  EXPECT_EQ(load(t, "#!lua name=x7\nredis.log(redis.LOG_WARNING, 'hi')\nredis.register_function{function_name='a', "
                    "callback=function() return redis.REDIS_VERSION end, flags={'allow-oom','no-cluster','allow-"
                    "stale','allow-cross-slot-keys','no-writes'}}"),
            B("x7"));
  EXPECT_EQ(t.run({"fcall", "a", "0"}), B("7.0.15"));
}

TEST(FunctionsTest, ReplaceDeleteFlushListStats) {
  TestNode t;
  EXPECT_EQ(load(t, "#!lua name=x7\nredis.register_function{function_name='a', callback=function() return 1 end, "
                    "flags={'no-cluster','no-writes'}, description='d'}"),
            B("x7"));
  EXPECT_EQ(load(t, "#!lua name=x7\nredis.register_function('a2', function() return 2 end)"),
            E("ERR Library 'x7' already exists"));
  EXPECT_EQ(load(t, "#!lua name=other\nredis.register_function('a', function() return 1 end)"),
            E("ERR Function a already exists"));
  EXPECT_EQ(t.run({"function", "list", "libraryname", "X*"}),
            A({A({B("library_name"), B("x7"), B("engine"), B("LUA"), B("functions"),
                  A({A({B("name"), B("a"), B("description"), B("d"), B("flags"), A({S("no-writes"), S("no-cluster")})})})})}));
  EXPECT_EQ(t.run({"function", "load", "replace", "#!lua name=x7\nredis.register_function('a2', function() return 2 end)"}),
            B("x7"));
  EXPECT_EQ(t.run({"fcall", "a", "0"}), E("ERR Function not found"));
  EXPECT_EQ(t.run({"fcall", "a2", "0"}), I(2));
  Reply listed = t.run({"function", "list", "withcode"});
  ASSERT_EQ(listed.elements.size(), 1u);
  EXPECT_EQ(listed.elements[0].elements.back(),
            B("#!lua name=x7\nredis.register_function('a2', function() return 2 end)"));
  EXPECT_EQ(t.run({"function", "list", "withcode", "withcode"}), E("ERR Unknown argument withcode"));
  EXPECT_EQ(t.run({"function", "list", "libraryname"}), E("ERR library name argument was not given"));
  EXPECT_EQ(t.run({"function", "stats"}),
            A({B("running_script"), N(), B("engines"),
               A({B("LUA"), A({B("libraries_count"), I(1), B("functions_count"), I(1)})})}));
  EXPECT_EQ(t.run({"function", "delete", "nosuch"}), E("ERR Library not found"));
  EXPECT_EQ(t.run({"function", "kill"}), E("NOTBUSY No scripts in execution right now."));
  EXPECT_EQ(t.run({"function", "flush", "foo"}), E("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
  EXPECT_EQ(t.run({"function", "dump"}), E("ERR lockstep model: FUNCTION DUMP is not supported"));
  EXPECT_EQ(t.run({"function", "foo"}), E("ERR unknown subcommand 'foo'. Try FUNCTION HELP."));
  EXPECT_EQ(t.run({"function", "delete"}), E("ERR wrong number of arguments for 'function|delete' command"));
  EXPECT_EQ(t.run({"function", "delete", "x7"}), OK());
  EXPECT_EQ(t.run({"fcall", "a2", "0"}), E("ERR Function not found"));
  load(t, "#!lua name=y\nredis.register_function('b', function() return 1 end)");
  EXPECT_EQ(t.run({"function", "flush", "sync"}), OK());
  EXPECT_EQ(t.run({"function", "list"}), A({}));
  // SCRIPT FLUSH leaves functions alone.
  load(t, "#!lua name=y\nredis.register_function('b', function() return 1 end)");
  t.run({"script", "flush"});
  EXPECT_EQ(t.run({"fcall", "b", "0"}), I(1));
}

TEST(FunctionsTest, TypedListIsMapsAndSets) {
  TypedTestNode t;
  load(t, "#!lua name=q\nredis.register_function('f', function() return 1 end)");
  EXPECT_EQ(t.run({"function", "list"}),
            A({M({B("library_name"), B("q"), B("engine"), B("LUA"), B("functions"),
                  A({M({B("name"), B("f"), B("description"), N(), B("flags"), Set({})})})})}));
}

TEST(FunctionsTest, FunctionsCannotChangeTheSandboxOrEachOther) {
  TestNode t;
  EXPECT_EQ(load(t, "#!lua name=a\nredis.register_function('set_global', function() x = 1 return 1 end)\n"
                    "redis.register_function('meta', function() return rawset(getmetatable(''), '__index', {}) end)"),
            B("a"));
  EXPECT_EQ(t.run({"fcall", "set_global", "0"}).type, Reply::Type::kError);
  EXPECT_EQ(t.run({"fcall", "meta", "0"}).type, Reply::Type::kError);
  EXPECT_EQ(load(t, "#!lua name=b\nredis.register_function('up', function(k, a) return a[1]:upper() end)"), B("b"));
  EXPECT_EQ(t.run({"fcall", "up", "0", "abc"}), B("ABC"));
}

TEST(FunctionsTest, ReplicasRefuseWritingFunctionsAndLoads) {
  TestNode t;
  load(t, "#!lua name=a\nredis.register_function('w', function(k) return redis.call('set', k[1], 'v') end)\n"
          "redis.register_function{function_name='r', callback=function(k) return redis.call('get', k[1]) end, "
          "flags={'no-writes'}}");
  t.node->set_replica(true);
  EXPECT_EQ(t.run({"fcall", "w", "1", "k"}), E("READONLY You can't write against a read only replica."));
  EXPECT_EQ(t.run({"fcall", "r", "1", "k"}), N());
  EXPECT_EQ(load(t, "#!lua name=b\nredis.register_function('x', function() return 1 end)"),
            E("READONLY You can't write against a read only replica."));
}

TEST(FunctionsTest, LoadsAndWritesPropagate) {
  TestNode t;
  const std::string code = "#!lua name=a\nredis.register_function('w', function(k) return redis.call('set', k[1], 'v') end)";
  load(t, code);
  t.run({"fcall", "w", "1", "k"});
  ASSERT_GE(t.effects.size(), 2u);
  EXPECT_EQ(t.effects[0].argv, (std::vector<std::string>{"function", "load", code}));
  EXPECT_EQ(t.effects.back().argv, (std::vector<std::string>{"set", "k", "v"}));
}

}  // namespace
}  // namespace lockstep::redis::testing
