// The protocol half of tilebench-runner: parses each request line (docs/runner-protocol.md), keeps the
// names of loaded modules and allocated buffers, calls the backend, and writes the response lines.
// Recoverable problems are `error <code> <message>` lines and the session goes on; a backend Fault is
// written as `fault <CUDA error> <message>` and ends the session with exit status 3.
#pragma once

#include "RunnerBackend.h"
#include "engine/gpu/RunnerProtocol.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tb::runner {

class CuptiRequests;

class RunnerSession {
public:
    // `fake` allows simulate=fault|hang|garbage|crash on launch and time.
    RunnerSession(RunnerBackend& backend, bool fake, std::FILE* out);

    // Requests whose line announces a payload (base64=N on load and write) are followed by one more line.
    static bool expectsPayload(const gpu::ProtocolLine& request);

    // Handles one request; false when the runner must exit (after quit or a fault), see exitCode().
    bool handle(const std::string& line, const std::string* payloadLine);
    int exitCode() const { return m_exitCode; }

    // Profiling requests (profiler, metrics, sass, ceilings, cublas, and time with clock= or flush_l2=) go
    // to this handler when set; without it they are unknown commands, as in a runner before them.
    void setCuptiRequests(CuptiRequests* handler) { m_cupti = handler; }

    // What protocol extensions need from the session: a request's launch resolved to a module, a
    // configuration and kernel parameters (from grid=/block=/smem=/args=, or the module's last launch
    // when the request has no grid=), and the reply writers.
    struct PreparedLaunch {
        std::string id;
        std::string kernel;
        LaunchConfig config;
        std::vector<std::vector<char>> storage; // the bytes of each argument
        std::vector<void*> params;              // pointers into storage
    };
    // False after writing the error line (bad usage, unknown module or buffer, bad argument).
    bool prepareLaunch(const gpu::ProtocolLine& r, bool allowRepeat, const char* usage, PreparedLaunch& out);
    RunnerBackend& backend() { return m_backend; }
    bool fake() const { return m_fake; }
    void writeLine(std::string_view line);
    void ok(std::string_view rest);
    void error(const std::string& code, const std::string& message);
    bool finish(const BackendStatus& status); // writes error/fault; false when the runner must exit

private:
    struct Buffer {
        uint64_t address = 0;
        size_t bytes = 0;
    };
    struct Module {
        std::string kernel;
        bool haveLaunch = false;
        LaunchConfig lastConfig;
        std::string lastArgs;
    };

    bool hello(const gpu::ProtocolLine& r);
    bool devices(const gpu::ProtocolLine& r);
    bool load(const gpu::ProtocolLine& r, const std::string* payload);
    bool unload(const gpu::ProtocolLine& r);
    bool alloc(const gpu::ProtocolLine& r);
    bool free(const gpu::ProtocolLine& r);
    bool fill(const gpu::ProtocolLine& r);
    bool write(const gpu::ProtocolLine& r, const std::string* payload);
    bool read(const gpu::ProtocolLine& r);
    bool launchOrTime(const gpu::ProtocolLine& r, bool timed);
    bool tensormap(const gpu::ProtocolLine& r);
    bool
    writeFromFile(const gpu::ProtocolLine& r); // write <buf> file=<path>, device copy from the mapped file

    // Reads the cubin/data of a request from file=<path> or the base64 payload line.
    bool payloadBytes(const gpu::ProtocolLine& r, const std::string* payload, std::vector<char>& out);
    // simulate=... in fake mode; returns true when it handled the request itself.
    bool simulate(const std::string& what, bool& keepRunning);

    RunnerBackend& m_backend;
    bool m_fake;
    std::FILE* m_out;
    int m_exitCode = 0;
    std::map<std::string, Buffer> m_buffers;
    std::map<std::string, Module> m_modules;
    struct TensorMap {
        std::string buffer; // freeing the buffer drops the map
        TensorMapBytes bytes;
    };
    std::map<std::string, TensorMap> m_tensorMaps;
    CuptiRequests* m_cupti = nullptr;
};

} // namespace tb::runner
