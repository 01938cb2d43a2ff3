// Always-on assertions for programmer errors (TigerBeetle style).
//
// LS_ASSERT stays enabled in release builds: a simulator that silently continues after an
// invariant broke produces histories that look valid and are wrong. Use it for preconditions,
// postconditions and invariants; never for bad input, which gets a Status instead.
#ifndef LOCKSTEP_SIM_CORE_ASSERT_H_
#define LOCKSTEP_SIM_CORE_ASSERT_H_

namespace lockstep {

// Prints the failed condition with its location and aborts.
[[noreturn]] void assert_fail(const char* condition, const char* file, int line);

}  // namespace lockstep

#define LS_ASSERT(condition)                                          \
  do {                                                                \
    if (!(condition)) [[unlikely]]                                    \
      ::lockstep::assert_fail(#condition, __FILE__, __LINE__);        \
  } while (0)

#endif  // LOCKSTEP_SIM_CORE_ASSERT_H_
