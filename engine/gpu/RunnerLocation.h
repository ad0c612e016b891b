// Where tilebench-runner is, found the same way from every binary (tilec, tilebench, the benchmarks, the
// tests) in a build tree and in an installed layout, relative to the executable's own location:
// $TILEBENCH_RUNNER when set; beside the executable (a bundle); the installed layout's helper folder
// (PREFIX/bin/tilebench -> PREFIX/libexec/tilebench/tilebench-runner); the build tree's runner, found by
// walking up from the executable's folder to the build root (build/app/tilebench and
// build/tests/app/tests_app -> build/engine/tools/runner/tilebench-runner; a build tree copied elsewhere
// works too). CMake writes both relative paths into RunnerLocation.cpp. Failing all of those,
// "tilebench-runner" on $PATH.
#pragma once

#include <string>
#include <vector>

namespace tb::gpu {

struct RunnerLocation {
    std::string path;   // what to execute (absolute, or the bare name for a $PATH lookup)
    std::string source; // "TILEBENCH_RUNNER", "beside the executable", "installed layout", "build tree",
                        // "PATH"
    bool found = false; // an executable file is there (false for "PATH": exec looks it up)
    std::vector<std::string> searched; // the candidates tried, in order
};

// For the executable at `executable` (absolute; empty when unknown); `environment` is $TILEBENCH_RUNNER
// (nullptr or empty: unset).
RunnerLocation locateRunner(const std::string& executable, const char* environment);
// For the running executable (/proc/self/exe) and the real environment.
RunnerLocation locateRunner();
// "tilebench-runner: /path (build tree)", or what was searched when it was not found.
std::string describeRunnerLocation(const RunnerLocation& location);

} // namespace tb::gpu
