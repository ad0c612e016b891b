// Request handling of tilebench-runner (see RunnerSession.h and docs/runner-protocol.md).
#include "RunnerSession.h"

#include "CuptiRequests.h"
#include "FillValues.h"
#include "MappedFile.h"
#include "engine/gpu/Base64.h"
#include "engine/gpu/TensorMapSpec.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <thread>
#include <utility>

namespace tb::runner {

using gpu::ProtocolLine;

namespace {

constexpr uint64_t kMaxBufferBytes = uint64_t(16) << 30;
constexpr int kMaxRepeat = 100000;
constexpr int kMaxWarmup = 10000;

bool parseUnsigned(const std::string& text, uint64_t max, uint64_t& out) {
    if (text.empty() || text.size() > 20)
        return false;
    uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        if (v > (max - uint64_t(c - '0')) / 10)
            return false;
        v = v * 10 + uint64_t(c - '0');
    }
    out = v;
    return true;
}

bool parseDouble(const std::string& text, double& out) {
    if (text.empty())
        return false;
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end && *end == '\0';
}

bool parseInt64(const std::string& text, int64_t& out) {
    if (text.empty())
        return false;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (!end || *end != '\0' || errno == ERANGE)
        return false;
    out = v;
    return true;
}

// "x", "x,y" or "x,y,z", each at least 1.
bool parseDim3(const std::string& text, unsigned dims[3]) {
    dims[0] = dims[1] = dims[2] = 1;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        uint64_t v = 0;
        if (!parseUnsigned(part, 0x7fffffffu, v) || v == 0)
            return false;
        dims[i] = static_cast<unsigned>(v);
        if (comma == std::string::npos)
            return true;
        start = comma + 1;
    }
    return false; // more than three components
}

std::string formatMs(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", ms);
    return buf;
}

// "sm_90a" -> (9, 0, true). False when the text is not sm_<digits>[a|f].
bool parseArch(const std::string& arch, int& major, int& minor, bool& specific) {
    if (arch.rfind("sm_", 0) != 0)
        return false;
    std::string digits = arch.substr(3);
    specific = !digits.empty() && (digits.back() == 'a' || digits.back() == 'f');
    if (specific)
        digits.pop_back();
    if (digits.size() < 2 || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        return false;
    minor = digits.back() - '0';
    major = std::atoi(digits.substr(0, digits.size() - 1).c_str());
    return true;
}

} // namespace

RunnerSession::RunnerSession(RunnerBackend& backend, bool fake, std::FILE* out)
    : m_backend(backend), m_fake(fake), m_out(out) {}

bool RunnerSession::expectsPayload(const ProtocolLine& request) {
    return (request.verb == "load" || request.verb == "write") && request.has("base64");
}

void RunnerSession::writeLine(std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), m_out);
    std::fputc('\n', m_out);
    std::fflush(m_out);
}

void RunnerSession::ok(std::string_view rest) {
    // Written in pieces rather than as "ok " + rest: a read reply carries megabytes of base64.
    std::fputs("ok", m_out);
    if (!rest.empty()) {
        std::fputc(' ', m_out);
        std::fwrite(rest.data(), 1, rest.size(), m_out);
    }
    std::fputc('\n', m_out);
    std::fflush(m_out);
}

void RunnerSession::error(const std::string& code, const std::string& message) {
    std::string oneLine = message;
    std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
    writeLine("error " + code + " " + oneLine);
}

bool RunnerSession::finish(const BackendStatus& status) {
    if (status.kind == BackendStatus::Kind::Fault) {
        std::string oneLine = status.message;
        std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
        writeLine("fault " + status.code + " " + oneLine);
        m_exitCode = 3;
        return false;
    }
    error(status.code, status.message);
    return true;
}

