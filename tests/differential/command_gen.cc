#include "tests/differential/command_gen.h"

#include <openssl/sha.h>

#include <functional>
#include <map>

#include "tests/differential/lua_gen.h"
#include "tests/differential/seed_scripts.h"

namespace lockstep::differential {
namespace {

using Strings = std::vector<std::string>;

// RapidCheck scales inRange/elementOf by the current size, which would favour the first
// options of every list in short sequences; choices here use the full range at any size (they
// still shrink towards the first option).
constexpr int kFullSize = rc::kNominalSize;
int uniform(int lo, int hi) { return *rc::gen::resize(kFullSize, rc::gen::inRange(lo, hi)); }
rc::Gen<std::string> pick(Strings options) {
  return rc::gen::resize(kFullSize, rc::gen::elementOf(std::move(options)));
}
std::string one(Strings options) { return *pick(std::move(options)); }
rc::Gen<Strings> pick_argv(std::vector<Strings> options) {
  return rc::gen::resize(kFullSize, rc::gen::elementOf(std::move(options)));
}

// --- alphabets -------------------------------------------------------------------------------

std::string key() { return one({"a", "b", "c", "{lk}", "a"}); }
std::string field() { return one({"f1", "f2", "mode", "u1:1"}); }
std::string member() { return one({"m1", "m2", "1", "2", "-3", "x y"}); }
std::string value() {
  return one({"v", "1", "-1", "0", "10", "abc", "3.5", " 1", "", "9223372036854775807",
              "-9223372036854775808", "9223372036854775808", "1e3", "007",
              std::string(100, 'L')});  // longer than 64 bytes: a hash leaves listpack
}
std::string integer() {
  return one({"0", "1", "-1", "2", "10", "-5", "abc", "1.5", "", "9223372036854775807",
              "-9223372036854775808", "9223372036854775808", "99999999999999999999", " 1"});
}
std::string score() {
  return one({"1", "2.5", "-1", "0", "inf", "-inf", "+inf", "nan", "abc", "1e400", "3", "1.0e1",
              "-0", "", "(1"});
}
std::string ttl_s() {
  return one({"0", "-1", "100", "86400", "9223372036854775807", "abc", "1.5",
              "-9223372036854775808", "4611686018427387904", "10"});
}
std::string ttl_ms() {
  return one({"0", "-5", "10000", "30000", "600000", "abc", "9223372036854775807",
              "-9223372036854775808", "1.5"});
}
std::string abs_ms() { return one({"$PAST_MS", "$FUTURE_MS", "0", "1", "abc", "9223372036854775807"}); }
std::string count() { return one({"0", "1", "2", "3", "-1", "abc", "10"}); }
std::string index() { return one({"0", "1", "-1", "2", "-3", "100", "abc"}); }
std::string pattern() { return one({"*", "a*", "?", "[ab]*", "{*", "\\*", ""}); }
std::string channel() { return one({"ch", "redisson_lock__channel:{a}", "c2"}); }
std::string owner() { return one({"u1:1", "u1:2", "u2:1"}); }

Step cmd(Strings argv, CompareRule rule = CompareRule::kExact) {
  return Step{0, std::move(argv), rule};
}

// Appends 0..n arguments from `gen`.
void add_some(Strings& argv, int n, const std::function<std::string()>& gen) {
  const int k = uniform(0, n + 1);
  for (int i = 0; i < k; i++) argv.push_back(gen());
}

// --- command families -------------------------------------------------------------------------

using StepGen = std::function<Step()>;
struct Weighted {
  int weight;
  StepGen gen;
};

std::vector<Weighted> keys_and_strings() {
  return {
      {2, [] { Strings a{one({"DEL", "UNLINK", "EXISTS"}), key()}; add_some(a, 2, key); return cmd(a); }},
      {1, [] { return cmd({"TYPE", key()}); }},
      {2, [] { return cmd({one({"EXPIRE", "PEXPIRE"}), key(), ttl_ms()}); }},
      {2, [] {
         Strings a{one({"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"}), key(), one({"0", "-1", "100000", "600000", "$FUTURE_S", "$FUTURE_MS"})};
         add_some(a, 2, [] { return one({"NX", "XX", "GT", "LT", "gt", "FOO"}); });
         return cmd(a);
       }},
      {1, [] { return cmd({"EXPIRE", key(), ttl_s()}); }},
      {1, [] { return cmd({one({"PEXPIREAT", "EXPIREAT"}), key(), abs_ms()}); }},
      {1, [] { return cmd({"EXPIREAT", key(), "$FUTURE_S"}); }},
      {1, [] { return cmd({"PTTL", key()}, CompareRule::kTtl); }},
      {1, [] { return cmd({"TTL", key()}, CompareRule::kTtlSeconds); }},
      {1, [] { return cmd({"PERSIST", key()}); }},
      {1, [] { return cmd({"KEYS", pattern()}, CompareRule::kUnordered); }},
      {1, [] { return cmd({"DBSIZE"}); }},
      {1, [] {
         // Only cursors and counts whose answer does not depend on Redis's hash-table layout:
         // a start (0, or "" which strtoul reads as 0) with the default or a large COUNT visits a
         // small keyspace in one call; a later cursor or COUNT 1 lands wherever Redis's buckets
         // put it (the model's cursor scheme is its own, docs/serve.md).
         Strings a{"SCAN", one({"0", "0", "", "x", "18446744073709551616", " 1"})};
         const int n = uniform(0, 3);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"MATCH", "COUNT", "TYPE", "FOO"});
           a.push_back(opt);
           a.push_back(opt == "MATCH" ? pattern() : opt == "TYPE" ? one({"string", "hash", "list", "set", "zset", "nope"})
                                                            : one({"0", "-1", "abc", "10", "100"}));
         }
         return cmd(a, CompareRule::kScan);
       }},
      {1, [] { return cmd({"TIME"}, CompareRule::kTime); }},
      {1, [] { Strings a{"PING"}; add_some(a, 1, value); return cmd(a); }},
      {1, [] { return cmd({"ECHO", value()}); }},
      {3, [] { return cmd({"GET", key()}); }},
      {4, [] {
         Strings a{"SET", key(), value()};
         const int n = uniform(0, 3);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"NX", "XX", "EX", "PX", "KEEPTTL", "GET", "ex", "EXAT", "PXAT"});
           a.push_back(opt);
           if (opt == "EX" || opt == "ex") a.push_back(ttl_s());
           if (opt == "PX") a.push_back(ttl_ms());
           if (opt == "EXAT") a.push_back("$FUTURE_S");
           if (opt == "PXAT") a.push_back(abs_ms());
         }
         return cmd(a);
       }},
      {1, [] { return cmd({"SETNX", key(), value()}); }},
      {2, [] { return cmd({"INCRBYFLOAT", key(), one({"1", "0.1", "-2.5", "1e400", "inf", "abc", " 1", "", "1e-5000", "0x10", "-0", "3.0"})}); }},
      {1, [] { return cmd({"GETSET", key(), value()}); }},
      {1, [] {
         Strings a{"GETEX", key()};
         const int n = uniform(0, 3);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"EX", "PX", "EXAT", "PXAT", "PERSIST", "NX", "px"});
           a.push_back(opt);
           if (opt == "EX") a.push_back(ttl_s());
           if (opt == "PX" || opt == "px") a.push_back(ttl_ms());
           if (opt == "EXAT") a.push_back("$FUTURE_S");
           if (opt == "PXAT") a.push_back(abs_ms());
         }
         return cmd(a);
       }},
      {1, [] { return cmd({"EXPIRETIME", key()}, CompareRule::kTtlSeconds); }},
      {1, [] { return cmd({"PEXPIRETIME", key()}, CompareRule::kTtl); }},
      {1, [] { return cmd({one({"RENAME", "RENAMENX"}), key(), key()}); }},
      {1, [] {
         Strings a{"COPY", key(), key()};
         add_some(a, 1, [] { return std::string("REPLACE"); });
         if (uniform(0, 4) == 0) { a.push_back("DB"); a.push_back(one({"0", "1", "16", "x"})); }
         return cmd(a);
       }},
      {2, [] { return cmd({one({"INCR", "DECR"}), key()}); }},
      {2, [] { return cmd({one({"INCRBY", "DECRBY"}), key(), integer()}); }},
      {1, [] { return cmd({"WAIT", "0", "0"}); }},
      // The handshake: switching protocols (2 <-> 3) mid-sequence, options, Redis's errors.
      {2, [] {
         Step s = cmd(*pick_argv({{"HELLO"}, {"HELLO", "3"}, {"HELLO", "2"}, {"HELLO", "3", "SETNAME", "n1"},
                                  {"HELLO", "2", "AUTH", "default", "pw", "SETNAME", "n2"}, {"HELLO", "4"},
                                  {"HELLO", "3", "AUTH", "bob", "pw"}, {"HELLO", "x"}, {"HELLO", "3", "AUTH", "default"},
                                  {"HELLO", "3", "SETNAME", "a b"}, {"HELLO", "3", "SETNAME", "a b", "foo"},
                                  {"HELLO", "3", "AUTH", "bob", "pw", "SETNAME", "a b"}, {"HELLO", "1", "foo"},
                                  {"HELLO", "3", "SETNAME", "n3", "foo"}, {"HELLO", "3", "SETNAME", ""}}),
                      CompareRule::kHello);
         s.conn = uniform(0, 2);
         return s;
       }},
      {1, [] { return cmd({"CLIENT", "GETNAME"}); }},
      {1, [] {
         Step s = cmd(*pick_argv({{"CLIENT", "INFO"}, {"CLIENT", "LIST", "TYPE", "pubsub"}, {"CLIENT", "LIST", "TYPE", "nope"},
                                  {"CLIENT", "LIST", "ID", "x"}, {"CLIENT", "LIST", "x"}, {"CLIENT", "INFO", "x"}}),
                      CompareRule::kClientInfo);
         s.conn = uniform(0, 2);
         return s;
       }},
      {1, [] { return cmd({"RANDOMKEY"}, CompareRule::kRandomPick); }},
      {2, [] { return cmd({"OBJECT", one({"ENCODING", "ENCODING", "REFCOUNT", "FREQ", "NOPE"}), key()}); }},
      {1, [] { return cmd(*pick_argv({{"OBJECT", "ENCODING"}, {"OBJECT", "HELP"}, {"OBJECT", "HELP", "x"}})); }},
      {1, [] {
         Strings a{"APPEND", key(), value()};
         return cmd(a);
       }},
      {1, [] { return cmd({"STRLEN", key()}); }},
      {1, [] { Strings a{"MSET", key(), value()}; if (uniform(0, 2) == 0) { a.push_back(key()); a.push_back(value()); } return cmd(a); }},
      {1, [] { Strings a{"MGET", key()}; add_some(a, 2, key); return cmd(a); }},
      {1, [] { Strings a{"CLIENT", "NO-EVICT"}; add_some(a, 2, [] { return one({"on", "OFF", "maybe"}); }); return cmd(a); }},
      {1, [] { return cmd({"CONFIG", "GET", one({"databases", "appendonly", "nosuch"})}); }},
      {1, [] { return cmd({one({"NOSUCHCMD", "hget", "Get", "sEt"}), key(), value()}); }},
      // Transactions: a MULTI ... EXEC (or DISCARD) block sent as one pipeline, with commands
      // that run, fail inside EXEC (wrong type), or are refused while queuing (EXECABORT);
      // WATCH and UNWATCH on either connection, so that the other one's writes (and flushes,
      // expiries, scripts) decide whether EXEC runs.
      {3, [] {
         Step s = cmd({"MULTI"});
         s.conn = uniform(0, 2);
         const int n = uniform(0, 5);
         for (int i = 0; i < n; i++) {
           s.then.push_back(*pick_argv({{"SET", key(), value()}, {"GET", key()}, {"INCR", key()}, {"DEL", key()},
                                        {"HSET", key(), "f", value()}, {"LPUSH", key(), value()},
                                        {"EXPIRE", key(), "100"}, {"TYPE", key()}, {"EXISTS", key(), key()},
                                        {"WATCH", key()}, {"MULTI"}, {"NOSUCHCMD", key()}, {"GET"},
                                        {"SELECT", one({"0", "1"})}, {"UNWATCH"}, {"PING"},
                                        {"EVAL", "return redis.call('incr', KEYS[1])", "1", key()}}));
         }
         s.then.push_back({one({"EXEC", "EXEC", "EXEC", "DISCARD"})});
         return s;
       }},
      {3, [] {
         Strings a{"WATCH", key()};
         add_some(a, 2, key);
         Step s = cmd(a);
         s.conn = uniform(0, 2);
         return s;
       }},
      {1, [] { Step s = cmd({one({"UNWATCH", "EXEC", "DISCARD"})}); s.conn = uniform(0, 2); return s; }},
  };
}

