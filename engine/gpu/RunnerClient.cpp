// Child-process management and the request/reply loop of RunnerClient (see RunnerClient.h).
#include "engine/gpu/RunnerClient.h"

#include "engine/gpu/Base64.h"
#include "engine/gpu/RunnerProtocol.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace tb::gpu {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kStderrTailBytes = 8192;
// Line buffers up to this size are kept between requests (the operands of a 4096^2 fp16 GEMM fit):
// reusing memory that is already paged in is what makes a multi-MB read fast. Larger ones are released.
constexpr size_t kKeptBufferBytes = size_t(64) << 20;

int millisUntil(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
        return 0;
    return left > 1000000 ? 1000000 : static_cast<int>(left);
}

std::string formatSeconds(std::chrono::milliseconds ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(ms.count()) / 1000.0);
    return buf;
}

std::string describeWaitStatus(int status) {
    if (WIFEXITED(status))
        return "exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
    }
    return "status " + std::to_string(status);
}

// The request's verb, for messages ("launch", "time", ...).
std::string verbOf(const std::string& line) {
    size_t end = line.find(' ');
    return line.substr(0, end);
}

bool isDataVerb(const std::string& verb) {
    return verb == "device" || verb == "info";
}

// Decodes the `base64=` field of an ok line into `out` and cuts it out of the line, so that a multi-MB
// payload is neither parsed word by word nor copied into the reply's fields. A line without the field
// gives no bytes; false when the field is not canonical base64 (base64 needs no percent escapes).
bool takeBase64Field(std::string& line, std::vector<char>& out) {
    size_t key = line.find(" base64=");
    if (key == std::string::npos) {
        out.clear();
        return true;
    }
    size_t start = key + 8, end = line.find(' ', start);
    if (end == std::string::npos)
        end = line.size();
    std::string_view value(line.data() + start, end - start);
    while (!value.empty() && value.back() == '\r') // as parseProtocolLine ignores a trailing CR
        value.remove_suffix(1);
    bool ok = decodeBase64(value, out);
    line.erase(key, end - key);
    return ok;
}

} // namespace

const char* runnerStatusName(RunnerStatus status) {
    switch (status) {
    case RunnerStatus::Ok:
        return "ok";
    case RunnerStatus::Error:
        return "error";
    case RunnerStatus::Fault:
        return "fault";
    case RunnerStatus::Timeout:
        return "timeout";
    case RunnerStatus::Crashed:
        return "crashed";
    case RunnerStatus::ProtocolError:
        return "protocol-error";
    case RunnerStatus::Unavailable:
        return "unavailable";
    }
    return "unknown";
}

std::string RunnerReply::field(const std::string& key, const std::string& fallback) const {
    auto it = fields.find(key);
    return it == fields.end() ? fallback : it->second;
}

RunnerClient::RunnerClient(RunnerOptions options)
    : m_options(std::move(options)), m_transfers(m_options.transferParents) {}

RunnerClient::~RunnerClient() {
    stop();
}

bool RunnerClient::spawn(std::string& error) {
    if (m_options.executable.empty()) {
        error = "no runner executable configured";
        return false;
    }
    if (::access(m_options.executable.c_str(), X_OK) != 0) {
        error = "runner executable " + m_options.executable + " is not there or not executable";
        return false;
    }
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        error = std::string("socketpair failed: ") + std::strerror(errno);
        return false;
    }
    int errPipe[2];
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        error = std::string("pipe failed: ") + std::strerror(errno);
        ::close(sv[0]);
        ::close(sv[1]);
        return false;
    }
    // Everything the child needs is built before fork: after fork only async-signal-safe calls are allowed.
    std::vector<std::string> args = {m_options.executable};
    args.insert(args.end(), m_options.arguments.begin(), m_options.arguments.end());
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t pid = ::fork();
    if (pid < 0) {
        error = std::string("fork failed: ") + std::strerror(errno);
        ::close(sv[0]);
        ::close(sv[1]);
        ::close(errPipe[0]);
        ::close(errPipe[1]);
        return false;
    }
    if (pid == 0) {
        // dup2 clears FD_CLOEXEC on the new descriptors; everything else closes at exec.
        ::dup2(sv[1], 0);
        ::dup2(sv[1], 1);
        ::dup2(errPipe[1], 2);
        // The caller may block or ignore signals; the runner starts with the defaults.
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(sv[1]);
    ::close(errPipe[1]);
    m_socket = sv[0];
    m_stderr = errPipe[0];
    ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
    ::fcntl(m_stderr, F_SETFL, ::fcntl(m_stderr, F_GETFL) | O_NONBLOCK);
    m_pid = pid;
    m_input.clear();
    m_scanned = 0;
    return true;
}

