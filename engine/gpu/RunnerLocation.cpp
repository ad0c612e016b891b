// The runner search (see RunnerLocation.h). TILEBENCH_RUNNER_BUILD_RELATIVE (the runner's path under the
// build root) and TILEBENCH_RUNNER_INSTALL_RELATIVE (from the installed bin folder) come from
// engine/gpu/CMakeLists.txt.
#include "engine/gpu/RunnerLocation.h"

#include "engine/gpu/RunnerClient.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

#ifndef TILEBENCH_RUNNER_BUILD_RELATIVE
#define TILEBENCH_RUNNER_BUILD_RELATIVE "engine/tools/runner/tilebench-runner"
#endif
#ifndef TILEBENCH_RUNNER_INSTALL_RELATIVE
#define TILEBENCH_RUNNER_INSTALL_RELATIVE "../libexec/tilebench/tilebench-runner"
#endif

namespace tb::gpu {

namespace {

namespace fs = std::filesystem;

// The deepest executable of a build tree (tests/engine/<folder>/tests_x) sits four folders below the root.
constexpr int kBuildTreeDepth = 5;

bool executableFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

RunnerLocation locateRunner(const std::string& executable, const char* environment) {
    RunnerLocation out;
    if (environment && *environment) {
        out.path = environment;
        out.source = "TILEBENCH_RUNNER";
        out.searched.push_back(out.path);
        out.found = executableFile(out.path);
        return out;
    }
    auto tryPath = [&](const fs::path& candidate, const char* source) {
        fs::path normal = candidate.lexically_normal();
        out.searched.push_back(normal.string());
        if (!executableFile(normal))
            return false;
        out.path = normal.string();
        out.source = source;
        out.found = true;
        return true;
    };
    if (!executable.empty()) {
        fs::path folder = fs::path(executable).parent_path();
        if (tryPath(folder / "tilebench-runner", "beside the executable") ||
            tryPath(folder / TILEBENCH_RUNNER_INSTALL_RELATIVE, "installed layout"))
            return out;
        fs::path up = folder;
        for (int depth = 0; depth < kBuildTreeDepth && !up.empty(); ++depth, up = up.parent_path()) {
            if (tryPath(up / TILEBENCH_RUNNER_BUILD_RELATIVE, "build tree"))
                return out;
            if (up == up.root_path())
                break;
        }
    }
    out.path = "tilebench-runner";
    out.source = "PATH";
    out.searched.push_back("tilebench-runner on $PATH");
    return out;
}

RunnerLocation locateRunner() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return locateRunner(ec ? std::string() : self.string(), std::getenv("TILEBENCH_RUNNER"));
}

std::string describeRunnerLocation(const RunnerLocation& location) {
    if (location.found)
        return "tilebench-runner: " + location.path + " (" + location.source + ")";
    if (location.source == "TILEBENCH_RUNNER")
        return "tilebench-runner: $TILEBENCH_RUNNER=" + location.path + " is not an executable file";
    std::string tried;
    for (const std::string& s : location.searched)
        tried += (tried.empty() ? "" : ", ") + s;
    return "tilebench-runner: not found (searched " + tried + ")";
}

std::string defaultRunnerPath() {
    return locateRunner().path;
}

} // namespace tb::gpu