std::vector<Weighted> collections() {
  return {
      {3, [] { Strings a{"HSET", key(), field(), value()}; if (uniform(0, 3) == 0) { a.push_back(field()); a.push_back(value()); } return cmd(a); }},
      {1, [] { return cmd({"HSETNX", key(), field(), value()}); }},
      {2, [] { return cmd({"HGET", key(), field()}); }},
      {1, [] { Strings a{"HMGET", key(), field()}; add_some(a, 2, field); return cmd(a); }},
      {1, [] { return cmd({"HEXISTS", key(), field()}); }},
      {1, [] { Strings a{"HDEL", key(), field()}; add_some(a, 1, field); return cmd(a); }},
      {2, [] { return cmd({"HINCRBY", key(), field(), integer()}); }},
      {1, [] { return cmd({"HLEN", key()}); }},
      {1, [] { return cmd({one({"HKEYS", "HVALS"}), key()}, CompareRule::kUnordered); }},
      {1, [] { return cmd({"HGETALL", key()}, CompareRule::kUnorderedPairs); }},
      {1, [] { return cmd({"HINCRBYFLOAT", key(), field(), one({"1", "0.5", "-1e3", "inf", "abc", "1e400"})}); }},
      {1, [] { return cmd({"HSTRLEN", key(), field()}); }},
      {1, [] { return cmd({"LSET", key(), index(), member()}); }},
      {1, [] { return cmd({"LTRIM", key(), index(), index()}); }},
      {1, [] {
         Strings a{"LPOS", key(), member()};
         const int n = uniform(0, 3);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"RANK", "COUNT", "MAXLEN", "FOO"});
           a.push_back(opt);
           a.push_back(opt == "RANK" ? one({"1", "2", "-1", "-2", "0", "x"}) : count());
         }
         return cmd(a);
       }},
      {1, [] { return cmd({"LMOVE", key(), key(), one({"LEFT", "RIGHT", "UP"}), one({"LEFT", "RIGHT"})}); }},
      // Blocking pops with timeouts short enough to wait out: the model's node (no host to answer
      // later) answers nil at once where redis-server answers it after 1-10 ms.
      {1, [] {
         Strings a{one({"BLPOP", "BRPOP"}), key()};
         add_some(a, 1, key);
         a.push_back(one({"0.01", "0.001", "-1", "nan", "abc", "9.3e15"}));
         return cmd(a);
       }},
      {1, [] { Strings a{"SMISMEMBER", key(), member()}; add_some(a, 2, member); return cmd(a); }},
      {2, [] {
         Strings a{"SRANDMEMBER", key()};
         add_some(a, 1, [] { return one({"0", "1", "2", "3", "-1", "-3", "10", "-10", "abc", "-9223372036854775808"}); });
         return cmd(a, CompareRule::kRandomPick);
       }},
      {2, [] {
         // The members popped differ between the servers: the step ends by deleting the key.
         const std::string k = key();
         Strings a{"SPOP", k};
         add_some(a, 1, [] { return one({"0", "1", "2", "3", "10", "-1", "abc"}); });
         Step s = cmd(a, CompareRule::kRandomPick);
         s.then = {{"SCARD", k}, {"DEL", k}};
         return s;
       }},
      {2, [] {
         const std::string which = one({"HSCAN", "SSCAN", "ZSCAN"});
         Strings a{which, key(), one({"0", "0", "", "x"})};
         const int n = uniform(0, 2);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"MATCH", "COUNT", "FOO"});
           a.push_back(opt);
           a.push_back(opt == "MATCH" ? one({"*", "m*", "f?", "1"}) : one({"0", "-1", "abc", "10", "100"}));
         }
         return cmd(a, which == "SSCAN" ? CompareRule::kScan : CompareRule::kScanPairs);
       }},
      {2, [] { Strings a{one({"LPUSH", "RPUSH"}), key(), member()}; add_some(a, 2, member); return cmd(a); }},
      {2, [] { Strings a{one({"LPOP", "RPOP"}), key()}; add_some(a, 1, count); return cmd(a); }},
      {1, [] { return cmd({"LINDEX", key(), index()}); }},
      {1, [] { return cmd({"LRANGE", key(), index(), index()}); }},
      {1, [] { return cmd({"LLEN", key()}); }},
      {1, [] { return cmd({"LREM", key(), index(), member()}); }},
      {2, [] { Strings a{"SADD", key(), member()}; add_some(a, 2, member); return cmd(a); }},
      {1, [] { Strings a{"SREM", key(), member()}; add_some(a, 1, member); return cmd(a); }},
      {1, [] { return cmd({"SISMEMBER", key(), member()}); }},
      {1, [] { return cmd({"SMEMBERS", key()}, CompareRule::kUnordered); }},
      {1, [] { return cmd({"SCARD", key()}); }},
      {3, [] {
         Strings a{"ZADD", key()};
         add_some(a, 2, [] { return one({"NX", "XX", "GT", "LT", "CH", "INCR"}); });
         a.push_back(score());
         a.push_back(member());
         if (uniform(0, 3) == 0) { a.push_back(score()); a.push_back(member()); }
         return cmd(a);
       }},
      {1, [] { return cmd({"ZINCRBY", key(), score(), member()}); }},
      {1, [] { return cmd({"ZSCORE", key(), member()}); }},
      {1, [] { Strings a{"ZREM", key(), member()}; add_some(a, 1, member); return cmd(a); }},
      {2, [] {
         Strings a{"ZRANGE", key()};
         if (uniform(0, 2) == 0) {
           a.push_back(one({"-inf", "0", "1", "(1", "2.5", "abc"}));
           a.push_back(one({"+inf", "3", "(3", "1", "abc"}));
           a.push_back("BYSCORE");
         } else {
           a.push_back(index());
           a.push_back(index());
         }
         add_some(a, 1, [] { return one({"WITHSCORES", "REV"}); });
         if (uniform(0, 4) == 0) { a.push_back("LIMIT"); a.push_back(count()); a.push_back(count()); }
         return cmd(a);
       }},
      {1, [] {
         Strings a{"ZRANGEBYSCORE", key(), one({"-inf", "0", "(1", "1", "abc"}), one({"+inf", "2", "(3"})};
         add_some(a, 1, [] { return std::string("WITHSCORES"); });
         return cmd(a);
       }},
      {1, [] { return cmd({"ZCARD", key()}); }},
      {1, [] { return cmd({one({"ZRANK", "ZREVRANK"}), key(), member()}); }},
      {1, [] {
         Strings a{"ZREVRANGE", key(), index(), index()};
         add_some(a, 1, [] { return std::string("WITHSCORES"); });
         return cmd(a);
       }},
      {1, [] {
         Strings a{"ZREVRANGEBYSCORE", key(), one({"+inf", "3", "(3", "abc"}), one({"-inf", "0", "(1", "1"})};
         add_some(a, 1, [] { return std::string("WITHSCORES"); });
         if (uniform(0, 3) == 0) { a.push_back("LIMIT"); a.push_back(count()); a.push_back(count()); }
         return cmd(a);
       }},
      {1, [] {
         // Lexicographic ranges are defined on sets whose scores are equal; the generator's sets
         // are small (listpack), where both servers walk them in order the same way anyway.
         Strings a{one({"ZRANGEBYLEX", "ZREVRANGEBYLEX"}), key(), one({"-", "+", "[m1", "(m1", "[2", "x"}),
                   one({"+", "-", "[m2", "(x y", "[1"})};
         if (uniform(0, 3) == 0) { a.push_back("LIMIT"); a.push_back(count()); a.push_back(count()); }
         return cmd(a);
       }},
      {1, [] { return cmd({"ZCOUNT", key(), one({"-inf", "0", "(1", "1", "abc"}), one({"+inf", "2", "(3"})}); }},
      {1, [] { return cmd({"ZLEXCOUNT", key(), one({"-", "[m1", "(1", "x"}), one({"+", "[m2"})}); }},
      {1, [] { return cmd({"ZREMRANGEBYSCORE", key(), one({"-inf", "0", "(1", "1", "abc"}), one({"+inf", "2", "(3"})}); }},
      {1, [] { return cmd({"ZREMRANGEBYRANK", key(), index(), index()}); }},
      {1, [] { return cmd({"ZREMRANGEBYLEX", key(), one({"-", "[m1", "(1"}), one({"+", "[m2", "x"})}); }},
  };
}

