// NVRTC compilation with ptxas resource parsing and caching, and SASS disassembly through the toolkit's
// command-line tools (see Nvrtc.h).
#include "engine/gpu/Nvrtc.h"

#include "engine/gpu/CompileCache.h"
#include "engine/gpu/CubinElf.h"
#include "engine/support/Stopwatch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#if TILEBENCH_HAS_NVRTC
#include <nvrtc.h>
#include <utility>
#endif

namespace tb::gpu {

namespace {

// The number just before `suffix` in `line` ("256 bytes stack frame" -> 256), or -1.
int numberBefore(const std::string& line, const char* suffix) {
    size_t at = line.find(suffix);
    if (at == std::string::npos)
        return -1;
    size_t end = at;
    while (end > 0 && line[end - 1] == ' ')
        --end;
    size_t begin = end;
    while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9')
        --begin;
    if (begin == end)
        return -1;
    return std::atoi(line.substr(begin, end - begin).c_str());
}

// The name between the first pair of single quotes after `marker`, or empty.
std::string quotedAfter(const std::string& line, const char* marker) {
    size_t at = line.find(marker);
    if (at == std::string::npos)
        return {};
    size_t open = line.find('\'', at);
    size_t close = open == std::string::npos ? open : line.find('\'', open + 1);
    if (close == std::string::npos)
        return {};
    return line.substr(open + 1, close - open - 1);
}

// The cubin is an ELF file whose section-name table holds ".text.<kernel>" for every kernel in it.
bool cubinHasKernel(const std::vector<char>& cubin, const std::string& kernelName) {
    std::string needle = ".text." + kernelName;
    needle.push_back('\0');
    return std::search(cubin.begin(), cubin.end(), needle.begin(), needle.end()) != cubin.end();
}

} // namespace

bool isFastCompileLevel(const std::string& level) {
    return level.empty() || level == "min" || level == "mid" || level == "max";
}

namespace {

std::string cacheKey(const std::string& source, const std::string& kernelName,
                     const CudaCompileOptions& options) {
    std::string key = "nvrtc " + nvrtcVersionString() + "\narch " + options.arch + "\nlineinfo " +
                      (options.lineInfo ? "1" : "0") + "\nkernel " + kernelName + "\n";
    for (const std::string& option : options.extraOptions)
        key += "option " + option + "\n";
    key += "fast-compile " + options.fastCompile + "\n";
    key += "source\n" + source;
    return key;
}

#if TILEBENCH_HAS_NVRTC
std::string nvrtcError(nvrtcResult r) {
    return std::string(nvrtcGetErrorString(r)) + " (" + std::to_string(r) + ")";
}
#endif

} // namespace

std::string nvrtcVersionString() {
#if TILEBENCH_HAS_NVRTC
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return {};
    return std::to_string(major) + "." + std::to_string(minor);
#else
    return {};
#endif
}

PtxasKernelInfo parsePtxasInfo(const std::string& log, const std::string& kernelName) {
    PtxasKernelInfo info;
    std::istringstream lines(log);
    std::string line;
    bool inEntry = false;       // inside "Compiling entry function '<kernelName>'"
    bool propertiesFor = false; // the next stack-frame line belongs to the kernel itself, not a callee
    while (std::getline(lines, line)) {
        if (line.find("Compiling entry function") != std::string::npos) {
            inEntry = quotedAfter(line, "Compiling entry function") == kernelName;
            propertiesFor = false;
            continue;
        }
        if (line.find("Function properties for ") != std::string::npos) {
            std::string name = line.substr(line.find("Function properties for ") + 24);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\r' || name.back() == ':'))
                name.pop_back();
            propertiesFor = name == kernelName;
            continue;
        }
        if (propertiesFor && line.find("bytes stack frame") != std::string::npos) {
            info.stackBytes = numberBefore(line, "bytes stack frame");
            info.spillStoreBytes = numberBefore(line, "bytes spill stores");
            info.spillLoadBytes = numberBefore(line, "bytes spill loads");
            propertiesFor = false;
            continue;
        }
        if (inEntry && line.find("Used ") != std::string::npos &&
            line.find(" registers") != std::string::npos) {
            info.found = true;
            info.registers = numberBefore(line, "registers");
            int smem = numberBefore(line, "bytes smem");
            info.sharedBytes = smem < 0 ? 0 : smem; // ptxas omits the field when the kernel has none
            inEntry = false;
        }
    }
    return info;
}

CudaCompileResult compileCuda(const std::string& source, const std::string& kernelName,
                              const CudaCompileOptions& options) {
    auto t0 = std::chrono::steady_clock::now();
    CudaCompileResult result;
    result.kernelName = kernelName;
#if !TILEBENCH_HAS_NVRTC
    (void)source;
    (void)options;
    result.log = "NVRTC not available in this build (the CUDA toolkit was not found at configure time)";
    result.milliseconds = tb::millisecondsSince(t0);
    return result;
#else
    if (options.arch.rfind("sm_", 0) != 0) {
        result.log = "arch '" + options.arch +
                     "' does not name a real GPU architecture; use e.g. sm_80 or sm_90a (" +
                     "compute_XX gives PTX only and an empty cubin)";
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    if (!isFastCompileLevel(options.fastCompile)) {
        result.log = "fast-compile level '" + options.fastCompile + "' is not one of min, mid, max";
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    std::string key = cacheKey(source, kernelName, options);
    if (options.useCache) {
        if (auto cached = lookupCompileCache(key)) {
            result = *cached;
            result.cacheHit = true;
            result.milliseconds = tb::millisecondsSince(t0);
            return result;
        }
    }

    std::vector<std::string> args = {"--gpu-architecture=" + options.arch, "--ptxas-options=-v"};
    if (options.lineInfo)
        args.push_back("--generate-line-info");
    if (!options.fastCompile.empty())
        args.push_back("--Ofast-compile=" + options.fastCompile);
    args.insert(args.end(), options.extraOptions.begin(), options.extraOptions.end());
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());

    // NVRTC serializes compiles inside one process anyway; the lock keeps the calls below ordered.
    static std::mutex compileMutex;
    std::lock_guard lock(compileMutex);

    nvrtcProgram program = nullptr;
    std::string sourceName = (kernelName.empty() ? std::string("kernel") : kernelName) + ".cu";
    nvrtcResult r = nvrtcCreateProgram(&program, source.c_str(), sourceName.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS) {
        result.log = "nvrtcCreateProgram failed: " + nvrtcError(r);
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
    size_t logSize = 0;
    if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
        result.log.assign(logSize, '\0');
        nvrtcGetProgramLog(program, result.log.data());
        result.log.resize(logSize - 1); // drop the terminating NUL
    }
    if (compiled != NVRTC_SUCCESS) {
        result.log = "compile failed: " + nvrtcError(compiled) + "\n" + result.log;
        nvrtcDestroyProgram(&program);
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    size_t ptxSize = 0, cubinSize = 0;
    if (nvrtcGetPTXSize(program, &ptxSize) == NVRTC_SUCCESS && ptxSize > 1) {
        result.ptx.assign(ptxSize, '\0');
        nvrtcGetPTX(program, result.ptx.data());
        result.ptx.resize(ptxSize - 1);
    }
    r = nvrtcGetCUBINSize(program, &cubinSize);
    if (r == NVRTC_SUCCESS && cubinSize > 0) {
        result.cubin.resize(cubinSize);
        r = nvrtcGetCUBIN(program, result.cubin.data());
    }
    nvrtcDestroyProgram(&program);
    if (r != NVRTC_SUCCESS || result.cubin.empty()) {
        // nvrtcGetCUBINSize reports SUCCESS with 0 bytes for virtual architectures.
        result.log += "\nno cubin was produced for " + options.arch +
                      (r != NVRTC_SUCCESS ? ": " + nvrtcError(r) : std::string(" (empty cubin)"));
        result.cubin.clear();
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    if (!cubinHasKernel(result.cubin, kernelName)) {
        result.log += "\nkernel '" + kernelName +
                      "' is not in the compiled module (declare it extern \"C\" __global__, or pass its "
                      "mangled name)";
        result.milliseconds = tb::millisecondsSince(t0);
        return result;
    }
    PtxasKernelInfo info = parsePtxasInfo(result.log, kernelName);
    if (!info.found) {
        // NVRTC answered from its ptxas cache (same PTX as an earlier compile) and printed no report; the
        // cubin itself records the registers and the stack frame.
        if (auto resources = cubinFunctionResources(result.cubin, kernelName)) {
            info.registers = resources->registers;
            info.stackBytes = resources->frameBytes;
            // Spills live in the stack frame: with none, there are none (with one, the count is unknown).
            if (resources->frameBytes == 0)
                info.spillStoreBytes = info.spillLoadBytes = 0;
        }
    }
    result.registers = info.registers;
    result.sharedBytes = info.sharedBytes;
    result.spillStoreBytes = info.spillStoreBytes;
    result.spillLoadBytes = info.spillLoadBytes;
    result.stackBytes = info.stackBytes;
    result.ok = true;
    if (options.useCache)
        storeCompileCache(key, result);
    result.milliseconds = tb::millisecondsSince(t0);
    return result;
#endif
}

namespace {

std::string findCudaTool(const char* tool) {
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME"))
        dirs.push_back(std::string(home) + "/bin");
#ifdef TILEBENCH_CUDA_BIN_DIR
    dirs.push_back(TILEBENCH_CUDA_BIN_DIR);
#endif
    dirs.push_back("/usr/local/cuda/bin");
    // Then $PATH: a toolkit without the binary utilities can get them elsewhere (e.g. the
    // nvidia-cuda-nvdisasm wheel's bin/), which is how CI machines without them check SASS.
    if (const char* path = std::getenv("PATH")) {
        std::string all = path;
        for (size_t start = 0; start <= all.size();) {
            size_t colon = all.find(':', start);
            std::string dir =
                all.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!dir.empty())
                dirs.push_back(dir);
            if (colon == std::string::npos)
                break;
            start = colon + 1;
        }
    }
    for (const std::string& dir : dirs) {
        std::string path = dir + "/" + tool;
        if (::access(path.c_str(), X_OK) == 0)
            return path;
    }
    return {};
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

// Runs a command line, returns its combined output when it exits with status 0.
std::optional<std::string> runTool(const std::string& command, std::string& failure) {
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) {
        failure = "could not start: " + command;
        return std::nullopt;
    }
    std::string output;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        output.append(buffer, n);
    int status = ::pclose(pipe);
    if (status != 0 || output.empty()) {
        failure = command + " failed (status " +
                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                  "): " + output.substr(0, 400);
        return std::nullopt;
    }
    return output;
}

} // namespace

std::optional<std::string> disassembleSass(const std::vector<char>& cubin, std::string* reason) {
    auto fail = [&](std::string why) -> std::optional<std::string> {
        if (reason)
            *reason = std::move(why);
        return std::nullopt;
    };
    if (cubin.empty())
        return fail("the cubin is empty");
    std::string nvdisasm = findCudaTool("nvdisasm");
    std::string cuobjdump = findCudaTool("cuobjdump");
    if (nvdisasm.empty() && cuobjdump.empty())
        return fail("neither nvdisasm nor cuobjdump is installed (looked in $CUDA_HOME/bin, "
                    "/usr/local/cuda/bin and $PATH)");

    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/tilebench-sass-XXXXXX.cubin";
    int fd = ::mkstemps(pattern.data(), 6);
    if (fd < 0)
        return fail("could not create a temporary file for the cubin: " + std::string(std::strerror(errno)));
    size_t written = 0;
    while (written < cubin.size()) {
        ssize_t w = ::write(fd, cubin.data() + written, cubin.size() - written);
        if (w <= 0)
            break;
        written += static_cast<size_t>(w);
    }
    ::close(fd);
    if (written != cubin.size()) {
        ::unlink(pattern.c_str());
        return fail("could not write the cubin to " + pattern);
    }
    std::string failures;
    std::optional<std::string> sass;
    if (!nvdisasm.empty()) {
        std::string failure;
        sass =
            runTool(shellQuote(nvdisasm) + " --print-code --print-line-info " + shellQuote(pattern), failure);
        if (!sass)
            failures += failure + "\n";
    }
    if (!sass && !cuobjdump.empty()) {
        std::string failure;
        sass = runTool(shellQuote(cuobjdump) + " -sass " + shellQuote(pattern), failure);
        if (!sass)
            failures += failure + "\n";
    }
    ::unlink(pattern.c_str());
    if (!sass)
        return fail(failures);
    return sass;
}

} // namespace tb::gpu
