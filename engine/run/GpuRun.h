// Running a compiled tile program on the GPU and checking it against the CPU reference executor (the
// oracle): take the CUDA the compile line generated from the program's plan (CompileResult::cuda), compile it
// with NVRTC for the device's architecture, upload the
// same seeded inputs the executor uses (allocateParams), launch every kernel in order in the isolated
// runner process (engine/gpu/RunnerClient.h), download the outputs and compare them with the executor's,
// with a tolerance by dtype. Faults and hangs come back as values (the runner restarts); nothing here
// throws, prints or can take the caller down.
#pragma once

#include "engine/codegen/CudaCodegen.h"
#include "engine/exec/HostTensor.h"
#include "engine/exec/InputFill.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/pipeline/Pipeline.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::run {

struct GpuRunOptions {
    uint64_t seed = 0x7113BE7C;
    std::map<std::string, int64_t> dims; // dynamic dims by name; missing ones get 256 (as tilec run --cpu)
    InputFills fills;       // inputs filled otherwise than with random values (made on the host and uploaded)
    std::string runnerPath; // empty: gpu::defaultRunnerPath()
    std::vector<std::string> runnerArguments;
    std::string arch; // empty: the device's native architecture (sm_90a on H200)
    std::chrono::milliseconds watchdog{20000};
    gpu::RunnerClient* client = nullptr;   // reuse a started runner; else one is started for this run
    bool compare = true;                   // run the CPU oracle and compare
    bool useCompileCache = true;           // false: NVRTC compiles even an unchanged source (benchmarks)
    std::string fastCompile;               // NVRTC --Ofast-compile level for a quick run ("", "mid", "max")
    std::vector<std::string> nvrtcOptions; // more NVRTC options, verbatim
    std::string cudaSourceOverride;        // see GpuLaunchOptions
    double atol = -1, rtol = -1;           // override the per-dtype tolerance when >= 0
    // Blocks of a large grid the CPU oracle runs (engine/run/SampledCheck.h): -1 chooses (every block up to
    // 1024, else 256 evenly spread), 0 checks every block, N samples N.
    int64_t oracleBlockSample = -1;
};

struct GpuKernelReport {
    std::string name;
    int registers = -1, spillStoreBytes = -1, spillLoadBytes = -1;
    int64_t dynamicSharedBytes = 0;
    int64_t grid[3] = {1, 1, 1};
    int64_t block[3] = {1, 1, 1};
    double wallMs = 0;
};

struct GpuOutputCheck {
    std::string name;
    int paramIndex = -1;
    ComparisonResult comparison;
    double atol = 0, rtol = 0;
    std::string toleranceSetBy;  // the buffer whose dtype set atol/rtol (engine/run/Tolerance.h)
    int64_t checkedElements = 0; // compared (all of them unless the oracle sampled blocks)
};

enum class GpuRunStage { Plan, Codegen, Compile, Runner, Upload, Launch, Download, Oracle, Compare, Done };
const char* gpuRunStageName(GpuRunStage stage);

struct GpuRunResult {
    bool ran = false;     // every kernel ran and the outputs came back
    bool matches = false; // and they agree with the oracle (or compare was off)
    bool ok() const { return ran && matches; }
    GpuRunStage stage = GpuRunStage::Plan; // the stage that failed, Done when none
    std::string message;                   // why it failed
    bool fault = false;                    // the kernel faulted (illegal address, trap, ...)
    bool timeout = false;                  // the watchdog killed it
    bool runnerRestarted = false;
    std::string arch, device;
    std::vector<GpuKernelReport> kernels;
    std::vector<GpuOutputCheck> outputs;
    // Every parameter after the GPU run: outputs downloaded (when none is marked as an output, those the
    // kernels write); the others are the host tensors the GPU got (zero when compare is off: the runner
    // filled them).
    std::vector<HostTensor> gpuParams;
    std::vector<Diagnostic> diagnostics;
    std::string cudaSource;
    double oracleSeconds = 0;
    std::string oracleBackend; // "jit" or "interpreter" (engine/jit/ProgramExecution.h)
    std::string oracleNote;    // why the interpreter checked the result when the JIT could not
    int64_t oracleBlocks = 0;  // blocks the oracle ran when it sampled (0: every block)
    int64_t gridBlocks = 0;
    // Wall time of each step, in order ("inputs", "upload", "compile+load", "launch",
    // "download", "oracle"): where an edit-to-result run spends its time.
    std::vector<std::pair<std::string, double>> stepMilliseconds;
};