std::string sha1_hex(std::string_view s) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

// EVAL, or EVALSHA by digest (NOSCRIPT until some step loaded it), or SCRIPT LOAD first.
Step eval_step(std::string_view script, Strings keys_and_args, int numkeys, CompareRule rule) {
  const int how = uniform(0, 4);
  if (how == 3) return cmd({"SCRIPT", "LOAD", std::string(script)});
  Strings a{how == 0 ? "EVAL" : "EVALSHA", how == 0 ? std::string(script) : sha1_hex(script),
            std::to_string(numkeys)};
  a.insert(a.end(), keys_and_args.begin(), keys_and_args.end());
  return cmd(a, rule);
}

std::vector<Weighted> seed_scripts() {
  auto lease = [] { return one({"30000", "10000", "abc", "-1", "0"}); };
  return {
      {4, [=] { return eval_step(kRlockAcquire, {key(), lease(), owner()}, 1, CompareRule::kTtl); }},
      {3, [=] { return eval_step(kRlockUnlock, {key(), channel(), "0", lease(), owner()}, 2, CompareRule::kTtl); }},
      {3, [=] {
         return eval_step(kFairAcquire, {key(), "q", "z", lease(), owner(), one({"6000", "7000", "300000"}),
                                         one({"1000", "2000", "10000"})}, 3, CompareRule::kTtl);
       }},
      {3, [=] {
         const std::string k = key(), o = owner();
         return eval_step(kReadAcquire, {k, "{" + k + "}:" + o + ":rwlock_timeout", lease(), o, o + ":write"}, 2,
                          CompareRule::kTtl);
       }},
      {3, [=] { return eval_step(kWriteAcquire, {key(), lease(), owner() + ":write"}, 1, CompareRule::kTtl); }},
      {3, [=] {
         const std::string k = key(), o = owner();
         return eval_step(kReadUnlock, {k, "redisson_rwlock:{" + k + "}", "{" + k + "}:" + o + ":rwlock_timeout",
                                        "{" + k + "}", "0", o}, 4, CompareRule::kTtl);
       }},
      {3, [=] {
         const std::string k = key();
         return eval_step(kWriteUnlock, {k, "redisson_rwlock:{" + k + "}", "0", lease(), owner() + ":write"}, 2,
                          CompareRule::kTtl);
       }},
      {1, [] { Strings a{"SCRIPT", "EXISTS", sha1_hex(kRlockAcquire)}; add_some(a, 1, [] { return std::string("0000"); }); return cmd(a); }},
      {1, [] { return cmd({"SCRIPT", "FLUSH"}); }},
      {1, [] { return cmd({"PTTL", key()}, CompareRule::kTtl); }},
      {1, [] { return cmd({"HGETALL", key()}, CompareRule::kUnorderedPairs); }},
  };
}

