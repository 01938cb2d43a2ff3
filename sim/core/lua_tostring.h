// tostring for sandboxed Lua states whose output must not depend on memory addresses.
//
// Lua 5.1's tostring prints a table, function, userdata or thread as its address ("table:
// 0x7f3893930340"), which differs between runs of the same seed (address-space randomization)
// and between a seed run alone and the same seed in an explore worker after others. A script or
// a Lua algorithm that made a token of tostring({}) wrote a different history every time. Here
// such a value prints as "table: 0x3a7c00000001" instead: numbered in the order the state first
// printed each one, after four hex digits drawn from the state's name (so that two clients' first
// tables, each made a token of, still differ, as their addresses would). A value with a
// __tostring metamethod, and every other type, prints as Lua prints it.
//
//   install_deterministic_tostring(L, "c1");   // after luaopen_base, before any script runs
//
// What stays address-dependent (docs: sim/redis/README.md, docs/lua-algorithms.md): the order in
// which pairs/next visit the keys of a table keyed by tables or functions.
#ifndef LOCKSTEP_SIM_CORE_LUA_TOSTRING_H_
#define LOCKSTEP_SIM_CORE_LUA_TOSTRING_H_

#include <lua.hpp>

#include <string_view>

namespace lockstep {

// Replaces the global `tostring` of L with the deterministic one; the original is kept in the
// registry for the values it does not number. `name` names the state (a client's name; "" for
// a node's). REQUIRES: the base library is open in L.
void install_deterministic_tostring(lua_State* L, std::string_view name);

// The deterministic tostring as a C function (what install puts in the globals).
// REQUIRES: install_deterministic_tostring(L) ran.
int deterministic_tostring(lua_State* L);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_LUA_TOSTRING_H_
