// tilebench-runner: runs compiled kernels for TileBench in a process of its own, so that a kernel that
// faults or hangs never takes the app down. It speaks the line protocol of docs/runner-protocol.md on
// stdin/stdout (one request per line; replies end with an ok, error or fault line) and writes nothing
// else to stdout. --fake answers with simulated devices and no GPU, for tests.
//
// Usage: tilebench-runner [--fake] [--fake-devices=N] [--fake-cupti=MODE] [--device=N] [--version]
// --fake-cupti=available|no-cupti|no-nvperf|permission|another-profiler simulates CUPTI's availability.
#include "CudaBackend.h"
#include "CuptiRequests.h"
#include "FakeBackend.h"
#include "RunnerSession.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

namespace {

bool readLine(std::string& line) {
    if (!std::getline(std::cin, line))
        return false;
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return true;
}

int usage(const char* message) {
    std::fprintf(
        stderr,
        "tilebench-runner: %s\nusage: tilebench-runner [--fake] [--fake-devices=N] [--fake-cupti=MODE] "
        "[--device=N]\n",
        message);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    bool fake = false;
    int fakeDevices = 1;
    int device = 0;
    std::string fakeCupti = "available";
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--fake") {
            fake = true;
        } else if (arg.rfind("--fake-devices=", 0) == 0) {
            fake = true;
            fakeDevices = std::atoi(arg.c_str() + 15);
            if (fakeDevices < 0 || fakeDevices > 16)
                return usage("--fake-devices must be 0..16");
        } else if (arg.rfind("--fake-cupti=", 0) == 0) {
            fake = true;
            fakeCupti = arg.substr(13);
            if (fakeCupti != "available" && fakeCupti != "no-cupti" && fakeCupti != "no-nvperf" &&
                fakeCupti != "permission" && fakeCupti != "another-profiler")
                return usage(
                    "--fake-cupti must be available, no-cupti, no-nvperf, permission or another-profiler");
        } else if (arg.rfind("--device=", 0) == 0) {
            device = std::atoi(arg.c_str() + 9);
        } else if (arg == "--version") {
            std::printf("tilebench-runner protocol %d\n", tb::gpu::kRunnerProtocolVersion);
            return 0;
        } else {
            return usage(("unknown argument " + arg).c_str());
        }
    }
    std::ios::sync_with_stdio(false);

    std::unique_ptr<tb::runner::RunnerBackend> backend;
    std::unique_ptr<tb::runner::CuptiEngine> cupti;
    if (fake) {
        backend = std::make_unique<tb::runner::FakeBackend>(fakeDevices);
        cupti = tb::runner::makeFakeCuptiEngine(fakeDevices == 0 ? "no-cupti" : fakeCupti);
    } else {
        auto cuda = std::make_unique<tb::runner::CudaBackend>(device);
        cupti = tb::runner::makeCudaCuptiEngine(*cuda);
        backend = std::move(cuda);
    }
    // Declared after the backend so that it is destroyed first (it frees device memory it allocated).
    std::unique_ptr<tb::runner::CuptiRequests> profiling;
    tb::runner::RunnerSession session(*backend, fake, stdout);
    if (cupti) {
        profiling = std::make_unique<tb::runner::CuptiRequests>(std::move(cupti));
        session.setCuptiRequests(profiling.get());
    }

    std::string line, payload;
    while (readLine(line)) {
        if (line.size() > tb::gpu::kRunnerMaxLineBytes) {
            std::fputs("error bad-request the request line is too long\n", stdout);
            std::fflush(stdout);
            continue;
        }
        tb::gpu::ProtocolLine request = tb::gpu::parseProtocolLine(line);
        const std::string* payloadLine = nullptr;
        if (tb::runner::RunnerSession::expectsPayload(request)) {
            if (!readLine(payload))
                payload.clear();
            payloadLine = &payload;
        }
        if (!session.handle(line, payloadLine)) {
            int code = session.exitCode();
            if (code != 0) {
                // After a sticky CUDA error the context is unusable; exit without tearing it down.
                std::fflush(stdout);
                std::_Exit(code);
            }
            return code;
        }
    }
    return 0; // the client closed the connection
}
