# ctest app_installed_runner: installs the build into PREFIX and checks that the installed tilebench finds
# the installed tilebench-runner from its own location, and that the runner starts.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" --strip
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=TILEBENCH_RUNNER "${PREFIX}/bin/tilebench" --runner-info
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(expected "tilebench-runner: ${PREFIX}/libexec/tilebench/tilebench-runner (installed layout)")
string(FIND "${out}" "${expected}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "expected '${expected}', got: ${out}${err}")
endif()
string(FIND "${out}" "runner: started, " started)
if(started LESS 0 OR NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed runner did not start (${rc}): ${out}${err}")
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "${out}")
