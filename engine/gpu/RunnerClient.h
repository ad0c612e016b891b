// The app's side of tilebench-runner: starts the runner as a child process (POSIX fork/exec, one
// socketpair for its stdin/stdout, a pipe for its stderr), sends protocol requests and reads the replies
// with a watchdog. Kernels run in the runner so that a faulting or hanging kernel never takes the caller
// down: a CUDA fault (the runner answers `fault ...` and exits), a watchdog timeout (the runner is killed
// with SIGKILL), a crash (EOF) or a line that is not protocol all end the same way, with a reply that says
// what happened and a fresh runner started for the next request. The caller never sees an exception or a
// signal (writes use MSG_NOSIGNAL, so a dead runner cannot raise SIGPIPE). Qt-free; not thread-safe (use
// one client per thread).
#pragma once

#include "engine/gpu/TensorMapSpec.h"
#include "engine/gpu/TransferFiles.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace tb::gpu {

struct RunnerOptions {
    std::string executable;                          // path to tilebench-runner (see defaultRunnerPath())
    std::vector<std::string> arguments;              // e.g. {"--fake"}
    std::chrono::milliseconds watchdog{10000};       // per request, unless the request passes its own
    std::chrono::milliseconds startupTimeout{10000}; // for the hello handshake
    // Buffer writes and reads larger than this go out of band, through a file in a private directory
    // (mode 0700) shared with the runner, with only its path on the line; smaller ones travel inline as
    // base64. 0 sends everything out of band. (Through a file was faster from 64 KiB up: bench_runner_io.)
    size_t outOfBandBytes = size_t(64) << 10;
    // Where those directories are made, in order of preference (each transfer takes the first with room):
    // empty means /dev/shm (memory, no disk) when writable, then $TMPDIR or /tmp.
    std::vector<std::string> transferParents;
};

enum class RunnerStatus {
    Ok,            // `ok ...`
    Error,         // `error <code> <message>`: the runner is alive, state kept
    Fault,         // `fault <CUDA error> <message>`: the runner exited; a fresh one was started
    Timeout,       // the watchdog fired and the runner was killed; a fresh one was started
    Crashed,       // the runner died without a fault line; a fresh one was started
    ProtocolError, // the runner wrote something that is not protocol; it was killed and restarted
    Unavailable,   // the runner could not be started at all
};
const char* runnerStatusName(RunnerStatus status);

struct RunnerReply {
    RunnerStatus status = RunnerStatus::Unavailable;
    std::string code;               // error code, or the CUDA error name of a fault
    std::string message;            // human-readable; says when the runner was restarted
    std::vector<std::string> words; // positional words of the `ok` line
    std::map<std::string, std::string> fields;
    std::vector<std::string> dataLines; // lines before the final one (`device ...`)
    bool runnerRestarted = false;       // modules and buffers of the old runner are gone

    bool ok() const { return status == RunnerStatus::Ok; }
    std::string field(const std::string& key, const std::string& fallback = {}) const;
};

class RunnerClient {
public:
    explicit RunnerClient(RunnerOptions options);
    ~RunnerClient();
    RunnerClient(const RunnerClient&) = delete;
    RunnerClient& operator=(const RunnerClient&) = delete;

    // Starts the runner and checks `hello`. Requests start it lazily too.
    bool start(std::string* error = nullptr);
    // Sends `quit`, waits a moment, then kills the runner if it is still there.
    void stop();
    bool isRunning() const { return m_pid > 0; }
    pid_t pid() const { return m_pid; }
    int restartCount() const { return m_restarts; }
    // The hello reply of the current runner (fields gpus=, mode=).
    const RunnerReply& helloReply() const { return m_hello; }
    // The last few KB the runner wrote to stderr (for bug reports).
    const std::string& stderrTail() const { return m_stderrTail; }

    // One request line (no newline), optionally followed by one payload line (base64), as the protocol
    // requires for `load ... base64=N` and `write ... base64=N`.
    RunnerReply request(const std::string& line,
                        std::optional<std::chrono::milliseconds> timeout = std::nullopt);
    RunnerReply request(const std::string& line, const std::string& payloadLine,
                        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    // Conveniences over request().
    RunnerReply loadCubin(const std::string& moduleId, const std::string& arch, const std::string& kernelName,
                          const std::vector<char>& cubin);
    // Above RunnerOptions::outOfBandBytes through a transfer file, else inline.
    RunnerReply writeBuffer(const std::string& buffer, const void* data, size_t bytes);
    // On success `out` holds the buffer's bytes (its capacity is reused); on failure its contents are
    // unspecified. Small buffers come inline, decoded into `out` straight from the reply line; larger ones
    // through a transfer file. Either way the reply's fields have `bytes=` but no `base64=` or `file=`.
    RunnerReply readBuffer(const std::string& buffer, std::vector<char>& out);
    // `tensormap <name> ...` for a TMA tensor map over a buffer (TensorMapSpec.h); kernels then take it as
    // args=tmap:<name>. A spec that breaks the driver's rules is answered here, without a request, as
    // Error bad-tensormap with the same message the runner would give.
    RunnerReply createTensorMap(const std::string& name, const TensorMapSpec& spec);
    // The private transfer directories that out-of-band transfers made so far (removed by the destructor).
    const std::vector<std::string>& transferDirectories() const { return m_transfers.directories(); }

private:
    enum class ReadResult { Line, Timeout, Eof, TooLong };

    bool spawn(std::string& error);
    bool handshake(std::string& error);
    std::string killAndReap(); // returns how the process ended ("exit status 3", "signal 9")
    bool sendAll(std::string_view bytes, std::chrono::steady_clock::time_point deadline);
    ReadResult readLine(std::string& line, std::chrono::steady_clock::time_point deadline);
    void releaseLargeBuffers(); // after a request: frees line and payload buffers too large to keep
    void drainStderr();
    RunnerReply restartAfter(RunnerReply reply);
    // request(), and with `base64Out` the `base64=` field of the ok line is decoded into it (see
    // readBuffer) instead of being kept in the reply's fields.
    RunnerReply exchange(const std::string& line, const std::string& payloadLine,
                         std::optional<std::chrono::milliseconds> timeout, std::vector<char>* base64Out);

    RunnerOptions m_options;
    pid_t m_pid = -1;
    int m_socket = -1;
    int m_stderr = -1;
    std::string m_input;   // bytes read from the runner but not yet consumed as lines
    size_t m_scanned = 0;  // m_input[0, m_scanned) holds no newline
    std::string m_line;    // the line request() is handling
    std::string m_payload; // writeBuffer's base64
    std::string m_stderrTail;
    RunnerReply m_hello;
    int m_restarts = 0;
    TransferFiles m_transfers;
};

// The runner this executable should use: locateRunner().path (engine/gpu/RunnerLocation.h).
std::string defaultRunnerPath();

} // namespace tb::gpu
