#include "sim/core/lua_tostring.h"

#include <gtest/gtest.h>

#include <string>

namespace lockstep {
namespace {

// A Lua state with the base library and the deterministic tostring, closed at the end.
class State {
 public:
  explicit State(std::string_view name) : L_(luaL_newstate()) {
    luaopen_base(L_);
    lua_settop(L_, 0);
    install_deterministic_tostring(L_, name);
  }
  ~State() { lua_close(L_); }
  // Runs `code` and returns its one result as a string (the error text if it fails).
  std::string run(const std::string& code) {
    if (luaL_loadstring(L_, code.c_str()) != 0 || lua_pcall(L_, 0, 1, 0) != 0) {
      std::string e = lua_tostring(L_, -1);
      lua_settop(L_, 0);
      return "error: " + e;
    }
    std::string out = lua_isstring(L_, -1) ? lua_tostring(L_, -1) : "?";
    lua_settop(L_, 0);
    return out;
  }

 private:
  lua_State* L_;
};

TEST(LuaTostring, ObjectsAreNumberedInTheOrderFirstPrinted) {
  State s("");
  EXPECT_EQ(s.run("t = {}; f = function() end; return tostring(t) .. ' ' .. tostring(f) .. ' ' .. tostring(t)"),
            "table: 0x000000000001 function: 0x000000000002 table: 0x000000000001");
  EXPECT_EQ(s.run("return tostring(coroutine.create(f))"), "thread: 0x000000000003");
  EXPECT_EQ(s.run("return tostring(tostring)"), "function: 0x000000000004");
  EXPECT_EQ(s.run("return tostring(t)"), "table: 0x000000000001");  // kept across chunks
}

TEST(LuaTostring, OtherValuesPrintAsLuaPrintsThem) {
  State s("");
  EXPECT_EQ(s.run("return tostring(12) .. ' ' .. tostring(1.5) .. ' ' .. tostring(nil) .. ' ' .. tostring(true) .. ' ' .. tostring('x')"),
            "12 1.5 nil true x");
  EXPECT_EQ(s.run("return tostring(setmetatable({}, {__tostring = function() return 'mine' end}))"), "mine");
  EXPECT_EQ(s.run("return select('#', pcall(tostring))"), "2");  // no argument: an error, as Lua's
}

TEST(LuaTostring, AStateNamePrefixesItsNumbers) {
  State a("c1"), b("c2");
  const std::string ta = a.run("return tostring({})"), tb = b.run("return tostring({})");
  EXPECT_NE(ta, tb);
  EXPECT_EQ(ta.substr(0, 9), "table: 0x");
  EXPECT_EQ(ta.size(), std::string("table: 0x000000000001").size());
  EXPECT_EQ(ta.substr(ta.size() - 8), "00000001");
  State again("c1");
  EXPECT_EQ(again.run("return tostring({})"), ta);  // the same name, the same text: no address in it
}

TEST(LuaTostring, NumberingKeepsNoValueAlive) {
  State s("");
  // Printed tables that are gone keep their numbers used: the next one is the 1001st.
  EXPECT_EQ(s.run("for i = 1, 1000 do tostring({}) end; collectgarbage(); return tostring({})"),
            "table: 0x0000000003e9");
  EXPECT_EQ(s.run("local before = collectgarbage('count'); for i = 1, 100000 do tostring({}) end;"
                  "collectgarbage(); collectgarbage(); return collectgarbage('count') < before + 1024 and 'bounded' or 'grew'"),
            "bounded");
}

}  // namespace
}  // namespace lockstep
