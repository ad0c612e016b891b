// Helpers for the profiling tests: the runner binary (fake or real), a minimal cubin-shaped blob that the
// fake runner accepts, running a command line and capturing its output, and a fresh temporary folder.
#pragma once

#include "engine/gpu/RunnerClient.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace tb::profile::test {

inline std::string runnerPath() {
    if (const char* env = std::getenv("TILEBENCH_RUNNER"); env && *env)
        return env;
#ifdef TILEBENCH_RUNNER_PATH
    return TILEBENCH_RUNNER_PATH;
#else
    return gpu::defaultRunnerPath();
#endif
}

inline gpu::RunnerOptions fakeRunner(const std::string& cuptiMode = "available") {
    gpu::RunnerOptions o;
    o.executable = runnerPath();
    o.arguments = {"--fake", "--fake-cupti=" + cuptiMode};
    return o;
}

// The fake backend checks the ELF magic and a `.text.<kernel>` section name, nothing else.
inline std::vector<char> fakeCubin(const std::string& kernel) {
    std::string bytes = std::string("\x7f"
                                    "ELF",
                                    4) +
                        std::string(60, '\0') + ".text." + kernel + std::string(1, '\0');
    return std::vector<char>(bytes.begin(), bytes.end());
}

struct CommandResult {
    int exitCode = -1;
    std::string output; // stdout and stderr
};

inline CommandResult runCommand(const std::string& command) {
    CommandResult r;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe)
        return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
        r.output.append(buf.data(), n);
    int status = pclose(pipe);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

inline std::string freshTempDir(const std::string& name) {
    auto dir =
        std::filesystem::temp_directory_path() / ("tilebench-" + name + "-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace tb::profile::test
