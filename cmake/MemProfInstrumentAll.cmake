# Instruments every C and C++ target of a CMake project without editing it:
#
#   cmake -S SRC -B BUILD -DCMAKE_C_COMPILER=clang-22 \
#     -DCMAKE_CXX_COMPILER=clang++-22 \
#     -DCMAKE_PROJECT_INCLUDE=PREFIX/lib/cmake/MemProf/MemProfInstrumentAll.cmake
#
# CMake includes it at the end of every project() call, after the compiler
# checks: the pass's compile options go to every C and C++ target of the
# project's directories, the runtime to every executable, and never to a
# shared library, whose instrumented code calls the program's runtime
# (docs/instrument.md). Directory properties, not CMAKE_<LANG>_FLAGS, so
# that a project which sets its flags outright keeps them; the project's
# own try_compile checks stay uninstrumented.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/MemProfConfig.cmake")
memprof_require_clang22("MemProfInstrumentAll.cmake")
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${MemProf_COMPILE_OPTIONS}>")
add_link_options(
  "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:${MemProf_EXE_LINK_OPTIONS}>")