bool RunnerSession::handle(const std::string& line, const std::string* payloadLine) {
    ProtocolLine r = gpu::parseProtocolLine(line);
    if (r.verb.empty()) {
        error("bad-request", "empty request line");
        return true;
    }
    if (r.verb == "hello")
        return hello(r);
    if (r.verb == "devices")
        return devices(r);
    if (r.verb == "load")
        return load(r, payloadLine);
    if (r.verb == "unload")
        return unload(r);
    if (r.verb == "alloc")
        return alloc(r);
    if (r.verb == "free")
        return free(r);
    if (r.verb == "fill")
        return fill(r);
    if (r.verb == "write")
        return write(r, payloadLine);
    if (r.verb == "read")
        return read(r);
    if (r.verb == "launch")
        return launchOrTime(r, /*timed=*/false);
    if (r.verb == "time")
        return launchOrTime(r, /*timed=*/true);
    if (r.verb == "tensormap")
        return tensormap(r);
    if (m_cupti && m_cupti->handles(r.verb))
        return m_cupti->handle(r, *this);
    if (r.verb == "quit") {
        ok("bye");
        m_exitCode = 0;
        return false;
    }
    error("unknown-command",
          "unknown request '" + r.verb + "' (protocol " + std::to_string(gpu::kRunnerProtocolVersion) + ")");
    return true;
}

bool RunnerSession::hello(const ProtocolLine& r) {
    std::string version = std::to_string(gpu::kRunnerProtocolVersion);
    if (r.words.size() != 1 || r.words[0] != version) {
        error("version-mismatch", "this runner speaks protocol " + version + ", the client asked for " +
                                      (r.words.empty() ? std::string("none") : r.words[0]));
        return true;
    }
    std::string line = "tilebench-runner " + version + " gpus=" + std::to_string(m_backend.devices().size()) +
                       " mode=" + m_backend.mode() + " device=" + std::to_string(m_backend.selectedDevice());
    if (m_backend.devices().empty())
        line += " reason=" + gpu::escapeProtocolValue(m_backend.unavailableReason());
    ok(line);
    return true;
}

bool RunnerSession::devices(const ProtocolLine&) {
    for (const gpu::GpuDeviceInfo& d : m_backend.devices()) {
        writeLine("device " + std::to_string(d.index) + " cc=" + std::to_string(d.ccMajor) + "." +
                  std::to_string(d.ccMinor) + " arch=" + d.nativeArch() +
                  " sms=" + std::to_string(d.smCount) + " mem=" + std::to_string(d.totalMemoryBytes) +
                  " smem_block=" + std::to_string(d.sharedPerBlockBytes) +
                  " smem_optin=" + std::to_string(d.sharedPerBlockOptinBytes) +
                  " smem_sm=" + std::to_string(d.sharedPerSmBytes) + " l2=" + std::to_string(d.l2Bytes) +
                  " clock_khz=" + std::to_string(d.clockKhz) + " mem_clock_khz=" +
                  std::to_string(d.memoryClockKhz) + " bus_bits=" + std::to_string(d.memoryBusWidthBits) +
                  " regs_block=" + std::to_string(d.registersPerBlock) + " warp=" +
                  std::to_string(d.warpSize) + " max_threads_block=" + std::to_string(d.maxThreadsPerBlock) +
                  " max_threads_sm=" + std::to_string(d.maxThreadsPerSm) +
                  " name=" + gpu::escapeProtocolValue(d.name));
    }
    std::string line = "devices count=" + std::to_string(m_backend.devices().size());
    if (m_backend.devices().empty())
        line += " reason=" + gpu::escapeProtocolValue(m_backend.unavailableReason());
    ok(line);
    return true;
}

bool RunnerSession::payloadBytes(const ProtocolLine& r, const std::string* payload, std::vector<char>& out) {
    if (r.has("file")) {
        std::string why;
        std::optional<MappedFile> file = MappedFile::openForRead(r.field("file"), why);
        if (!file) {
            error("io-error", why);
            return false;
        }
        const char* data = static_cast<const char*>(file->data());
        out.assign(data, data + file->size());
        return true;
    }
    if (!r.has("base64")) {
        error("bad-request", r.verb + " needs file=<path> or base64=<bytes> followed by a payload line");
        return false;
    }
    uint64_t expected = 0;
    if (!parseUnsigned(r.field("base64"), kMaxBufferBytes, expected)) {
        error("bad-request", "base64=" + r.field("base64") + " is not a byte count");
        return false;
    }
    if (!payload) {
        error("bad-payload", "the payload line is missing");
        return false;
    }
    std::string_view text = *payload;
    if (!text.empty() && text.back() == '\r')
        text.remove_suffix(1);
    if (!gpu::decodeBase64(text, out)) {
        error("bad-payload", "the payload line is not valid base64");
        return false;
    }
    if (out.size() != expected) {
        error("bad-payload", "the payload decodes to " + std::to_string(out.size()) +
                                 " bytes, base64=" + std::to_string(expected) + " announced");
        return false;
    }
    return true;
}

