// Bench and profile of a compiled tile program, as a library call: take the CUDA of its plan, set
// every kernel up in a runner (run::setUpForLaunches), time each one (CUPTI kernel records), derive TFLOP/s
// and GB/s against the session's ceilings, add the peers (cuBLAS for a GEMM, the previous run from the
// bench history) and, for a profile, the Range Profiler counters and the per-instruction SASS metrics
// placed on CUDA lines (the cubin's line table) and on tile-program lines (the generated unit's line map).
// `tilec bench/profile` and the app's Run panel both call this; neither prints anything here: warnings
// and notes come back in the report. The per-kernel step (profileKernel) also serves hand-written .cu
// files, whose setup is the caller's.
#pragma once

#include "engine/exec/HostTensor.h"
#include "engine/exec/InputFill.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/pipeline/Pipeline.h"
#include "engine/profile/ProfileReport.h"
#include "engine/run/GpuRun.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

enum class ProfileCommand { Bench, Profile };
enum class PeerKind { None, Cublas, Previous };

struct ProgramProfileOptions {
    ProfileCommand command = ProfileCommand::Bench;
    PeerKind vs = PeerKind::None;
    bool flushL2 = false;
    bool events = false; // time with CUDA events instead of CUPTI kernel records
    int warmup = 5, repeat = 20;
    // --vs cublas: our kernel and cuBLAS are timed alternately this many times, so that a change of clock
    // or temperature during the run falls on both; the ratio is of the medians over all rounds.
    int peerRounds = 3;
    std::map<std::string, int64_t> dims;   // dynamic dims by name; missing ones get 256
    std::string arch;                      // empty: the runner's first device's architecture
    std::string fastCompile;               // NVRTC --Ofast-compile level (measuring its cost; "" = full)
    std::vector<std::string> nvrtcOptions; // more NVRTC options, verbatim (measuring what they cost or gain)
    // An edited copy of the generated CUDA timed in place of it (run::GpuLaunchOptions::cudaSourceOverride).
    std::string cudaSourceOverride;
    // Inputs filled otherwise than with random values (index tensors: offsets, column indices): every
    // parameter is then made on the host, as `tilec run` makes it, and uploaded instead of filled on the
    // device, so a kernel whose indices must stay in bounds can be timed and profiled.
    InputFills fills;
    uint64_t fillSeed = 0x7113BE7C; // the host inputs' seed (allocateParams)
    bool ceilings = true;           // measure (once per runner session) copy bandwidth and cuBLAS
    // Bench history: read for --vs previous, appended to after a bench. Empty: not used at all.
    std::string historyPath;
    // Check the outputs once against the CPU executor when the problem is small (never on a simulated
    // runner, whose launches do nothing).
    bool checkCorrectness = true;
    std::string prefix = "bench_"; // module and buffer names in the runner
    // Polled between steps; true stops the work (the report says it was cancelled).
    std::function<bool()> cancelled;
};

// One kernel already loaded in the runner, however it was compiled.
struct KernelTarget {
    std::string subject, kernel;
    std::string moduleId = "k";
    std::string launchFields; // empty: repeat the module's last launch
    int registers = -1, sharedBytes = -1;
    bool dynamicShared = false; // sharedBytes is the launch's dynamic shared memory (generated kernels)
    int64_t blocks = 0;         // the launch's grid size (0: not known, hand-written CUDA)
    WorkCounts work;
    int gemmM = 0, gemmN = 0, gemmK = 0;
    std::string noGemmNote; // why a cuBLAS peer has no shape
    std::string historyFile;
    std::vector<std::pair<std::string, std::string>> params; // the history key's parameters
    const std::vector<char>* cubin = nullptr;                // with line info, for SASS attribution
    // Generated CUDA line -> tile-program line (-1 for boilerplate); empty for hand-written CUDA.
    std::map<int, int> tileLineOfCudaLine;
};

// The parameters of a compiled program made on the host as `tilec run` makes them (seeded random values,
// `o.fills` where given, outputs zeroed), for uploading instead of filling on the device. False, with the
// diagnostics, when they cannot be made (an unknown input name, an unknown dim in a fill).
bool makeFilledInputs(const CompileResult& result, const ProgramProfileOptions& o,
                      std::vector<HostTensor>& params, std::vector<Diagnostic>& diagnostics);