bool RunnerClient::handshake(std::string& error) {
    std::string line = "hello " + std::to_string(kRunnerProtocolVersion);
    RunnerReply reply = request(line, m_options.startupTimeout);
    // request() restarts on failures; during the handshake that would recurse, so it is guarded by
    // m_hello being empty (see restartAfter) and any failure here simply stops the runner.
    if (!reply.ok() || reply.words.size() < 2 || reply.words[0] != "tilebench-runner" ||
        reply.words[1] != std::to_string(kRunnerProtocolVersion)) {
        error =
            "runner handshake failed: " +
            (reply.ok()
                 ? "unexpected hello reply (protocol " + std::to_string(kRunnerProtocolVersion) + " expected)"
                 : std::string(runnerStatusName(reply.status)) + " " + reply.code + " " + reply.message);
        if (m_pid > 0)
            killAndReap();
        return false;
    }
    m_hello = reply;
    return true;
}

bool RunnerClient::start(std::string* error) {
    if (m_pid > 0)
        return true;
    std::string why;
    m_hello = RunnerReply{};
    if (!spawn(why) || !handshake(why)) {
        if (error)
            *error = why;
        return false;
    }
    return true;
}

void RunnerClient::stop() {
    if (m_pid <= 0)
        return;
    sendAll("quit\n", Clock::now() + std::chrono::milliseconds(200));
    // Give it a moment to release the GPU context cleanly before killing it.
    auto deadline = Clock::now() + std::chrono::milliseconds(1000);
    while (Clock::now() < deadline) {
        int status = 0;
        pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid || (r < 0 && errno != EINTR)) {
            m_pid = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (m_pid > 0)
        killAndReap();
    if (m_socket >= 0)
        ::close(m_socket);
    if (m_stderr >= 0)
        ::close(m_stderr);
    m_socket = m_stderr = -1;
    m_pid = -1;
}

std::string RunnerClient::killAndReap() {
    std::string how = "gone";
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int status = 0;
        pid_t r;
        do {
            r = ::waitpid(m_pid, &status, 0);
        } while (r < 0 && errno == EINTR);
        if (r == m_pid)
            how = describeWaitStatus(status);
    }
    drainStderr();
    if (m_socket >= 0)
        ::close(m_socket);
    if (m_stderr >= 0)
        ::close(m_stderr);
    m_socket = m_stderr = -1;
    m_pid = -1;
    m_input.clear();
    m_scanned = 0;
    return how;
}

void RunnerClient::drainStderr() {
    if (m_stderr < 0)
        return;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(m_stderr, buf, sizeof buf);
        if (n > 0) {
            m_stderrTail.append(buf, static_cast<size_t>(n));
            if (m_stderrTail.size() > kStderrTailBytes)
                m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            // EOF: the runner closed stderr (it exited); stop polling a descriptor that is always ready.
            ::close(m_stderr);
            m_stderr = -1;
        }
        break;
    }
}

