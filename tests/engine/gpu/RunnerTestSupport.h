// Helpers for the runner tests: where the runner binary is, and whether a process id is still alive.
#pragma once

#include "engine/gpu/RunnerClient.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

namespace tb::gpu::test {

// $TILEBENCH_RUNNER wins, so the test binary can run from a copied build tree on another machine.
inline std::string runnerPath() {
    if (const char* env = std::getenv("TILEBENCH_RUNNER"); env && *env)
        return env;
#ifdef TILEBENCH_RUNNER_PATH
    return TILEBENCH_RUNNER_PATH;
#else
    return defaultRunnerPath();
#endif
}

inline RunnerOptions fakeRunner(std::chrono::milliseconds watchdog = std::chrono::milliseconds(10000)) {
    RunnerOptions options;
    options.executable = runnerPath();
    options.arguments = {"--fake"};
    options.watchdog = watchdog;
    return options;
}

// The smallest thing the fake runner accepts as a cubin: ELF magic and a .text.<kernel> section name.
inline std::vector<char> fakeCubin(const std::string& kernel) {
    std::string bytes = std::string("\x7f"
                                    "ELF",
                                    4) +
                        std::string(60, '\0') + ".text." + kernel;
    bytes.push_back('\0');
    return std::vector<char>(bytes.begin(), bytes.end());
}

// True while the process exists and has not been reaped.
inline bool processExists(pid_t pid) {
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

} // namespace tb::gpu::test
