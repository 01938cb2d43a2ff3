// The sandbox's replacements of Lua base functions, as Redis 7.0.15 behaves: read-only proxies
// for globals and library tables, Redis's pcall, loaders that refuse binary chunks, and
// math.random on Redis's generator.
#include <cmath>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/script_lua_internal.h"

namespace lockstep::redis {

// ---- Read-only proxies ----
bool LuaHost::Internal::push_real_if_proxy(lua_State* L, int idx) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).readonly_index_ref_);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  return true;
}

int LuaHost::Internal::readonly_newindex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

int LuaHost::Internal::missing_global(lua_State* L) {
  if (!lua_isstring(L, 2)) {
    return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2));
}

int LuaHost::Internal::next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (push_real_if_proxy(L, 1)) lua_replace(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

int LuaHost::Internal::pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, next);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int LuaHost::Internal::rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  if (push_real_if_proxy(L, 1)) lua_replace(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int LuaHost::Internal::rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (push_real_if_proxy(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  if (is_arg_table(L, 1)) host(L).arg_dirty_ = true;
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

bool LuaHost::Internal::is_arg_table(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).arg_mt_ref_);
  bool marked = lua_rawequal(L, -1, -2) != 0;
  lua_pop(L, 2);
  return marked;
}

// __newindex of KEYS/ARGV: stores the value and marks the tables as changed.
int LuaHost::Internal::arg_newindex(lua_State* L) {
  host(L).arg_dirty_ = true;
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 0;
}

int LuaHost::Internal::getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (!lua_getmetatable(L, 1) || is_arg_table(L, 1)) {
    lua_pushnil(L);  // KEYS and ARGV have no metatable as far as scripts can tell
    return 1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).string_mt_ref_);
  const bool shared = lua_rawequal(L, -1, -2) != 0;
  lua_pop(L, 1);
  if (shared) {
    // The metatable all strings share: only its read-only proxy leaves the host.
    lua_rawgeti(L, LUA_REGISTRYINDEX, host(L).string_mt_proxy_ref_);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  return 1;
}

int LuaHost::Internal::setmetatable(lua_State* L) {
  int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (push_real_if_proxy(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  if (luaL_getmetafield(L, 1, "__metatable")) return luaL_error(L, "cannot change a protected metatable");
  // KEYS or ARGV with another metatable is no longer the table the next run may reuse.
  if (is_arg_table(L, 1)) host(L).arg_dirty_ = true;
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// Redis's pcall: a caught error table is replaced by its `err` string.
int LuaHost::Internal::pcall(lua_State* L) {
  int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) lua_replace(L, -2);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

// Redis's Lua refuses binary chunks; its parser then reports the escape byte. A one-space
// text chunk followed by that byte gives the same message under the same chunk name.
int LuaHost::Internal::load_text(lua_State* L, std::string_view code, const char* chunkname) {
  int rc = 0;
  if (!code.empty() && code[0] == LUA_SIGNATURE[0]) {
    rc = luaL_loadbuffer(L, " \x1b", 2, chunkname);
  } else {
    rc = luaL_loadbuffer(L, code.data(), code.size(), chunkname);
  }
  if (rc == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

int LuaHost::Internal::loadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  return load_text(L, std::string_view(s, len), chunkname);
}

int LuaHost::Internal::load(lua_State* L) {
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  std::string code;
  // Bounded by the instruction budget: each piece runs the reader function.
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) break;
    if (!lua_isstring(L, -1)) {
      lua_pushnil(L);
      lua_pushliteral(L, "reader function must return a string");
      return 2;
    }
    std::string_view piece = to_view(L, -1);
    if (piece.empty()) break;
    code.append(piece);
    lua_pop(L, 1);
  }
  return load_text(L, code, chunkname);
}

// ---- math.random / math.randomseed on Redis's generator ----
int LuaHost::Internal::math_random(lua_State* L) {
  LuaHost& h = host(L);
  lua_Number r = static_cast<lua_Number>(h.rand_.next() % Rand48::kMax) /
                 static_cast<lua_Number>(Rand48::kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      int l = luaL_checkint(L, 1);
      int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      // u - l + 1 wraps as C int arithmetic does in Redis.
      int width = static_cast<int>(static_cast<uint32_t>(u) - static_cast<uint32_t>(l) + 1u);
      lua_pushnumber(L, std::floor(r * width) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int LuaHost::Internal::math_randomseed(lua_State* L) {
  host(L).rand_.seed(luaL_checkint(L, 1));
  return 0;
}

}  // namespace lockstep::redis