// Runs the program's first PrimFunc. Pre: result.ok().
GpuRunResult runOnGpu(const CompileResult& result, const GpuRunOptions& options);

// A program set up in a runner for repeated launches (tilec bench / profile): its generated CUDA compiled
// with NVRTC (line info on), every kernel loaded as module "<prefix>k<i>" and
// every parameter allocated as buffer "<prefix>p<i>" (each T.alloc_global workspace as "<prefix>w<i>"),
// inputs filled on the device by the runner's seeded `fill` (no host copies, so large problems set up fast;
// outputs stay zeroed). Nothing is launched: the caller times `launchFields[i]` on `moduleIds[i]`. The values
// are not the CPU executor's inputs, so this is for timing, not for checking results (runOnGpu does that).
struct GpuLaunchOptions {
    uint64_t seed = 0x7113BE7C;
    std::map<std::string, int64_t> dims; // dynamic dims by name; missing ones get 256
    std::string arch;                    // empty: the device's native architecture
    std::string prefix;                  // module and buffer name prefix in the runner
    // When given (one tensor per parameter, in order), every parameter is uploaded from it instead of
    // being filled on the device: how `runOnGpu` gives the GPU exactly the CPU executor's inputs.
    const std::vector<HostTensor>* hostParams = nullptr;
    bool useCompileCache = true;
    std::string fastCompile;               // NVRTC --Ofast-compile level ("" = full optimization)
    std::vector<std::string> nvrtcOptions; // more NVRTC options, verbatim
    // An edited copy of the generated CUDA (the same kernels and parameters) compiled in place of it: for
    // trying a change to the generated code against the same launch, tensor maps and oracle.
    std::string cudaSourceOverride;
};

struct GpuLaunchSetup {
    bool ok = false;
    GpuRunStage stage = GpuRunStage::Plan; // the stage that failed, Done when none
    std::string message;
    std::string arch;
    std::string device;                   // the runner's first device, by name
    std::vector<GpuKernelReport> kernels; // wallMs stays 0: nothing ran
    std::vector<std::string> moduleIds;
    std::vector<std::string> launchFields; // "grid=.. block=.. smem=.. [args=..]" per kernel
    std::vector<std::vector<char>> cubins; // per kernel, with line info
    std::vector<std::string> bufferNames;  // the parameters' runner buffers, then the workspaces'
    std::vector<int64_t> paramBytes;       // per parameter, in order
    std::map<std::string, int64_t> dims;
    std::vector<Diagnostic> diagnostics;
    std::string cudaSource;
    // Generated CUDA line -> tile-program range, for placing SASS records on tile-program lines.
    codegen::LineMap lineMap;
    // "upload", "compile+load" (what is left of NVRTC after the upload it overlaps), and
    // "(nvrtc, overlapping the upload)", the compile's own time, which is not a step of its own.
    std::vector<std::pair<std::string, double>> stepMilliseconds;
};

// Pre: result.ok(); `client` started.
GpuLaunchSetup setUpForLaunches(const CompileResult& result, gpu::RunnerClient& client,
                                const GpuLaunchOptions& options);

// The NVRTC options of one generated unit's kernels in setUpForLaunches: `arch`, line info, the unit's own
// options (fast math) and the caller's. One definition, so that a compile made elsewhere with the same
// options (compileAtFullOptimization) is the one the compile cache hands a later setup.
gpu::CudaCompileOptions launchCompileOptions(const codegen::GeneratedUnit& unit, const std::string& arch,
                                             const GpuLaunchOptions& options);

// The program's kernels compiled as Bench and Profile compile them (full optimization, through the compile
// cache), without a runner: after a quick-compile Run, the resources the kernel will really have, and a
// warm cache for the Bench that follows. Pre: result.ok().
struct FullCompile {
    bool ok = false;
    std::string error;
    std::vector<std::pair<std::string, gpu::CudaCompileResult>> kernels; // by kernel name, in order
    double milliseconds = 0;
};
FullCompile compileAtFullOptimization(const CompileResult& result, const std::string& arch);

// The runner's `fill` dtype for a parameter dtype ("f16", "bf16", "f32", ...), or "" when it has none.
const char* runnerFillDtype(ir::DType type);

// Host tensor <-> the bytes the kernel sees (float16/bfloat16 as IEEE bit patterns). Exposed for tests.
std::vector<char> tensorBytes(const HostTensor& tensor);
bool tensorFromBytes(HostTensor& tensor, const std::vector<char>& bytes);

} // namespace tb::run
