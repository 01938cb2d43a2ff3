// Random small Lua scripts for the differential test, aimed at the reply conversion rules.
//
// A script is a few statements calling redis.call / redis.pcall on KEYS[1], KEYS[2] and
// ARGV[1], then one return expression drawn from a list that covers each conversion rule of
// Redis 7.0: nil and false (nil bulk), true (1), floats (truncated), strings, nested
// arrays, arrays with holes (truncated at the first nil), {ok=...} and {err=...} tables,
// redis.error_reply / redis.status_reply, replies of redis.call and redis.pcall passed through
// (including errors), tostring/type of replies, runtime errors (raised by redis.call, by
// error(), by an undefined global) and a compile error. RESP3 too: redis.setresp(3) among the
// statements (later replies reach Lua as RESP3 types: nil for a null, {double=}, holes in
// arrays), and the {double=}, {big_number=}, {verbatim_string=}, {map=}, {set=} tables, well
// and ill formed, as return values (each sequence runs for a RESP2 and a RESP3 caller). Arrays
// nest at most 5 deep (hiredis 0.14 reads at most 7 levels).
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_LUA_GEN_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_LUA_GEN_H_

#include <rapidcheck.h>

#include <string>

namespace lockstep::differential {

struct LuaScript {
  std::string text;
  bool returns_ttl = false;  // the result may carry a PTTL/TTL value (compared with tolerance)
};

rc::Gen<LuaScript> gen_lua_script();

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_LUA_GEN_H_
