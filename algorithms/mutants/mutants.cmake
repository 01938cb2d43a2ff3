# Included from algorithms/CMakeLists.txt: the mutants (deliberately broken lock scripts, issue 5)
# added to lockstep_algorithms, and their test (every mutant against the scenario library).
target_sources(lockstep_algorithms PRIVATE mutants/mutants.cc)
lockstep_embed_lua(lockstep_algorithms
  mutants/rlock_unlock_no_owner_check.lua mutants/rlock_acquire_reentry_no_increment.lua
  mutants/rlock_acquire_no_pexpire.lua mutants/fair_acquire_evicts_live_head.lua
  mutants/read_acquire_ignores_write_mode.lua mutants/write_unlock_no_publish.lua)

# Every mutant against every library scenario of its algorithms (scenarios/**/*.json).
lockstep_add_test(mutants_test
  SOURCES mutants/mutants_test.cc
  LIBS lockstep_scenario)
target_compile_definitions(mutants_test PRIVATE LOCKSTEP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
