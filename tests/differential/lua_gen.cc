#include "tests/differential/lua_gen.h"

#include <vector>

namespace lockstep::differential {
namespace {

const std::vector<std::string>& statements() {
  static const std::vector<std::string> s = {
      "redis.call('set', KEYS[1], ARGV[1])",
      "redis.call('hset', KEYS[2], 'f1', ARGV[1])",
      "redis.call('lpush', KEYS[1], 'x')",
      "redis.pcall('incr', KEYS[1])",
      "redis.call('pexpire', KEYS[1], 60000)",
      "redis.call('del', KEYS[2])",
      "redis.call('sadd', KEYS[2], 'm', ARGV[1])",
      "redis.call('zadd', KEYS[1], 1.5, 'm')",
      "redis.call('hincrby', KEYS[1], 'n', 1)",
      "local x = redis.call('get', KEYS[1])",
      "redis.pcall('rpush')",
      // The script's protocol: later replies reach Lua as RESP3 types, booleans return as such.
      "redis.setresp(3)", "redis.setresp(3)", "redis.setresp(2)",
  };
  return s;
}

// Leaf expressions: each a value or a call whose reply Lua sees and converts back.
const std::vector<std::string>& leaves() {
  static const std::vector<std::string> l = {
      "nil", "false", "true", "3.7", "-2.5", "0.5", "-0.5", "42", "'str'", "''", "ARGV[1]",
      "tonumber(ARGV[1])", "#KEYS",
      "{ok='fine'}", "{err='bad thing'}", "{err='two\\nlines'}", "{ok=1}", "{err=false}",
      "redis.error_reply('MY custom error')", "redis.error_reply('nocode')",
      "redis.status_reply('S1')", "redis.status_reply('')",
      "redis.pcall('incr', KEYS[1])", "redis.pcall('hget', KEYS[1], 'f1')",
      "redis.call('get', KEYS[1])", "redis.call('exists', KEYS[1], KEYS[2])", "redis.call('ping')",
      // Not hgetall/hkeys/smembers: a hash or set past its compact encoding has no defined order.
      "redis.call('hlen', KEYS[2])", "redis.call('hget', KEYS[2], 'f1')", "redis.call('lrange', KEYS[1], 0, -1)",
      "redis.call('zrange', KEYS[1], 0, -1, 'WITHSCORES')", "redis.call('zscore', KEYS[1], 'm')",
      "redis.pcall('set', KEYS[1])", "redis.pcall('nosuchcmd')", "redis.pcall('lpush', KEYS[1], 'x')",
      "tostring(redis.call('get', KEYS[1]))", "type(redis.call('get', KEYS[1]))",
      "tostring(redis.call('hset', KEYS[2], 'f2', 'v'))", "type(redis.pcall('incr', KEYS[2]))",
      "redis.sha1hex('abc')", "redis.sha1hex('')",
      "(function() local ok, e = pcall(redis.call, 'incr', KEYS[1]); return {tostring(ok), type(e)} end)()",
      "(function() local r = redis.pcall('incr', KEYS[1]); if type(r) == 'table' then return r.err end; return r end)()",
      "(function() local t = redis.call('ping'); return t.ok end)()",
      // RESP3 tables returned to the caller (a double, big number, verbatim string, map or set
      // for a RESP3 caller; what a RESP2 caller gets instead), and ill-formed ones.
      "{double=1.5}", "{double=0.1}", "{double=0/0}", "{double=1/0}", "{double=-1/0}", "{double=-0.0}",
      "{double=1e300*1e10}", "{double=3}", "{double='1.5'}",
      "{big_number='12345678901234567890'}", "{big_number='1\\r\\n2'}", "{big_number=12}",
      "{verbatim_string={format='txt', string='a\\nb'}}", "{verbatim_string={format='markdown', string='x'}}",
      "{verbatim_string={format='x', string='y'}}", "{verbatim_string={format='txt'}}",
      "{verbatim_string={format='t\\0x', string='z'}}",
      "{map={a=1}}", "{map={a=1, b={2, 3}, c=false, d='x'}}", "{map={}}", "{map={[1.5]=true}}",
      "{set={a=true}}", "{set={x=true, y=true, [3]=true}}", "{set={}}",
      // Replies seen in RESP3 (after redis.setresp(3)): nils as nil (holes in arrays), doubles
      // as {double=}, ZRANGE WITHSCORES as pairs.
      "redis.call('hget', KEYS[2], 'nofield')", "type(redis.call('hget', KEYS[2], 'nofield'))",
      "redis.call('mget', KEYS[1], KEYS[2])",
      "(function() local t = redis.call('hmget', KEYS[2], 'nofield', 'f1'); return {#t, t[2], type(t[1])} end)()",
      "(function() local t = redis.call('zscore', KEYS[1], 'm'); return type(t) == 'table' and {'d', tostring(t.double)} or t end)()",
      "(function() local t = redis.call('zrange', KEYS[1], 0, -1, 'WITHSCORES'); return {#t, type(t[1])} end)()",
      "redis.call('zincrby', KEYS[1], 0.25, 'm')",
  };
  return l;
}

// Expressions that end the script abnormally (errors) or compute a TTL.
const std::vector<std::string>& terminal() {
  static const std::vector<std::string> t = {
      "redis.call('nosuchcmd')", "redis.call('get')", "redis.call('incr', KEYS[2])",
      "undefined_global_x", "error('boom')", "error({err='ERR tbl error'})",
      // Not error({}): redis-server 7.0.15 crashes on an error table without an err field.
      "redis.call('set', KEYS[1], 'v', 'EX', 0)",
  };
  return t;
}

rc::Gen<std::string> gen_expr(int depth) {
  auto leaf = rc::gen::resize(rc::kNominalSize, rc::gen::elementOf(leaves()));
  if (depth <= 0) return leaf;
  auto array = rc::gen::map(
      rc::gen::resize(4, rc::gen::container<std::vector<std::string>>(gen_expr(depth - 1))),
      [](const std::vector<std::string>& items) {
        std::string s = "{";
        for (size_t i = 0; i < items.size(); i++) s += (i ? ", " : "") + items[i];
        return s + "}";
      });
  return rc::gen::weightedOneOf<std::string>({{3, leaf}, {1, array}});
}

}  // namespace

rc::Gen<LuaScript> gen_lua_script() {
  return rc::gen::exec([] {
    LuaScript s;
    const int n = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 3));
    for (int i = 0; i < n; i++) s.text += *rc::gen::resize(rc::kNominalSize, rc::gen::elementOf(statements())) + "; ";
    const int kind = *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 12));
    if (kind == 0) {
      s.text += "return " + *rc::gen::resize(rc::kNominalSize, rc::gen::elementOf(terminal()));
    } else if (kind == 1) {
      s.text += "return redis.call('pttl', KEYS[1])";
      s.returns_ttl = true;
    } else if (kind == 2) {
      s.text += "return (";  // a compile error
    } else {
      s.text += "return " + *gen_expr(4);
    }
    return s;
  });
}

}  // namespace lockstep::differential