bool RunnerSession::load(const ProtocolLine& r, const std::string* payload) {
    std::vector<char> cubin;
    bool haveBytes = payloadBytes(r, payload, cubin); // always consume the payload, even for a bad request
    if (!haveBytes)
        return true;
    if (r.words.size() != 3) {
        error("bad-request", "usage: load <module-id> <arch> <kernel-name> (file=<path> | base64=<bytes>)");
        return true;
    }
    const std::string& id = r.words[0];
    const std::string& arch = r.words[1];
    const std::string& kernel = r.words[2];
    if (cubin.size() < 4 || std::memcmp(cubin.data(),
                                        "\x7f"
                                        "ELF",
                                        4) != 0) {
        error("bad-cubin", "the module is not an ELF cubin (" + std::to_string(cubin.size()) + " bytes)");
        return true;
    }
    int major = 0, minor = 0;
    bool specific = false;
    if (!parseArch(arch, major, minor, specific)) {
        error("bad-request", "arch '" + arch + "' is not of the form sm_XY or sm_XYa");
        return true;
    }
    const auto& devices = m_backend.devices();
    int index = m_backend.selectedDevice();
    if (index < 0 || index >= static_cast<int>(devices.size())) {
        error("no-device", devices.empty() ? m_backend.unavailableReason()
                                           : "device " + std::to_string(index) + " does not exist");
        return true;
    }
    const gpu::GpuDeviceInfo& d = devices[static_cast<size_t>(index)];
    // A cubin runs on its own major version with an equal or newer minor; an a/f cubin only on exactly its
    // CC.
    if (major != d.ccMajor || minor > d.ccMinor || (specific && minor != d.ccMinor)) {
        error("arch-mismatch", "a cubin for " + arch + " cannot run on device " + std::to_string(index) +
                                   " (CC " + std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) +
                                   ", " + d.nativeArch() + ")");
        return true;
    }
    KernelAttributes attributes;
    BackendStatus s = m_backend.loadModule(id, kernel, cubin, attributes);
    if (!s.ok())
        return finish(s);
    m_modules[id] = Module{kernel, false, {}, {}};
    ok("load " + gpu::escapeProtocolValue(id) + " kernel=" + gpu::escapeProtocolValue(kernel) + " regs=" +
       std::to_string(attributes.registers) + " smem=" + std::to_string(attributes.staticSharedBytes) +
       " local=" + std::to_string(attributes.localBytes) + " max_threads=" +
       std::to_string(attributes.maxThreadsPerBlock) + " bytes=" + std::to_string(cubin.size()));
    return true;
}

bool RunnerSession::unload(const ProtocolLine& r) {
    if (r.words.size() != 1) {
        error("bad-request", "usage: unload <module-id>");
        return true;
    }
    if (!m_modules.erase(r.words[0])) {
        error("unknown-module", "no module '" + r.words[0] + "' is loaded");
        return true;
    }
    BackendStatus s = m_backend.unloadModule(r.words[0]);
    if (!s.ok())
        return finish(s);
    ok("unload " + gpu::escapeProtocolValue(r.words[0]));
    return true;
}

bool RunnerSession::alloc(const ProtocolLine& r) {
    uint64_t bytes = 0;
    if (r.words.size() != 2 || !parseUnsigned(r.words[1], kMaxBufferBytes, bytes) || bytes == 0) {
        error("bad-request", "usage: alloc <buffer> <bytes> (1 to " + std::to_string(kMaxBufferBytes) + ")");
        return true;
    }
    if (m_buffers.count(r.words[0])) {
        error("buffer-exists", "buffer '" + r.words[0] + "' already exists; free it first");
        return true;
    }
    uint64_t address = 0;
    BackendStatus s = m_backend.allocate(bytes, address);
    if (!s.ok())
        return finish(s);
    m_buffers[r.words[0]] = Buffer{address, bytes};
    ok("alloc " + gpu::escapeProtocolValue(r.words[0]) + " bytes=" + std::to_string(bytes));
    return true;
}