bool RunnerClient::sendAll(std::string_view bytes, Clock::time_point deadline) {
    size_t sent = 0;
    while (sent < bytes.size()) {
        ssize_t n = ::send(m_socket, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd fds[2] = {{m_socket, POLLOUT, 0}, {m_stderr, POLLIN, 0}};
            int timeout = millisUntil(deadline);
            if (timeout == 0)
                return false;
            if (::poll(fds, m_stderr >= 0 ? 2 : 1, timeout) > 0 && m_stderr >= 0 && (fds[1].revents & POLLIN))
                drainStderr();
            continue;
        }
        return false; // EPIPE, ECONNRESET: the runner is gone
    }
    return true;
}

void RunnerClient::releaseLargeBuffers() {
    if (m_line.capacity() > kKeptBufferBytes)
        std::string().swap(m_line);
    if (m_payload.capacity() > kKeptBufferBytes)
        std::string().swap(m_payload);
    if (m_input.empty() && m_input.capacity() > kKeptBufferBytes)
        std::string().swap(m_input);
}

RunnerClient::ReadResult RunnerClient::readLine(std::string& line, Clock::time_point deadline) {
    for (;;) {
        // Only the bytes that arrived since the last look are searched: a multi-MB line comes in many
        // reads, and scanning the whole buffer after each one would be quadratic.
        size_t newline = m_input.find('\n', m_scanned);
        if (newline != std::string::npos) {
            // Both strings keep their capacity: the next multi-MB line reuses memory already paged in.
            line.assign(m_input, 0, newline);
            m_input.erase(0, newline + 1);
            m_scanned = 0;
            return ReadResult::Line;
        }
        m_scanned = m_input.size();
        if (m_input.size() > kRunnerMaxLineBytes)
            return ReadResult::TooLong;
        pollfd fds[2] = {{m_socket, POLLIN, 0}, {m_stderr, POLLIN, 0}};
        int timeout = millisUntil(deadline);
        if (timeout == 0)
            return ReadResult::Timeout;
        int ready = ::poll(fds, m_stderr >= 0 ? 2 : 1, timeout);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return ReadResult::Timeout;
        if (m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP)))
            drainStderr();
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[65536];
            ssize_t n = ::read(m_socket, buf, sizeof buf);
            if (n > 0)
                m_input.append(buf, static_cast<size_t>(n));
            else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
                return ReadResult::Eof;
        }
    }
}

RunnerReply RunnerClient::restartAfter(RunnerReply reply) {
    if (m_pid > 0)
        killAndReap();
    if (m_hello.status != RunnerStatus::Ok) {
        // Failed during the handshake itself: do not loop; start() reports it.
        return reply;
    }
    std::string error;
    if (start(&error)) {
        ++m_restarts;
        reply.runnerRestarted = true;
        reply.message += "; the runner was restarted";
    } else {
        reply.message += "; restarting the runner failed: " + error;
    }
    return reply;
}

RunnerReply RunnerClient::request(const std::string& line, std::optional<std::chrono::milliseconds> timeout) {
    return request(line, std::string(), timeout);
}

RunnerReply RunnerClient::request(const std::string& line, const std::string& payloadLine,
                                  std::optional<std::chrono::milliseconds> timeout) {
    RunnerReply reply = exchange(line, payloadLine, timeout, nullptr);
    releaseLargeBuffers();
    return reply;
}

