// Compiling generated CUDA C++ to a CUBIN in-process with NVRTC, and disassembling a CUBIN to SASS.
//
// compileCuda always asks ptxas for its verbose report (--ptxas-options=-v) and parses the per-kernel
// "Used N registers ... N bytes smem" and "N bytes stack frame, N bytes spill stores, N bytes spill loads"
// lines of the compile log for the requested kernel; the figures are what ptxas reports, so they match
// cuFuncGetAttribute's NUM_REGS and SHARED_SIZE_BYTES for static shared memory. Results are cached by a
// hash of source, kernel name, options and the NVRTC version (an in-memory LRU plus an optional on-disk
// directory, see CompileCache.h). When the engine is built without the CUDA toolkit, compileCuda returns
// ok=false with the log "NVRTC not available in this build".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tb::gpu {

struct CudaCompileOptions {
    // A real architecture (sm_80, sm_90a, ...). compute_XX is rejected: NVRTC gives an empty cubin for it.
    std::string arch = "sm_90a";
    bool lineInfo = true; // --generate-line-info, so SASS maps back to source lines
    std::vector<std::string> extraOptions;
    bool useCache = true;
    // NVRTC's --Ofast-compile level: "" (full optimization), "mid" or "max". Trades kernel speed for compile
    // time: the interactive Run uses it, bench and profile never do (docs/benchmarks.md has both costs).
    std::string fastCompile;
};

// Whether `level` is a fast-compile level compileCuda accepts ("", "min", "mid", "max").
bool isFastCompileLevel(const std::string& level);

struct CudaCompileResult {
    bool ok = false;
    std::string log; // the NVRTC/ptxas log, or why nothing was compiled
    std::string ptx;
    std::vector<char> cubin;
    // From ptxas -v for `kernelName`. When NVRTC's ptxas cache answered (no report in the log), registers
    // and stackBytes come from the cubin's .nv.info and the rest stay -1.
    int registers = -1;
    int sharedBytes = -1; // static shared memory
    int spillStoreBytes = -1;
    int spillLoadBytes = -1;
    int stackBytes = -1;
    double milliseconds = 0; // wall time of this call (a cache hit is fast)
    bool cacheHit = false;
    std::string kernelName;
};

// Compiles `source` (self-contained CUDA; add -I options for toolkit headers) and checks that the cubin is
// non-empty and holds `kernelName` (the name as it appears in the cubin: use extern "C" for plain names).
CudaCompileResult compileCuda(const std::string& source, const std::string& kernelName,
                              const CudaCompileOptions& options);

// "13.0" (the NVRTC the engine was built with), or empty when NVRTC is not available.
std::string nvrtcVersionString();

// The resource figures ptxas -v printed for one kernel, parsed out of a compile log. Exposed for tests.
struct PtxasKernelInfo {
    bool found = false;
    int registers = -1, sharedBytes = -1, spillStoreBytes = -1, spillLoadBytes = -1, stackBytes = -1;
};
PtxasKernelInfo parsePtxasInfo(const std::string& log, const std::string& kernelName);

// SASS text of a cubin from the toolkit's nvdisasm (falling back to cuobjdump -sass). nullopt when neither
// tool is installed or it fails; `reason` (optional) then says why.
std::optional<std::string> disassembleSass(const std::vector<char>& cubin, std::string* reason = nullptr);

} // namespace tb::gpu