std::vector<Weighted> scripts() {
  return {
      {6, [] {
         const LuaScript s = *gen_lua_script();
         Strings rest{key(), key(), value()};
         Step step = eval_step(s.text, rest, 2, s.returns_ttl ? CompareRule::kTtl : CompareRule::kExact);
         return step;
       }},
      {1, [] { return cmd({"EVAL", "return 1", one({"-1", "3", "abc", "1"})}); }},
      {1, [] { return cmd({"EVALSHA", one({"abc", "0000000000000000000000000000000000000000"}), "0"}); }},
      {1, [] { return cmd({"SCRIPT", one({"EXISTS", "FLUSH", "LOAD", "NOPE"})}); }},
  };
}

std::vector<Weighted> pubsub() {
  return {
      {3, [] { Step s = cmd({"SUBSCRIBE", channel()}); add_some(s.argv, 1, channel); s.conn = 1; return s; }},
      {2, [] { Step s = cmd({"PSUBSCRIBE", one({"ch*", "redisson_lock__channel:*", "*"})}); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"UNSUBSCRIBE", channel()}); add_some(s.argv, 1, channel); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"UNSUBSCRIBE"}, CompareRule::kUnsubscribeAll); s.conn = 1; return s; }},
      {4, [] { return cmd({"PUBLISH", channel(), value()}); }},
      // From the subscriber itself: refused in RESP2, a push and a reply in RESP3.
      {1, [] { Step s = cmd({"PUBLISH", channel(), value()}); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({one({"PING", "GET", "SET"}), key()}); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"PING"}); s.conn = 1; return s; }},
      // A subscribed connection switching protocols (RESP3 may run any command while
      // subscribed; back in RESP2 it may not), and RESET (unsubscribes, back to RESP2).
      {1, [] { Step s = cmd({"HELLO", one({"3", "2"})}, CompareRule::kHello); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"RESET"}); s.conn = 1; return s; }},
      {1, [] { Strings a{"PUBSUB", "CHANNELS"}; add_some(a, 2, [] { return one({"*", "ch*", "redisson*"}); }); return cmd(a, CompareRule::kUnordered); }},
      {1, [] { Strings a{"PUBSUB", one({"NUMSUB", "SHARDNUMSUB"})}; add_some(a, 2, channel); return cmd(a); }},
      {1, [] { return cmd(*pick_argv({{"PUBSUB", "NUMPAT"}, {"PUBSUB", "NUMPAT", "x"}, {"PUBSUB", "NOPE"}})); }},
      {2, [] { return eval_step(kRlockUnlock, {key(), channel(), "0", "30000", owner()}, 2, CompareRule::kExact); }},
      // Sharded pub/sub: its own channels and counts, "smessage" deliveries, refused in EXEC.
      {2, [] { Step s = cmd({"SSUBSCRIBE", channel()}); add_some(s.argv, 1, channel); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"SUNSUBSCRIBE", channel()}); add_some(s.argv, 1, channel); s.conn = 1; return s; }},
      {1, [] { Step s = cmd({"SUNSUBSCRIBE"}, CompareRule::kUnsubscribeAll); s.conn = 1; return s; }},
      {3, [] { return cmd({"SPUBLISH", channel(), value()}); }},
      {1, [] { Strings a{"PUBSUB", "SHARDCHANNELS"}; add_some(a, 1, [] { return one({"*", "ch*"}); }); return cmd(a, CompareRule::kUnordered); }},
      {1, [] { Step s = cmd({"MULTI"}); s.then = {{"SSUBSCRIBE", channel()}, {"EXEC"}}; return s; }},
  };
}

