// Where tilebench-runner is found (engine/gpu/RunnerLocation.h), in real folder layouts made in a
// temporary directory: an installed prefix (bin/ and libexec/tilebench/), a build tree seen from the app's
// and from a test's folder, a bundle, the environment variable, and nothing at all; and this test binary
// finds the runner its own build made.
#include "engine/gpu/RunnerLocation.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace tb::gpu {

namespace {

namespace fs = std::filesystem;

struct TempTree {
    fs::path root;
    TempTree() {
        std::string pattern = (fs::temp_directory_path() / "tb-runner-location-XXXXXX").string();
        root = ::mkdtemp(pattern.data());
    }
    ~TempTree() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    // An executable file at `relative` (a shell script: only its mode matters).
    fs::path executable(const std::string& relative) {
        fs::path p = root / relative;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << "#!/bin/sh\nexit 0\n";
        fs::permissions(p, fs::perms::owner_all);
        return p;
    }
};

} // namespace

TEST(RunnerLocation, InstalledLayoutFromBin) {
    TempTree t;
    fs::path app = t.executable("prefix/bin/tilebench");
    fs::path runner = t.executable("prefix/libexec/tilebench/tilebench-runner");
    RunnerLocation l = locateRunner(app.string(), nullptr);
    EXPECT_TRUE(l.found);
    EXPECT_EQ(l.source, "installed layout");
    EXPECT_EQ(l.path, runner.string());
}

TEST(RunnerLocation, BuildTreeFromTheAppAndFromATestFolder) {
    TempTree t;
    fs::path runner = t.executable("build/engine/tools/runner/tilebench-runner");
    for (const char* binary : {"build/app/tilebench", "build/engine/tools/tilec/tilec",
                               "build/tests/app/tests_app", "build/tests/engine/gpu/tests_gpu"}) {
        SCOPED_TRACE(binary);
        fs::path exe = t.executable(binary);
        RunnerLocation l = locateRunner(exe.string(), "");
        EXPECT_TRUE(l.found);
        EXPECT_EQ(l.source, "build tree");
        EXPECT_EQ(l.path, runner.string());
    }
}

TEST(RunnerLocation, BesideTheExecutableWinsOverTheOtherLayouts) {
    TempTree t;
    t.executable("build/engine/tools/runner/tilebench-runner");
    fs::path beside = t.executable("build/app/tilebench-runner");
    RunnerLocation l = locateRunner(t.executable("build/app/tilebench").string(), nullptr);
    EXPECT_EQ(l.source, "beside the executable");
    EXPECT_EQ(l.path, beside.string());
}

TEST(RunnerLocation, EnvironmentVariableWinsAndIsChecked) {
    TempTree t;
    fs::path mine = t.executable("elsewhere/my-runner");
    RunnerLocation l = locateRunner(t.executable("prefix/bin/tilebench").string(), mine.c_str());
    EXPECT_EQ(l.source, "TILEBENCH_RUNNER");
    EXPECT_TRUE(l.found);
    EXPECT_EQ(l.path, mine.string());
    RunnerLocation missing = locateRunner(t.executable("prefix/bin/tilebench").string(), "/nonexistent/r");
    EXPECT_FALSE(missing.found);
    EXPECT_EQ(missing.path, "/nonexistent/r");
    EXPECT_NE(describeRunnerLocation(missing).find("is not an executable file"), std::string::npos);
}

TEST(RunnerLocation, NothingFoundFallsBackToPathAndSaysWhatWasSearched) {
    TempTree t;
    fs::path app = t.executable("prefix/bin/tilebench");
    RunnerLocation l = locateRunner(app.string(), nullptr);
    EXPECT_FALSE(l.found);
    EXPECT_EQ(l.source, "PATH");
    EXPECT_EQ(l.path, "tilebench-runner");
    std::string text = describeRunnerLocation(l);
    EXPECT_NE(text.find((t.root / "prefix/libexec/tilebench/tilebench-runner").string()), std::string::npos)
        << text;
    // A plain (non-executable) file is not a runner.
    fs::create_directories(t.root / "prefix/libexec/tilebench");
    std::ofstream(t.root / "prefix/libexec/tilebench/tilebench-runner") << "data";
    fs::permissions(t.root / "prefix/libexec/tilebench/tilebench-runner", fs::perms::owner_read);
    EXPECT_FALSE(locateRunner(app.string(), nullptr).found);
}

#ifdef TILEBENCH_RUNNER_PATH
// This binary (build/tests/engine/gpu/tests_gpu) finds the runner of its own build, with no environment.
TEST(RunnerLocation, ThisTestBinaryFindsItsBuildsRunner) {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    ASSERT_FALSE(ec);
    RunnerLocation l = locateRunner(self.string(), nullptr);
    EXPECT_TRUE(l.found) << describeRunnerLocation(l);
    EXPECT_EQ(l.source, "build tree");
    EXPECT_EQ(fs::path(l.path), fs::path(TILEBENCH_RUNNER_PATH).lexically_normal());
}
#endif

} // namespace tb::gpu
