# Writes OUTPUT: a C++ file defining lockstep::algorithms::lua::SYMBOL, a std::string_view with
# the exact bytes of INPUT (a .lua file). Run by lockstep_embed_lua() at build time, so editing
# the .lua file rebuilds only what embeds it.
file(READ "${INPUT}" body)
string(FIND "${body}" ")lockstep_lua\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT}: contains the raw-string delimiter )lockstep_lua\"")
endif()
file(WRITE "${OUTPUT}.new"
"// Generated from ${INPUT} by algorithms/embed_lua.cmake. Do not edit.\n"
"#include <string_view>\n"
"namespace lockstep::algorithms::lua {\n"
"extern const std::string_view ${SYMBOL};\n"
"const std::string_view ${SYMBOL} = R\"lockstep_lua(${body})lockstep_lua\";\n"
"}  // namespace lockstep::algorithms::lua\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.new" "${OUTPUT}")
file(REMOVE "${OUTPUT}.new")
