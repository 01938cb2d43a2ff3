#include "sim/core/on_demand.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lockstep {
namespace {

TEST(OnDemandTest, ReadsSeeTheDefaultUntilTheFirstWrite) {
  OnDemand<std::vector<std::string>> names;
  EXPECT_FALSE(names);
  EXPECT_TRUE(names.get().empty());
  EXPECT_FALSE(names);  // a read does not allocate
  names.for_write().push_back("a");
  ASSERT_TRUE(names);
  EXPECT_EQ(names.get(), std::vector<std::string>{"a"});
  EXPECT_EQ(names->size(), 1u);
  names.for_write().push_back("b");  // the same value, not a new one
  EXPECT_EQ(names.get().size(), 2u);
  names.reset();
  EXPECT_FALSE(names);
  EXPECT_TRUE(names.get().empty());
}

}  // namespace
}  // namespace lockstep