bool RunnerSession::free(const ProtocolLine& r) {
    auto it = r.words.size() == 1 ? m_buffers.find(r.words[0]) : m_buffers.end();
    if (it == m_buffers.end()) {
        error(r.words.size() == 1 ? "unknown-buffer" : "bad-request",
              r.words.size() == 1 ? "no buffer '" + r.words[0] + "'" : "usage: free <buffer>");
        return true;
    }
    BackendStatus s = m_backend.release(it->second.address);
    m_buffers.erase(it);
    for (auto map = m_tensorMaps.begin(); map != m_tensorMaps.end();)
        map = map->second.buffer == r.words[0] ? m_tensorMaps.erase(map) : std::next(map);
    if (!s.ok())
        return finish(s);
    ok("free " + gpu::escapeProtocolValue(r.words[0]));
    return true;
}

bool RunnerSession::fill(const ProtocolLine& r) {
    if (r.words.size() < 2) {
        error("bad-request", "usage: fill <buffer> <dtype> (seed=<n> [lo=<x>] [hi=<x>] | value=<x> | iota)");
        return true;
    }
    auto it = m_buffers.find(r.words[0]);
    if (it == m_buffers.end()) {
        error("unknown-buffer", "no buffer '" + r.words[0] + "'");
        return true;
    }
    std::optional<FillDtype> dtype = parseFillDtype(r.words[1]);
    if (!dtype) {
        error("bad-dtype", "unknown dtype '" + r.words[1] + "' (f32 f16 bf16 f64 i32 u32 i64 i8 u8)");
        return true;
    }
    bool iota = r.words.size() == 3 && r.words[2] == "iota";
    FillSpec spec;
    if (!isFloatDtype(*dtype)) {
        spec.lo = -8.0;
        spec.hi = 8.0;
    }
    bool bad = (r.has("lo") && !parseDouble(r.field("lo"), spec.lo)) ||
               (r.has("hi") && !parseDouble(r.field("hi"), spec.hi)) ||
               (r.has("value") && !parseDouble(r.field("value"), spec.value)) ||
               (r.has("seed") && !parseUnsigned(r.field("seed"), UINT64_MAX, spec.seed));
    int modes = int(iota) + int(r.has("value")) + int(r.has("seed"));
    if (bad || modes != 1 || !(spec.lo < spec.hi)) {
        error("bad-request", "fill needs exactly one of seed=<n>, value=<x>, iota, and lo < hi");
        return true;
    }
    spec.mode = iota ? FillSpec::Mode::Iota : r.has("seed") ? FillSpec::Mode::Seed : FillSpec::Mode::Value;
    size_t size = static_cast<size_t>(dtypeBytes(*dtype));
    size_t count = it->second.bytes / size;
    std::vector<char> bytes(count * size);
    fillValues(*dtype, spec, count, bytes.data());
    BackendStatus s = m_backend.copyToDevice(it->second.address, bytes.data(), bytes.size());
    if (!s.ok())
        return finish(s);
    ok("fill " + gpu::escapeProtocolValue(r.words[0]) + " count=" + std::to_string(count));
    return true;
}

bool RunnerSession::write(const ProtocolLine& r, const std::string* payload) {
    if (r.has("file"))
        return writeFromFile(r);
    std::vector<char> bytes;
    if (!payloadBytes(r, payload, bytes))
        return true;
    if (r.words.size() != 1) {
        error("bad-request", "usage: write <buffer> (file=<path> | base64=<bytes>)");
        return true;
    }
    auto it = m_buffers.find(r.words[0]);
    if (it == m_buffers.end()) {
        error("unknown-buffer", "no buffer '" + r.words[0] + "'");
        return true;
    }
    if (bytes.size() > it->second.bytes) {
        error("out-of-range", std::to_string(bytes.size()) + " bytes do not fit in buffer '" + r.words[0] +
                                  "' of " + std::to_string(it->second.bytes) + " bytes");
        return true;
    }
    BackendStatus s = m_backend.copyToDevice(it->second.address, bytes.data(), bytes.size());
    if (!s.ok())
        return finish(s);
    ok("write " + gpu::escapeProtocolValue(r.words[0]) + " bytes=" + std::to_string(bytes.size()));
    return true;
}

