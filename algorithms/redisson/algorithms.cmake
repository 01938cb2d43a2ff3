# Included from algorithms/CMakeLists.txt: the Redisson lock clients, the RedLock spec and the
# setnx-naive baseline added to lockstep_algorithms, and their tests.
target_sources(lockstep_algorithms PRIVATE
  redisson/redisson_options.cc redisson/executor.cc redisson/lock_pubsub.cc
  redisson/watchdog.cc redisson/lock_type.cc redisson/lock_flows.cc redisson/scripts.cc
  redisson/rlock_types.cc redisson/fair_type.cc redisson/rw_types.cc redisson/redisson_lock.cc
  redisson/redlock.cc
  redlock_spec/redlock_spec.cc baseline/setnx_naive.cc)
lockstep_embed_lua(lockstep_algorithms
  redisson/lua/rlock_acquire.lua redisson/lua/rlock_acquire_merged.lua
  redisson/lua/rlock_unlock.lua redisson/lua/rlock_unlock_owner_check.lua
  redisson/lua/rlock_unlock_latch.lua redisson/lua/rlock_renew.lua
  redisson/lua/rlock_force_unlock.lua redisson/lua/fenced_acquire.lua
  redisson/lua/fair_acquire.lua redisson/lua/fair_try_acquire.lua
  redisson/lua/fair_acquire_current.lua redisson/lua/fair_try_acquire_current.lua
  redisson/lua/fair_unlock.lua redisson/lua/fair_unlock_latch.lua
  redisson/lua/fair_force_unlock.lua redisson/lua/fair_acquire_failed.lua
  redisson/lua/read_acquire.lua redisson/lua/read_acquire_plain_pexpire.lua
  redisson/lua/read_unlock.lua redisson/lua/read_unlock_latch.lua
  redisson/lua/read_renew.lua redisson/lua/read_renew_own.lua
  redisson/lua/read_force_unlock.lua redisson/lua/write_acquire.lua
  redisson/lua/write_unlock.lua redisson/lua/write_unlock_latch.lua
  redisson/lua/write_force_unlock.lua
  redlock_spec/redlock_release.lua redlock_spec/redlock_extend.lua)

# A small world with real Redis nodes for the algorithms' tests (algorithms/testing).
add_library(lockstep_algorithms_testing
  testing/sim_world.cc testing/tracing_node_model.cc)
target_link_libraries(lockstep_algorithms_testing
  PUBLIC lockstep_kernel lockstep_redis nlohmann_json::nlohmann_json)

lockstep_add_test(algorithms_test
  SOURCES redisson/redisson_options_test.cc redisson/rlock_test.cc
          redisson/seed004_rwlock_test.cc redisson/seed002_fair_test.cc
          redisson/seed001_trace_test.cc redisson/rlock_faults_test.cc
          redisson/redlock_test.cc redlock_spec/redlock_spec_test.cc
  LIBS lockstep_algorithms_testing)

# Scenario-level tests: seed 001's suite (scenarios/seed) and every algorithm under a random
# profile of every fault kind, through the scenario runner.
lockstep_add_test(algorithms_scenario_test
  SOURCES redisson/seed001_suite_test.cc fault_profile_test.cc edge_cases_test.cc
  LIBS lockstep_scenario)
target_compile_definitions(algorithms_scenario_test PRIVATE LOCKSTEP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
