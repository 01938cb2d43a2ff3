#include "sim/redis/db.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

namespace lockstep::redis {
namespace {

std::string value_of(const Entry* e) { return *value_if<StringValue>(e->value); }

// The open-addressing table (growth, backward-shift deletion, the lookup cache) against std::map.
RC_GTEST_PROP(KeyspaceTest, BehavesLikeAMap, (std::vector<std::pair<bool, uint16_t>> ops)) {
  Keyspace ks;
  std::map<std::string, std::string> model;
  for (const auto& [add, n] : ops) {
    std::string key = "key:" + std::to_string(n % 3000);
    if (add) {
      Entry* e = ks.find(key);
      RC_ASSERT((e != nullptr) == (model.count(key) == 1));
      if (e == nullptr) {
        ks.add(key, Value(std::to_string(n)));
        model[key] = std::to_string(n);
      }
    } else {
      RC_ASSERT(ks.remove(key) == (model.erase(key) == 1));
      RC_ASSERT(ks.find(key) == nullptr);
    }
    RC_ASSERT(ks.size() == model.size());
  }
  for (const auto& [k, v] : model) {
    const Entry* e = ks.find(k);
    RC_ASSERT(e != nullptr);
    RC_ASSERT(value_of(e) == v);
  }
  std::vector<std::string> keys;
  for (const auto& kv : model) keys.push_back(kv.first);
  RC_ASSERT(ks.sorted_keys() == keys);
  Keyspace copy = ks;
  RC_ASSERT(copy.sorted_keys() == keys);
  for (const auto& [k, v] : model) RC_ASSERT(value_of(copy.find(k)) == v);
}

TEST(KeyspaceTest, ManyKeysAndTheCache) {
  Keyspace ks;
  for (int i = 0; i < 50'000; i++) ks.add("k" + std::to_string(i), Value(std::to_string(i)));
  EXPECT_EQ(ks.size(), 50'000u);
  for (int i = 0; i < 50'000; i += 2) {
    EXPECT_TRUE(ks.remove("k" + std::to_string(i)));
  }
  for (int i = 0; i < 50'000; i++) {
    const Entry* e = ks.find("k" + std::to_string(i));
    ASSERT_EQ(e != nullptr, i % 2 == 1) << i;
    if (e != nullptr) {
      EXPECT_EQ(value_of(e), std::to_string(i));
    }
  }
  // A cached entry is forgotten when its key goes.
  ASSERT_NE(ks.find("k1"), nullptr);
  EXPECT_TRUE(ks.remove("k1"));
  EXPECT_EQ(ks.find("k1"), nullptr);
  ks.add("k1", Value(std::string("again")));
  EXPECT_EQ(value_of(ks.find("k1")), "again");
  ks.clear();
  EXPECT_EQ(ks.size(), 0u);
  EXPECT_EQ(ks.find("k3"), nullptr);
}

TEST(KeyspaceTest, KeysAreBinarySafe) {
  Keyspace ks;
  std::string nul("a\0b", 3);
  ks.add(nul, Value(std::string("1")));
  ks.add("", Value(std::string("2")));
  EXPECT_EQ(ks.find("a"), nullptr);
  EXPECT_EQ(value_of(ks.find(nul)), "1");
  EXPECT_EQ(value_of(ks.find("")), "2");
  EXPECT_EQ(ks.sorted_keys(), (std::vector<std::string>{"", nul}));
}

}  // namespace
}  // namespace lockstep::redis