bool RunnerSession::read(const ProtocolLine& r) {
    if (r.words.size() != 1) {
        error("bad-request", "usage: read <buffer> [file=<path>]");
        return true;
    }
    auto it = m_buffers.find(r.words[0]);
    if (it == m_buffers.end()) {
        error("unknown-buffer", "no buffer '" + r.words[0] + "'");
        return true;
    }
    std::string head =
        "read " + gpu::escapeProtocolValue(r.words[0]) + " bytes=" + std::to_string(it->second.bytes);
    uint64_t inlineMax = 0;
    if (r.has("inline_max") && !parseUnsigned(r.field("inline_max"), UINT64_MAX, inlineMax)) {
        error("bad-request", "inline_max=" + r.field("inline_max") + " is not a byte count");
        return true;
    }
    // Out of band: the device copies straight into the file's pages; small buffers may still come inline.
    if (r.has("file") && !(r.has("inline_max") && it->second.bytes <= inlineMax)) {
        std::string why;
        std::optional<MappedFile> file = MappedFile::createForWrite(r.field("file"), it->second.bytes, why);
        if (!file) {
            error("io-error", why);
            return true;
        }
        BackendStatus s = m_backend.copyFromDevice(file->data(), it->second.address, it->second.bytes);
        if (!s.ok())
            return finish(s);
        file.reset(); // unmapped before the client reads the file
        ok(head + " file=" + gpu::escapeProtocolValue(r.field("file")));
        return true;
    }
    std::vector<char> bytes(it->second.bytes);
    BackendStatus s = m_backend.copyFromDevice(bytes.data(), it->second.address, bytes.size());
    if (!s.ok())
        return finish(s);
    // The payload is encoded in place at the end of the reply: no temporary copies of megabytes.
    head += " base64=";
    gpu::appendBase64(head, bytes.data(), bytes.size());
    ok(head);
    return true;
}

bool RunnerSession::writeFromFile(const ProtocolLine& r) {
    std::string why;
    std::optional<MappedFile> file = MappedFile::openForRead(r.field("file"), why);
    if (!file) {
        error("io-error", why);
        return true;
    }
    if (r.words.size() != 1) {
        error("bad-request", "usage: write <buffer> (file=<path> | base64=<bytes>)");
        return true;
    }
    auto it = m_buffers.find(r.words[0]);
    if (it == m_buffers.end()) {
        error("unknown-buffer", "no buffer '" + r.words[0] + "'");
        return true;
    }
    if (file->size() > it->second.bytes) {
        error("out-of-range", std::to_string(file->size()) + " bytes do not fit in buffer '" + r.words[0] +
                                  "' of " + std::to_string(it->second.bytes) + " bytes");
        return true;
    }
    BackendStatus s = file->size() ? m_backend.copyToDevice(it->second.address, file->data(), file->size())
                                   : BackendStatus::success();
    if (!s.ok())
        return finish(s);
    ok("write " + gpu::escapeProtocolValue(r.words[0]) + " bytes=" + std::to_string(file->size()));
    return true;
}

bool RunnerSession::tensormap(const ProtocolLine& r) {
    std::string name, why;
    gpu::TensorMapSpec spec;
    if (!gpu::parseTensorMapRequest(r, name, spec, why)) {
        error("bad-request", why);
        return true;
    }
    auto buffer = m_buffers.find(spec.buffer);
    if (buffer == m_buffers.end()) {
        error("unknown-buffer", "no buffer '" + spec.buffer + "'");
        return true;
    }
    // The driver's rules, checked here for both backends: the driver itself answers only INVALID_VALUE.
    std::string problem =
        gpu::tensorMapProblem(spec, buffer->second.address + spec.offsetBytes, buffer->second.bytes);
    if (!problem.empty()) {
        error("bad-tensormap", problem);
        return true;
    }
    TensorMap map;
    map.buffer = spec.buffer;
    BackendStatus s = m_backend.encodeTensorMap(spec, buffer->second.address + spec.offsetBytes, map.bytes);
    if (!s.ok())
        return finish(s);
    m_tensorMaps[name] = map;
    ok("tensormap " + gpu::escapeProtocolValue(name) + " buffer=" + gpu::escapeProtocolValue(spec.buffer) +
       " bytes=" + std::to_string(sizeof(TensorMapBytes)));
    return true;
}