// Libraries for FUNCTION LOAD: two that register functions (one reads, one writes, one fails at
// run time, one returns each argument kind), one whose function names collide with the first,
// and ones that fail to load in each way.
std::string library() {
  return one({
      "#!lua name=lib1\n"
      "redis.register_function{function_name='get1', callback=function(keys, args) return redis.call('get', keys[1]) "
      "end, flags={'no-writes'}, description='reads'}\n"
      "redis.register_function('set1', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n"
      "redis.register_function('fail1', function(keys, args) return redis.call('incr', keys[1]) end)\n"
      "redis.register_function('echo1', function(keys, args) return {keys, args, #keys, #args} end)",
      "#!lua name=lib2\n"
      "local function count(keys, args) return #keys + #args end\n"
      "redis.register_function{function_name='count2', callback=count, flags={'no-writes', 'allow-stale'}}\n"
      "redis.register_function('err2', function() error('bad') end)",
      "#!lua name=lib3\nredis.register_function('get1', function() return 3 end)",
      "#!lua name=lib1\nredis.register_function('set1', function(keys) return redis.call('del', keys[1]) end)",
      "#!lua name=bad1\nlocal s = string.len('x')",
      "#!lua name=bad2\nreturn 1",
      "#!lua name=bad-3\nredis.register_function('f', function() end)",
      "#!lua\nredis.register_function('f', function() end)",
      "#!lua name=bad4\nredis.register_function('f', function() end",
      "#!lua name=bad5\nredis.register_function{function_name='f', callback=function() end, flags={'nope'}}",
      "return 1",
  });
}

