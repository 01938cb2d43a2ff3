#include "sim/core/lua_tostring.h"

#include <cstdint>
#include <cstdio>

#include "sim/core/assert.h"

namespace lockstep {
namespace {

constexpr const char* kOriginal = "lockstep.tostring.original";
constexpr const char* kIds = "lockstep.tostring.ids";    // value -> its number (weak keys)
constexpr const char* kNext = "lockstep.tostring.next";  // the last number given
constexpr const char* kSpace = "lockstep.tostring.space";  // the state's four hex digits

bool has_address(int type) {
  return type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TUSERDATA || type == LUA_TTHREAD ||
         type == LUA_TLIGHTUSERDATA;
}

}  // namespace

int deterministic_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  const int type = lua_type(L, 1);
  if (!has_address(type) || luaL_getmetafield(L, 1, "__tostring")) {
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, kOriginal);
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kIds);  // 2
  lua_pushvalue(L, 1);
  lua_rawget(L, 2);  // 3
  lua_Integer id = lua_tointeger(L, 3);
  if (id == 0) {
    lua_getfield(L, LUA_REGISTRYINDEX, kNext);
    id = lua_tointeger(L, -1) + 1;
    lua_pushinteger(L, id);
    lua_setfield(L, LUA_REGISTRYINDEX, kNext);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, id);
    lua_rawset(L, 2);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kSpace);
  const auto space = static_cast<unsigned>(lua_tointeger(L, -1));
  char text[64];
  std::snprintf(text, sizeof text, "%s: 0x%04x%08llx", lua_typename(L, type), space,
                static_cast<unsigned long long>(id) & 0xffffffffull);
  lua_pushstring(L, text);
  return 1;
}

void install_deterministic_tostring(lua_State* L, std::string_view name) {
  uint32_t hash = 2166136261u;  // FNV-1a, folded to 16 bits
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  lua_pushinteger(L, static_cast<lua_Integer>(name.empty() ? 0 : (hash >> 16) ^ (hash & 0xffff)));
  lua_setfield(L, LUA_REGISTRYINDEX, kSpace);
  lua_getglobal(L, "tostring");
  LS_ASSERT(lua_isfunction(L, -1));
  lua_setfield(L, LUA_REGISTRYINDEX, kOriginal);
  lua_newtable(L);  // the numbers given, keyed by the values: weak keys, so none is kept alive
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kIds);
  lua_pushinteger(L, 0);
  lua_setfield(L, LUA_REGISTRYINDEX, kNext);
  lua_pushcfunction(L, deterministic_tostring);
  lua_setglobal(L, "tostring");
}

}  // namespace lockstep