bool RunnerSession::simulate(const std::string& what, bool& keepRunning) {
    keepRunning = true;
    if (what == "fault") {
        keepRunning = finish(BackendStatus::fault("CUDA_ERROR_ILLEGAL_ADDRESS",
                                                  "simulated: an illegal memory access was encountered"));
        return true;
    }
    if (what == "hang") {
        for (;;) // a kernel that never finishes; only the client's watchdog ends this
            std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (what == "garbage") {
        writeLine("\x01\x7f\xfe garbage \x02 not a protocol line");
        return true;
    }
    if (what == "crash")
        std::abort();
    error("bad-request", "simulate=" + what + " is not one of fault, hang, garbage, crash");
    return true;
}

bool RunnerSession::prepareLaunch(const ProtocolLine& r, bool allowRepeat, const char* usage,
                                  PreparedLaunch& out) {
    if (r.words.size() != 1) {
        error("bad-request", usage);
        return false;
    }
    auto mod = m_modules.find(r.words[0]);
    if (mod == m_modules.end()) {
        error("unknown-module", "no module '" + r.words[0] + "' is loaded");
        return false;
    }
    LaunchConfig config;
    std::string argsText;
    if (r.has("grid") || !allowRepeat) {
        uint64_t smem = 0;
        if (!r.has("grid") || !r.has("block") || !parseDim3(r.field("grid"), config.grid) ||
            !parseDim3(r.field("block"), config.block) ||
            (r.has("smem") && !parseUnsigned(r.field("smem"), 0x7fffffff, smem))) {
            error("bad-request", usage);
            return false;
        }
        config.sharedBytes = static_cast<unsigned>(smem);
        const std::string cooperative = r.field("cooperative", "0");
        if (cooperative != "0" && cooperative != "1") {
            error("bad-request", "cooperative= is 0 or 1");
            return false;
        }
        config.cooperative = cooperative == "1";
        argsText = r.field("args");
    } else {
        if (!mod->second.haveLaunch) {
            error("bad-request",
                  "time without grid= needs an earlier launch of '" + r.words[0] + "' to repeat");
            return false;
        }
        config = mod->second.lastConfig;
        argsText = mod->second.lastArgs;
    }

    // Kernel parameters: each one's bytes live in `storage`, and `params` points at them.
    std::vector<std::vector<char>> storage;
    std::vector<size_t> offsets;
    size_t start = 0;
    while (start < argsText.size()) {
        size_t comma = argsText.find(',', start);
        std::string arg =
            argsText.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? argsText.size() : comma + 1;
        size_t colon = arg.find(':');
        std::string type = arg.substr(0, colon),
                    text = colon == std::string::npos ? "" : arg.substr(colon + 1);
        std::vector<char> bytes;
        size_t offset = 0; // where the value starts in `bytes` (a tensor map is 64-byte aligned)
        bool good = colon != std::string::npos;
        if (good && type == "tmap") {
            auto m = m_tensorMaps.find(text);
            if (m == m_tensorMaps.end()) {
                error("unknown-tensormap", "argument " + std::to_string(storage.size()) +
                                               ": no tensor map '" + text +
                                               "' (create it with a tensormap request)");
                return false;
            }
            bytes.resize(sizeof(TensorMapBytes) + 64);
            offset = (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
            std::memcpy(bytes.data() + offset, m->second.bytes.bytes, sizeof(TensorMapBytes));
        } else if (good && type == "buf") {
            auto b = m_buffers.find(text);
            if (b == m_buffers.end()) {
                error("unknown-buffer",
                      "argument " + std::to_string(storage.size()) + ": no buffer '" + text + "'");
                return false;
            }
            bytes.resize(8);
            std::memcpy(bytes.data(), &b->second.address, 8);
        } else if (good && (type == "i32" || type == "u32" || type == "i64" || type == "u64")) {
            int64_t v = 0;
            uint64_t u = 0;
            good = type[0] == 'u' ? parseUnsigned(text, UINT64_MAX, u) : parseInt64(text, v);
            if (type[0] == 'u')
                v = static_cast<int64_t>(u);
            bytes.resize(type.substr(1) == "32" ? 4 : 8);
            if (bytes.size() == 4) {
                auto w = static_cast<uint32_t>(v);
                std::memcpy(bytes.data(), &w, 4);
            } else {
                std::memcpy(bytes.data(), &v, 8);
            }
        } else if (good && (type == "f32" || type == "f64")) {
            double d = 0;
            good = parseDouble(text, d);
            bytes.resize(type == "f32" ? 4 : 8);
            if (type == "f32") {
                float f = static_cast<float>(d);
                std::memcpy(bytes.data(), &f, 4);
            } else {
                std::memcpy(bytes.data(), &d, 8);
            }
        } else {
            good = false;
        }
        if (!good) {
            error("bad-argument",
                  "argument " + std::to_string(storage.size()) + " '" + arg +
                      "' is not buf:<name>, tmap:<name>, i32:, u32:, i64:, u64:, f32: or f64:<value>");
            return false;
        }
        storage.push_back(std::move(bytes));
        offsets.push_back(offset);
    }
    out.params.clear();
    for (size_t i = 0; i < storage.size(); ++i)
        out.params.push_back(storage[i].data() + offsets[i]);

    mod->second.haveLaunch = true;
    mod->second.lastConfig = config;
    mod->second.lastArgs = argsText;
    out.id = r.words[0];
    out.kernel = mod->second.kernel;
    out.config = config;
    out.storage = std::move(storage);
    // The vectors' heap buffers moved with them, so the pointers in out.params stay valid.
    return true;
}

bool RunnerSession::launchOrTime(const ProtocolLine& r, bool timed) {
    const char* usage =
        timed ? "usage: time <module-id> [grid=x,y,z block=x,y,z smem=N cooperative=0|1 args=...] warmup=N "
                "repeat=M"
              : "usage: launch <module-id> grid=x,y,z block=x,y,z [smem=N] [cooperative=0|1] [args=a,b,...]";
    if (r.words.size() != 1) {
        error("bad-request", usage);
        return true;
    }
    if (r.has("simulate")) {
        if (!m_fake) {
            error("bad-request", "simulate= is only accepted by a runner started with --fake");
            return true;
        }
        bool keepRunning = true;
        simulate(r.field("simulate"), keepRunning);
        return keepRunning;
    }
    PreparedLaunch prepared;
    if (!prepareLaunch(r, timed, usage, prepared))
        return true;
    LaunchConfig config = prepared.config;
    std::vector<void*>& params = prepared.params;
    const std::string id = gpu::escapeProtocolValue(r.words[0]);
    if (!timed) {
        auto t0 = std::chrono::steady_clock::now();
        BackendStatus s = m_backend.launch(r.words[0], config, params);
        if (!s.ok())
            return finish(s);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ok("launch " + id + " wall_ms=" + formatMs(ms));
        return true;
    }
    uint64_t warmup = 0, repeat = 0;
    if (!parseUnsigned(r.field("warmup", "3"), kMaxWarmup, warmup) ||
        !parseUnsigned(r.field("repeat", "10"), kMaxRepeat, repeat) || repeat == 0) {
        error("bad-request", "warmup=0..10000 and repeat=1..100000");
        return true;
    }
    if (m_cupti && (r.has("clock") || r.has("flush_l2")))
        return m_cupti->time(r, *this, prepared, static_cast<int>(warmup), static_cast<int>(repeat));
    std::vector<double> ms;
    BackendStatus s =
        m_backend.time(r.words[0], config, params, static_cast<int>(warmup), static_cast<int>(repeat), ms);
    if (!s.ok())
        return finish(s);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    double mean = 0;
    for (double v : sorted)
        mean += v;
    mean /= static_cast<double>(n);
    double spread = median > 0 ? 100.0 * (sorted.back() - sorted.front()) / median : 0;
    ok("time " + id + " repeat=" + std::to_string(n) + " warmup=" + std::to_string(warmup) + " median_ms=" +
       formatMs(median) + " min_ms=" + formatMs(sorted.front()) + " max_ms=" + formatMs(sorted.back()) +
       " mean_ms=" + formatMs(mean) + " spread_pct=" + formatMs(spread) + (m_fake ? " simulated=1" : ""));
    return true;
}

} // namespace tb::runner