std::vector<Weighted> functions() {
  return {
      {3, [] {
         Strings a{"FUNCTION", "LOAD"};
         add_some(a, 1, [] { return one({"REPLACE", "replace", "NOPE"}); });
         a.push_back(library());
         return cmd(a);
       }},
      {4, [] {
         Strings a{one({"FCALL", "FCALL_RO", "FCALL"}), one({"get1", "set1", "fail1", "echo1", "count2", "err2", "nosuch"}),
                   one({"1", "1", "0", "2", "-1", "x", "5"}), key()};
         add_some(a, 2, value);
         return cmd(a);
       }},
      {1, [] { return cmd({"FUNCTION", "DELETE", one({"lib1", "lib2", "lib3", "nosuch"})}); }},
      {1, [] { Strings a{"FUNCTION", "FLUSH"}; add_some(a, 1, [] { return one({"SYNC", "ASYNC", "NOPE"}); }); return cmd(a); }},
      {2, [] {
         Strings a{"FUNCTION", "LIST"};
         const int n = uniform(0, 3);
         for (int i = 0; i < n; i++) {
           const std::string opt = one({"WITHCODE", "LIBRARYNAME", "NOPE"});
           a.push_back(opt);
           if (opt == "LIBRARYNAME" && uniform(0, 4) > 0) a.push_back(one({"lib1", "LIB*", "*2", "x"}));
         }
         return cmd(a, CompareRule::kFunctionList);
       }},
      {1, [] { return cmd(*pick_argv({{"FUNCTION", "STATS"}, {"FUNCTION", "KILL"}, {"FUNCTION", "NOPE"}, {"FUNCTION", "DELETE"},
                                      {"FUNCTION", "HELP"}, {"FUNCTION"}})); }},
      {1, [] { return cmd({"SET", key(), value()}); }},
      {1, [] { return cmd({"GET", key()}); }},
  };
}