RunnerReply RunnerClient::exchange(const std::string& line, const std::string& payloadLine,
                                   std::optional<std::chrono::milliseconds> timeout,
                                   std::vector<char>* base64Out) {
    RunnerReply reply;
    bool handshaking = verbOf(line) == "hello" && m_pid > 0 && m_hello.status != RunnerStatus::Ok;
    if (m_pid <= 0) {
        std::string error;
        if (!start(&error)) {
            reply.status = RunnerStatus::Unavailable;
            reply.code = "runner-unavailable";
            reply.message = error;
            return reply;
        }
    }
    if (line.find('\n') != std::string::npos || payloadLine.find('\n') != std::string::npos) {
        reply.status = RunnerStatus::Error;
        reply.code = "bad-request";
        reply.message = "a request must be one line";
        return reply;
    }
    std::chrono::milliseconds limit = timeout.value_or(m_options.watchdog);
    auto deadline = Clock::now() + limit;
    std::string verb = verbOf(line);

    auto finishBroken = [&](RunnerStatus status, std::string code, std::string message) {
        reply.status = status;
        reply.code = std::move(code);
        reply.message = std::move(message);
        if (handshaking) {
            killAndReap();
            return reply;
        }
        return restartAfter(reply);
    };

    // The payload (possibly many MB) is sent from where it is rather than copied into one request buffer.
    bool sent = sendAll(line + "\n", deadline) &&
                (payloadLine.empty() || (sendAll(payloadLine, deadline) && sendAll("\n", deadline)));
    if (!sent) {
        std::string how = killAndReap();
        return finishBroken(RunnerStatus::Crashed, "runner-crashed",
                            "the runner stopped reading requests before '" + verb + "' (" + how + ")");
    }
    // Each line is read into m_line, whose capacity is kept between requests. A restart (finishBroken)
    // reuses it for the new runner's hello, so `text` is not used after finishBroken is called.
    std::string& text = m_line;
    for (;;) {
        ReadResult r = readLine(text, deadline);
        if (r == ReadResult::Timeout) {
            bool kernel = verb == "launch" || verb == "time";
            std::string what = kernel ? "kernel exceeded the " + formatSeconds(limit) + " watchdog"
                                      : "the runner did not answer '" + verb + "' within the " +
                                            formatSeconds(limit) + " watchdog";
            killAndReap();
            return finishBroken(RunnerStatus::Timeout, "watchdog", what);
        }
        if (r == ReadResult::TooLong) {
            killAndReap();
            return finishBroken(RunnerStatus::ProtocolError, "protocol-error",
                                "the runner sent a line longer than the protocol allows");
        }
        if (r == ReadResult::Eof) {
            std::string how = killAndReap();
            return finishBroken(RunnerStatus::Crashed, "runner-crashed",
                                "the runner exited unexpectedly (" + how + ") while handling '" + verb + "'");
        }
        bool payloadOk = true;
        if (base64Out && text.starts_with("ok "))
            payloadOk = takeBase64Field(text, *base64Out);
        ProtocolLine parsed = parseProtocolLine(text);
        if (parsed.verb == "ok") {
            reply.status = RunnerStatus::Ok;
            reply.words = std::move(parsed.words);
            reply.fields = std::move(parsed.fields);
            if (!payloadOk) {
                reply.status = RunnerStatus::Error;
                reply.code = "bad-payload";
                reply.message = "the reply's base64 payload is not valid base64";
            }
            return reply;
        }
        if (parsed.verb == "error") {
            reply.status = RunnerStatus::Error;
            size_t space = parsed.rest.find(' ');
            reply.code = parsed.rest.substr(0, space);
            reply.message = space == std::string::npos ? std::string() : parsed.rest.substr(space + 1);
            return reply;
        }
        if (parsed.verb == "fault") {
            size_t space = parsed.rest.find(' ');
            std::string name = parsed.rest.substr(0, space);
            std::string message = space == std::string::npos ? std::string() : parsed.rest.substr(space + 1);
            // The runner exits by itself after a fault; killAndReap only collects it.
            killAndReap();
            return finishBroken(RunnerStatus::Fault, name, "kernel fault " + name + ": " + message);
        }
        if (isDataVerb(parsed.verb)) {
            reply.dataLines.push_back(text);
            continue;
        }
        killAndReap();
        return finishBroken(RunnerStatus::ProtocolError, "protocol-error",
                            "the runner sent a line that is not part of protocol " +
                                std::to_string(kRunnerProtocolVersion) + ": " + quoteForMessage(text));
    }
}

RunnerReply RunnerClient::loadCubin(const std::string& moduleId, const std::string& arch,
                                    const std::string& kernelName, const std::vector<char>& cubin) {
    return request("load " + escapeProtocolValue(moduleId) + " " + escapeProtocolValue(arch) + " " +
                       escapeProtocolValue(kernelName) + " base64=" + std::to_string(cubin.size()),
                   encodeBase64(cubin));
}

