# Writes OUTPUT: a C++ file defining lockstep::report::assets::SYMBOL, a std::string_view with
# the exact bytes of INPUT (the report page's CSS or JavaScript). Run at build time by
# checker/report/CMakeLists.txt, so editing report.js rebuilds only this file.
file(READ "${INPUT}" body)
string(FIND "${body}" ")lockstep_asset\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT}: contains the raw-string delimiter )lockstep_asset\"")
endif()
file(WRITE "${OUTPUT}.new"
"// Generated from ${INPUT} by checker/report/embed_asset.cmake. Do not edit.\n"
"#include <string_view>\n"
"namespace lockstep::report::assets {\n"
"extern const std::string_view ${SYMBOL};\n"
"const std::string_view ${SYMBOL} = R\"lockstep_asset(${body})lockstep_asset\";\n"
"}  // namespace lockstep::report::assets\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.new" "${OUTPUT}")
file(REMOVE "${OUTPUT}.new")