// Times one loaded kernel and adds the peers, the counters and SASS (profile) and the history record
// (bench). `device` and `arch` name the runner's device; warnings (history) are appended to `warnings`.
// Returns whether the timing worked.
bool profileKernel(gpu::RunnerClient& client, const KernelTarget& target,
                   const ProgramProfileOptions& options, const std::string& device, const std::string& arch,
                   const Ceilings& ceilings, ProfileReport& report, std::vector<std::string>& warnings);

// The session's ceilings (zero when not measured, with a warning).
Ceilings sessionCeilings(gpu::RunnerClient& client, const ProgramProfileOptions& options,
                         std::vector<std::string>& warnings);

// The runner's first device: its name and architecture ("sm_90a"); false with `error` when the runner
// has no GPU (the hello reply's reason) or does not answer.
bool runnerDevice(gpu::RunnerClient& client, std::string& name, std::string& arch, std::string& error);
// The runner simulates its devices (`--fake`): launches do nothing.
bool runnerSimulated(gpu::RunnerClient& client);

// The generated unit's line map as attributeSassRecords wants it: generated line -> tile-program line,
// -1 for boilerplate lines (so they are not credited to the statement above them).
std::map<int, int> tileLineMap(const codegen::LineMap& lineMap);

struct ProgramProfileReport {
    bool ok = false;           // every kernel was set up and timed
    bool compileError = false; // failed before the runner ran anything (plan, codegen, NVRTC)
    bool cancelled = false;
    run::GpuRunStage stage = run::GpuRunStage::Done; // where it failed
    std::string error;                               // why (empty when ok)
    std::string file, subject, device, arch;
    std::vector<std::pair<std::string, std::string>> params; // the specialization, sorted by name
    std::vector<Diagnostic> diagnostics;                     // from planning and code generation
    std::vector<ProfileReport> kernels;                      // in launch order
    std::vector<run::GpuKernelReport> launches;              // grid and block of each kernel, same order
    double totalMedianMs = 0;
    WorkCounts work; // of the whole program
    bool simulated = false;
    // Correctness: "correct against the CPU reference executor (max abs err ...)", "not checked (...)".
    std::string correctness;
    bool wrongResults = false;
    bool checkFailed = false; // the check run itself failed
    std::vector<std::string> warnings;
};

// Pre: result.ok(); `client` started (or startable). `file` names the program in the subject and the
// history key.
ProgramProfileReport profileProgram(const CompileResult& result, gpu::RunnerClient& client,
                                    const ProgramProfileOptions& options,
                                    const std::string& file = "program.py");

// The text `tilec bench/profile FILE.py` prints: each kernel's report, the total for several kernels and
// the correctness line.
std::string formatProgramReportText(const ProgramProfileReport& report);
// {"file", "correctness", "totalMedianMs", "reports": [one formatReportJson per kernel]}.
std::string formatProgramReportJson(const ProgramProfileReport& report);

// One line for a run history: "median 297.6 us, spread 0.4%, 462 TFLOP/s, 69.4% of cuBLAS peak, 0.95x the
// speed of cuBLAS" (rates and fractions where they apply; " (SIMULATED)" on a fake runner), and the
// figures it names, over the program's kernels.
struct ProgramHeadline {
    std::string text;
    double spreadPct = 0, tflops = 0, gbps = 0;
};
ProgramHeadline programHeadline(const ProgramProfileReport& report);

// An integer jit parameter of the specialization, 0 when absent or not an integer.
int64_t integerParam(const ir::Module& module, const std::string& name);

// The runner's timing request for these options (warm-up, repeats, L2 flush, CUPTI or CUDA events).
TimingRequest timingRequest(const ProgramProfileOptions& options);
// Work of one launch of the program: 2*M*N*K when it has a T.gemm and integer jit parameters M, N, K
// (then `gemmShape` is set), and the bytes of every parameter (each read or written once).
WorkCounts programWork(const CompileResult& result, const std::vector<int64_t>& paramBytes, int& m, int& n,
                       int& k, bool& gemmShape, bool& hasGemm);

} // namespace tb::profile
