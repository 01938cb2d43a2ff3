#include "sim/core/json_keys.h"

#include <gtest/gtest.h>

namespace lockstep {
namespace {

TEST(DuplicateKey, NamesTheFirstRepeatedKeyByItsPointer) {
  EXPECT_EQ(duplicate_key(R"({"a": 1, "b": 2})"), std::nullopt);
  EXPECT_EQ(duplicate_key(R"({"a": 1, "a": 2})"), "/a");
  EXPECT_EQ(duplicate_key(R"({"a": [{"x": 1}, {"y": 1, "y": 2}]})"), "/a/1/y");
  EXPECT_EQ(duplicate_key(R"({"o": {"k": 1}, "p": {"k": 1, "m": {"z": 0, "z": 0}}})"), "/p/m/z");
  // The same key in two objects is no duplicate.
  EXPECT_EQ(duplicate_key(R"([{"k": 1}, {"k": 2}])"), std::nullopt);
  EXPECT_EQ(duplicate_key(R"({"a": 1})"), std::nullopt);
}

}  // namespace
}  // namespace lockstep