RunnerReply RunnerClient::writeBuffer(const std::string& buffer, const void* data, size_t bytes) {
    if (bytes > m_options.outOfBandBytes) {
        // Out of band: the line carries the path; the runner copies from the mapped file to the device.
        std::string error;
        for (size_t i = 0; i < m_transfers.parentCount(); ++i) {
            std::string path = m_transfers.fileIn(i, bytes, error);
            if (path.empty())
                continue;
            if (!writeWholeFile(path, data, bytes, error)) {
                ::unlink(path.c_str());
                continue;
            }
            RunnerReply reply =
                request("write " + escapeProtocolValue(buffer) + " file=" + escapeProtocolValue(path));
            ::unlink(path.c_str());
            return reply;
        }
        if ((bytes + 2) / 3 * 4 + 256 > kRunnerMaxLineBytes) {
            RunnerReply reply;
            reply.status = RunnerStatus::Error;
            reply.code = "io-error";
            reply.message = std::to_string(bytes) +
                            " bytes are too many for a line and could not go out of band: " + error;
            return reply;
        }
    }
    // Encoded into m_payload, whose capacity is kept between requests (see kKeptBufferBytes).
    m_payload.clear();
    appendBase64(m_payload, data, bytes);
    return request("write " + escapeProtocolValue(buffer) + " base64=" + std::to_string(bytes), m_payload);
}

RunnerReply RunnerClient::readBuffer(const std::string& buffer, std::vector<char>& out) {
    // The runner answers inline up to inline_max bytes and writes larger buffers to the file. The size is
    // not known here, so a file system without room shows as the runner's io-error: the next one is tried,
    // and last the plain inline read.
    std::string error;
    RunnerReply reply;
    bool answered = false;
    for (size_t i = 0; i < m_transfers.parentCount(); ++i) {
        std::string path = m_transfers.fileIn(i, 0, error);
        if (path.empty())
            continue;
        reply = exchange("read " + escapeProtocolValue(buffer) + " file=" + escapeProtocolValue(path) +
                             " inline_max=" + std::to_string(m_options.outOfBandBytes),
                         std::string(), std::nullopt, &out);
        releaseLargeBuffers();
        if (reply.ok() && reply.fields.count("file")) {
            if (reply.field("file") != path || !readWholeFile(path, out, error)) {
                reply.status = RunnerStatus::Error;
                reply.code = "io-error";
                reply.message = reply.field("file") != path
                                    ? "the runner wrote " + reply.field("file") + ", not " + path
                                    : error;
            }
            reply.fields.erase("file");
        }
        ::unlink(path.c_str());
        answered = !(reply.status == RunnerStatus::Error && reply.code == "io-error");
        if (answered)
            break;
    }
    if (!answered) {
        reply = exchange("read " + escapeProtocolValue(buffer), std::string(), std::nullopt, &out);
        releaseLargeBuffers();
    }
    if (reply.ok() && std::to_string(out.size()) != reply.field("bytes")) {
        reply.status = RunnerStatus::Error;
        reply.code = "bad-payload";
        reply.message = "the read reply carried " + std::to_string(out.size()) +
                        " bytes, not the bytes=" + reply.field("bytes") + " it announced";
    }
    return reply;
}

RunnerReply RunnerClient::createTensorMap(const std::string& name, const TensorMapSpec& spec) {
    // The address and the buffer's size are checked by the runner; everything else can be checked here.
    if (std::string problem = tensorMapProblem(spec, 0); !problem.empty()) {
        RunnerReply reply;
        reply.status = RunnerStatus::Error;
        reply.code = "bad-tensormap";
        reply.message = problem;
        return reply;
    }
    return request(formatTensorMapRequest(name, spec));
}

} // namespace tb::gpu