std::vector<Weighted> family_table(Family f) {
  switch (f) {
    case Family::kKeysAndStrings: return keys_and_strings();
    case Family::kCollections: return collections();
    case Family::kScripts: return scripts();
    case Family::kSeedScripts: return seed_scripts();
    case Family::kPubSub: return pubsub();
    case Family::kFunctions: return functions();
    case Family::kEverything: break;
  }
  std::vector<Weighted> all;
  for (Family g : {Family::kKeysAndStrings, Family::kCollections, Family::kScripts, Family::kSeedScripts,
                   Family::kPubSub, Family::kFunctions}) {
    for (Weighted& w : family_table(g)) all.push_back(std::move(w));
  }
  return all;
}

rc::Gen<Step> gen_step(Family family) {
  return rc::gen::exec([family] {
    static thread_local std::map<Family, std::vector<Weighted>> tables;
    auto& table = tables[family];
    if (table.empty()) table = family_table(family);
    int total = 0;
    for (const Weighted& w : table) total += w.weight;
    int r = uniform(0, total);
    size_t i = 0;
    while (r >= table[i].weight) r -= table[i++].weight;
    Step step = table[i].gen();
    // Wrong arity now and then: drop the last argument or add one.
    const int arity = uniform(0, 20);
    if (arity == 0 && step.argv.size() > 1) step.argv.pop_back();
    if (arity == 1) step.argv.push_back(value());
    // A mass unsubscribe, however it came about, lists channels in Redis's dict order.
    if (step.argv.size() == 1 && (step.argv[0] == "UNSUBSCRIBE" || step.argv[0] == "PUNSUBSCRIBE" ||
                                  step.argv[0] == "SUNSUBSCRIBE")) {
      step.rule = CompareRule::kUnsubscribeAll;
    }
    return step;
  });
}

}  // namespace

