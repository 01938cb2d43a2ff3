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

# `lockstep run --mutant` and `lockstep list --mutants` (docs/run.md, "Mutants"): exit code and a
# line of the output.
function(lockstep_mutant_cli_test name expected_code expected_text)
  list(JOIN ARGN " " args)
  add_test(NAME ${name}
           COMMAND sh -c "out=$($<TARGET_FILE:lockstep> ${args} 2>&1); code=$?; echo \"$out\"; [ $code -eq ${expected_code} ] && echo \"$out\" | grep -qF -- '${expected_text}'")
  set_tests_properties(${name} PROPERTIES LABELS unit)
endfunction()
set(contention ${PROJECT_SOURCE_DIR}/scenarios/contention)
lockstep_mutant_cli_test(mutant_cli_caught 1
  "outcome [mutant rlock_unlock_no_owner_check]: expected ok: the checkers answered violation"
  run ${contention}/redisson-lock-non-owner-unlock.json --mutant rlock_unlock_no_owner_check
  --out ${CMAKE_CURRENT_BINARY_DIR}/mutant_cli_caught)
lockstep_mutant_cli_test(mutant_cli_real 0 "outcome: expected ok: no violation (as expected)"
  run ${contention}/redisson-lock-non-owner-unlock.json --out ${CMAKE_CURRENT_BINARY_DIR}/mutant_cli_real)
lockstep_mutant_cli_test(mutant_cli_wrong_algorithm 2 "which algorithm \"redisson-lock\" never sends"
  run ${contention}/redisson-lock-non-owner-unlock.json --mutant write_unlock_no_publish
  --out ${CMAKE_CURRENT_BINARY_DIR}/mutant_cli_wrong)
lockstep_mutant_cli_test(mutant_cli_list 0 "write_unlock_no_publish  [replaces write_unlock; caught by liveness]"
  list --mutants)