rc::Gen<std::vector<Step>> gen_sequence(Family family) {
  return rc::gen::scale(0.5, rc::gen::nonEmpty(rc::gen::container<std::vector<Step>>(gen_step(family))));
}

namespace {

std::string show_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (size_t i = 0; i < argv.size(); i++) {
    const std::string& a = argv[i];
    bool plain = !a.empty();
    for (char c : a) plain = plain && c > ' ' && c < 127 && c != '"' && c != '\\' && c != '\'';
    if (i > 0) s += ' ';
    if (plain) {
      s += a;
      continue;
    }
    s += '"';
    for (char c : a) {
      if (c == '"' || c == '\\') s += '\\';
      if (c == '\n') { s += "\\n"; continue; }
      s += c;
    }
    s += '"';
  }
  return s;
}

}  // namespace

std::string show_step(const Step& step) {
  std::string s = "conn" + std::to_string(step.conn) + "> " + show_argv(step.argv);
  for (const std::vector<std::string>& next : step.then) s += " ; " + show_argv(next);
  return s;
}

std::string resolve_placeholders(const std::string& arg, int64_t now_ms) {
  if (arg == "$PAST_MS") return std::to_string(now_ms - 60'000);
  if (arg == "$FUTURE_MS") return std::to_string(now_ms + 600'000);
  if (arg == "$FUTURE_S") return std::to_string(now_ms / 1000 + 600);
  return arg;
}

}  // namespace lockstep::differential
