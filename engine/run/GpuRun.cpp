// GPU execution of a tile program against the CPU oracle; see GpuRun.h.
#include "engine/run/GpuRun.h"

#include "engine/exec/Executor.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/gpu/TensorMapSpec.h"
#include "engine/ir/IrQueries.h"
#include "engine/jit/ProgramExecution.h"
#include "engine/run/SampledCheck.h"
#include "engine/run/Tolerance.h"
#include "engine/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <set>

namespace tb::run {

const char* gpuRunStageName(GpuRunStage stage) {
    switch (stage) {
    case GpuRunStage::Plan:
        return "plan";
    case GpuRunStage::Codegen:
        return "codegen";
    case GpuRunStage::Compile:
        return "compile";
    case GpuRunStage::Runner:
        return "runner";
    case GpuRunStage::Upload:
        return "upload";
    case GpuRunStage::Launch:
        return "launch";
    case GpuRunStage::Download:
        return "download";
    case GpuRunStage::Oracle:
        return "oracle";
    case GpuRunStage::Compare:
        return "compare";
    case GpuRunStage::Done:
        return "done";
    }
    return "?";
}

namespace {

// Every kernel of `unit` compiled by NVRTC with the same options, in launch order.
std::vector<gpu::CudaCompileResult> compileKernels(const std::string& source,
                                                   const codegen::GeneratedUnit& unit,
                                                   const gpu::CudaCompileOptions& options) {
    std::vector<gpu::CudaCompileResult> results;
    for (const codegen::GeneratedKernel& gk : unit.kernels)
        results.push_back(gpu::compileCuda(source, gk.name, options));
    return results;
}

// Appends (step name, milliseconds since the previous step) to a run's step timings.
class StepClock {
public:
    explicit StepClock(std::vector<std::pair<std::string, double>>& steps)
        : m_steps(steps), m_start(std::chrono::steady_clock::now()) {}
    void operator()(const char* name) {
        auto now = std::chrono::steady_clock::now();
        m_steps.emplace_back(name, std::chrono::duration<double, std::milli>(now - m_start).count());
        m_start = now;
    }
    void restart() { m_start = std::chrono::steady_clock::now(); }

private:
    std::vector<std::pair<std::string, double>>& m_steps;
    std::chrono::steady_clock::time_point m_start;
};

std::string field(const std::string& line, const std::string& key) {
    size_t p = line.find(" " + key + "=");
    if (p == std::string::npos)
        return "";
    p += key.size() + 2;
    size_t e = line.find(' ', p);
    return line.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

} // namespace

std::vector<char> tensorBytes(const HostTensor& t) {
    // Host tensors are stored as the GPU stores them (TensorStorage).
    std::vector<char> out(size_t(std::max<int64_t>(t.elementCount(), 0)) * size_t(ir::dtypeBytes(t.dtype)));
    std::memcpy(out.data(), t.data.bytes(), std::min(out.size(), t.data.byteSize()));
    return out;
}

bool tensorFromBytes(HostTensor& t, const std::vector<char>& bytes) {
    const size_t n = size_t(std::max<int64_t>(t.elementCount(), 0));
    if (bytes.size() < n * size_t(ir::dtypeBytes(t.dtype)))
        return false;
    t.data = TensorStorage(t.dtype, n);
    std::memcpy(t.data.bytes(), bytes.data(), t.data.byteSize());
    return true;
}

namespace {

// The element count of a global buffer at these dynamic dims; nullopt when a dim is unknown, negative or
// the count is absurd (over 2^40).
std::optional<int64_t> elementCountOf(const ir::Buffer& b, const std::map<std::string, int64_t>& dims) {
    int64_t count = 1;
    for (const ir::ExprPtr& e : b.shape) {
        auto extent = codegen::evaluateLaunchExpr(e, dims);
        if (!extent || *extent < 0 || (*extent > 0 && count > (int64_t(1) << 40) / *extent))
            return std::nullopt;
        count *= *extent;
    }
    return count;
}

// The runner buffer of a global tensor: parameters are the first names, workspaces follow in order.
std::string runnerBufferOf(const ir::PrimFunc& func, const std::vector<std::string>& names,
                           const ir::Buffer* tensor) {
    size_t index = tensor->paramIndex >= 0 ? size_t(tensor->paramIndex) : func.params.size();
    if (tensor->paramIndex < 0) {
        auto it = std::find(func.workspaces.begin(), func.workspaces.end(), tensor);
        index += size_t(it - func.workspaces.begin());
    }
    return index < names.size() ? names[index] : std::string();
}

// The TMA dtype of a tensor's element type (tile copies do not care about signedness).
std::optional<gpu::TensorMapDtype> tensorMapDtypeOf(ir::DType type) {
    switch (ir::dtypeBytes(type)) {
    case 1:
        return gpu::TensorMapDtype::U8;
    case 2:
        return type == ir::DType::BFloat16  ? gpu::TensorMapDtype::BF16
               : type == ir::DType::Float16 ? gpu::TensorMapDtype::F16
                                            : gpu::TensorMapDtype::U16;
    case 4:
        return type == ir::DType::Float32 ? gpu::TensorMapDtype::F32 : gpu::TensorMapDtype::U32;
    default:
        return std::nullopt;
    }
}

// The tensor map of a kernel's TMA parameter over the runner buffer `buffer`: the global tensor's extents
// (innermost first) and byte strides, the plan's box and swizzle.
std::optional<gpu::TensorMapSpec> tensorMapSpecOf(const codegen::KernelParam& p, const std::string& buffer,
                                                  const std::map<std::string, int64_t>& dims,
                                                  std::string& why) {
    const ir::Buffer* b = p.buffer;
    std::optional<gpu::TensorMapDtype> dtype = tensorMapDtypeOf(b->dtype);
    if (!dtype || !p.tma || b->rank() < 1 || b->rank() > 5 || p.tma->box.size() != b->rank()) {
        why = "no tensor map for " + b->name;
        return std::nullopt;
    }
    gpu::TensorMapSpec spec;
    spec.buffer = buffer;
    spec.dtype = *dtype;
    spec.rank = int(b->rank());
    uint64_t pitch = uint64_t(ir::dtypeBytes(b->dtype));
    for (size_t g = 0; g < b->rank(); ++g) {
        std::optional<int64_t> extent = codegen::evaluateLaunchExpr(b->shape[b->rank() - 1 - g], dims);
        if (!extent || *extent < 1) {
            why = "cannot evaluate the shape of " + b->name;
            return std::nullopt;
        }
        spec.dims[g] = uint64_t(*extent);
        spec.box[g] = uint32_t(p.tma->box[g]);
        if (g > 0)
            spec.strides[g - 1] = pitch;
        pitch *= uint64_t(*extent);
    }
    spec.swizzle = p.tma->swizzleBytes == 128  ? gpu::TensorMapSwizzle::B128
                   : p.tma->swizzleBytes == 64 ? gpu::TensorMapSwizzle::B64
                   : p.tma->swizzleBytes == 32 ? gpu::TensorMapSwizzle::B32
                                               : gpu::TensorMapSwizzle::None;
    return spec;
}

// The unit the codegen pass generated for the program's first PrimFunc, or nullptr (with `why`).
const codegen::GeneratedUnit* generatedUnit(const CompileResult& result, std::string& why) {
    if (!result.ok() || !result.module || result.module->funcs.empty()) {
        why = "the program did not compile";
        return nullptr;
    }
    if (!result.cuda || !result.cuda->ok || result.cuda->units.empty()) {
        why = "CUDA generation failed";
        return nullptr;
    }
    return &result.cuda->units.front();
}

} // namespace

const char* runnerFillDtype(ir::DType type) {
    switch (type) {
    case ir::DType::Float16:
        return "f16";
    case ir::DType::BFloat16:
        return "bf16";
    case ir::DType::Float32:
        return "f32";
    case ir::DType::Float64:
        return "f64";
    case ir::DType::Int32:
        return "i32";
    case ir::DType::UInt32:
        return "u32";
    case ir::DType::Int64:
        return "i64";
    case ir::DType::Int8:
        return "i8";
    case ir::DType::UInt8:
        return "u8";
    case ir::DType::Bool:
    case ir::DType::Int16:
    case ir::DType::UInt16:
    case ir::DType::UInt64:
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
        return "";
    }
    return "";
}

gpu::CudaCompileOptions launchCompileOptions(const codegen::GeneratedUnit& unit, const std::string& arch,
                                             const GpuLaunchOptions& options) {
    gpu::CudaCompileOptions co;
    co.arch = arch;
    co.lineInfo = true;
    co.useCache = options.useCompileCache;
    co.fastCompile = options.fastCompile;
    co.extraOptions = unit.nvrtcOptions;
    co.extraOptions.insert(co.extraOptions.end(), options.nvrtcOptions.begin(), options.nvrtcOptions.end());
    return co;
}

FullCompile compileAtFullOptimization(const CompileResult& result, const std::string& arch) {
    FullCompile out;
    auto start = std::chrono::steady_clock::now();
    const codegen::GeneratedUnit* generated = generatedUnit(result, out.error);
    if (!generated)
        return out;
    const codegen::GeneratedUnit& unit = *generated;
    std::vector<gpu::CudaCompileResult> compiled =
        compileKernels(unit.source, unit, launchCompileOptions(unit, arch, {}));
    out.ok = true;
    for (size_t k = 0; k < compiled.size(); ++k) {
        const std::string& name = unit.kernels[k].name;
        if (!compiled[k].ok && out.ok)
            out.error = "NVRTC failed for " + name + ": " + compiled[k].log;
        out.ok = out.ok && compiled[k].ok;
        out.kernels.emplace_back(name, std::move(compiled[k]));
    }
    out.milliseconds = millisecondsSince(start);
    return out;
}

GpuLaunchSetup setUpForLaunches(const CompileResult& result, gpu::RunnerClient& client,
                                const GpuLaunchOptions& options) {
    GpuLaunchSetup out;
    DiagnosticEngine diags;
    auto finish = [&](GpuRunStage stage, std::string message) {
        out.stage = stage;
        out.message = std::move(message);
        out.ok = stage == GpuRunStage::Done;
        out.diagnostics = diags.diagnostics();
        return out;
    };
    if (!result.ok() || !result.module || result.module->funcs.empty())
        return finish(GpuRunStage::Plan, "the program did not compile");
    const ir::Module& module = *result.module;
    const ir::PrimFunc& func = module.funcs.front();
    StepClock step(out.stepMilliseconds);
    // The CUDA of the program's own plan (the codegen pass): what the views show is what runs.
    std::string why;
    const codegen::GeneratedUnit* generated = generatedUnit(result, why);
    if (!generated)
        return finish(GpuRunStage::Codegen, why);
    const codegen::GeneratedUnit& unit = *generated;
    out.cudaSource = options.cudaSourceOverride.empty() ? unit.source : options.cudaSourceOverride;
    out.lineMap = unit.lineMap;
    out.dims = options.dims;
    for (const ir::Var* v : func.dynamicDims)
        out.dims.emplace(v->name, 256);

    gpu::RunnerReply devices = client.request("devices");
    if (!devices.ok() || devices.dataLines.empty())
        return finish(GpuRunStage::Runner,
                      "no GPU available: " +
                          (devices.ok() ? devices.field("reason", "no devices") : devices.message));
    out.arch = options.arch.empty() ? field(devices.dataLines.front(), "arch") : options.arch;
    out.device = gpu::unescapeProtocolValue(field(devices.dataLines.front(), "name"));
    if (out.arch.empty())
        out.arch = "sm_80";
    if (options.hostParams && options.hostParams->size() != func.params.size())
        return finish(GpuRunStage::Upload, "one host tensor per parameter is needed");

    // NVRTC runs on its own thread while the runner allocates and fills the parameters: the two do not
    // depend on each other, and the compile is the longest step of an edit-to-result run.
    std::future<std::vector<gpu::CudaCompileResult>> compiling =
        std::async(std::launch::async, compileKernels, std::cref(out.cudaSource), std::cref(unit),
                   launchCompileOptions(unit, out.arch, options));

    // Parameters: sizes from the shapes, allocated (zeroed), then uploaded from the host tensors when
    // given, else inputs filled on the device.
    std::string args;
    for (const ir::Buffer* b : func.params) {
        std::optional<int64_t> elements = elementCountOf(*b, out.dims);
        if (!elements)
            return finish(GpuRunStage::Upload, "cannot evaluate the shape of " + b->name);
        const int64_t count = *elements;
        int64_t bytes = count * ir::dtypeBytes(b->dtype);
        std::string name = options.prefix + "p" + std::to_string(out.bufferNames.size());
        out.bufferNames.push_back(name);
        out.paramBytes.push_back(bytes);
        client.request("free " + name); // a reused runner may still hold it
        gpu::RunnerReply a =
            client.request("alloc " + name + " " + std::to_string(std::max<int64_t>(bytes, 16)));
        if (!a.ok())
            return finish(GpuRunStage::Upload, "alloc " + b->name + ": " + a.message);
        std::string dtype = runnerFillDtype(b->dtype);
        if (options.hostParams) {
            std::vector<char> host = tensorBytes((*options.hostParams)[out.bufferNames.size() - 1]);
            if (!host.empty()) {
                gpu::RunnerReply w = client.writeBuffer(name, host.data(), host.size());
                if (!w.ok())
                    return finish(GpuRunStage::Upload, "write " + b->name + ": " + w.message);
            }
        } else if (!b->isOutput && !dtype.empty() && count > 0) {
            gpu::RunnerReply f =
                client.request("fill " + name + " " + dtype + " seed=" + std::to_string(options.seed));
            if (!f.ok())
                return finish(GpuRunStage::Upload, "fill " + b->name + ": " + f.message);
        }
        args += (args.empty() ? "buf:" : ",buf:") + name;
    }
    // T.alloc_global workspaces: allocated (zeroed) for the whole run, after the parameters, in the
    // kernels' parameter order; nothing is uploaded or read back.
    for (size_t w = 0; w < func.workspaces.size(); ++w) {
        const ir::Buffer* b = func.workspaces[w];
        std::optional<int64_t> elements = elementCountOf(*b, out.dims);
        if (!elements)
            return finish(GpuRunStage::Upload, "cannot evaluate the shape of workspace " + b->name);
        const int64_t bytes = *elements * ir::dtypeBytes(b->dtype);
        std::string name = options.prefix + "w" + std::to_string(w);
        out.bufferNames.push_back(name);
        client.request("free " + name);
        gpu::RunnerReply a =
            client.request("alloc " + name + " " + std::to_string(std::max<int64_t>(bytes, 16)));
        if (!a.ok())
            return finish(GpuRunStage::Upload, "alloc workspace " + b->name + ": " + a.message);
        args += (args.empty() ? "buf:" : ",buf:") + name;
    }
    for (const ir::Var* v : func.dynamicDims)
        args += std::string(args.empty() ? "" : ",") + (v->dtype == ir::DType::Int64 ? "i64:" : "i32:") +
                std::to_string(out.dims[v->name]);

    step("upload");
    // Kernels: the compile's results, load, and the launch line each one is timed with.
    std::vector<gpu::CudaCompileResult> compiled = compiling.get();
    double nvrtcMs = 0;
    for (size_t k = 0; k < unit.kernels.size(); ++k) {
        const codegen::GeneratedKernel& gk = unit.kernels[k];
        gpu::CudaCompileResult& cr = compiled[k];
        nvrtcMs += cr.milliseconds;
        if (!cr.ok)
            return finish(GpuRunStage::Compile, "NVRTC failed for " + gk.name + ": " + cr.log);
        GpuKernelReport report;
        report.name = gk.name;
        report.registers = cr.registers;
        report.spillStoreBytes = cr.spillStoreBytes;
        report.spillLoadBytes = cr.spillLoadBytes;
        report.dynamicSharedBytes = gk.launch.dynamicSharedBytes;
        for (int d = 0; d < 3; ++d) {
            auto g = codegen::evaluateLaunchExpr(gk.launch.grid[size_t(d)], out.dims);
            if (!g || *g < 1)
                return finish(GpuRunStage::Launch, "cannot evaluate the grid of " + gk.name);
            report.grid[d] = *g;
            report.block[d] = gk.launch.block[d];
        }
        std::string id = options.prefix + "k" + std::to_string(k);
        gpu::RunnerReply l = client.loadCubin(id, out.arch, gk.name, cr.cubin);
        if (!l.ok())
            return finish(GpuRunStage::Launch, "load " + gk.name + ": " + l.message);
        // The kernel's TMA tensor maps, built by the runner over the parameters' buffers, after the tensors.
        std::string kernelArgs = args;
        for (const codegen::KernelParam& p : gk.params) {
            if (p.kind != codegen::KernelParamKind::TensorMap)
                continue;
            std::string why;
            std::optional<gpu::TensorMapSpec> spec = tensorMapSpecOf(
                p, runnerBufferOf(func, out.bufferNames, ir::storageOf(p.buffer)), out.dims, why);
            if (!spec)
                return finish(GpuRunStage::Launch, why);
            std::string name = id + "_" + p.name;
            gpu::RunnerReply t = client.createTensorMap(name, *spec);
            if (!t.ok())
                return finish(GpuRunStage::Launch, "tensor map of " + p.buffer->name + ": " + t.message);
            kernelArgs += (kernelArgs.empty() ? "tmap:" : ",tmap:") + name;
        }
        out.moduleIds.push_back(id);
        out.launchFields.push_back("grid=" + std::to_string(report.grid[0]) + "," +
                                   std::to_string(report.grid[1]) + "," + std::to_string(report.grid[2]) +
                                   " block=" + std::to_string(report.block[0]) + "," +
                                   std::to_string(report.block[1]) + "," + std::to_string(report.block[2]) +
                                   " smem=" + std::to_string(report.dynamicSharedBytes) +
                                   (gk.launch.cooperative ? " cooperative=1" : "") +
                                   (kernelArgs.empty() ? "" : " args=" + kernelArgs));
        out.kernels.push_back(report);
        out.cubins.push_back(std::move(cr.cubin));
    }
    step("compile+load");
    out.stepMilliseconds.emplace_back("(nvrtc, overlapping the upload)", nvrtcMs);
    return finish(GpuRunStage::Done, "");
}

namespace {

// The CPU executor's limits when it checks a GPU run. The kernels ran to completion on the GPU, so the
// oracle's loops end: its step limit only bounds the time, and a program at its own size takes far more than
// the default's 2^32 steps. Programs at their own size also hold larger tensors than the default's 2^28
// elements (the persistent MLA decode's KV cache is 2^29): up to 2^30, 8 GiB of doubles on the host.
ExecutionLimits oracleLimits() {
    ExecutionLimits limits;
    limits.maxSteps = int64_t(1) << 40;
    limits.maxBufferElements = int64_t(1) << 30;
    return limits;
}

} // namespace

GpuRunResult runOnGpu(const CompileResult& result, const GpuRunOptions& options) {
    GpuRunResult out;
    DiagnosticEngine diags;
    auto finish = [&](GpuRunStage stage, std::string message) {
        out.stage = stage;
        out.message = std::move(message);
        out.diagnostics = diags.diagnostics();
        return out;
    };
    if (!result.ok() || result.module->funcs.empty())
        return finish(GpuRunStage::Plan, "the program did not compile");
    const ir::Module& module = *result.module;
    const ir::PrimFunc& func = module.funcs.front();

    StepClock step(out.stepMilliseconds);
    // Inputs, exactly as the CPU executor gets them, when the result is compared with it; otherwise the
    // runner fills them on the device (no host inputs to make and upload).
    std::map<std::string, int64_t> dims = options.dims;
    for (const ir::Var* v : func.dynamicDims)
        dims.emplace(v->name, 256);
    // Filled inputs are made on the host even without a comparison: the runner only fills random values.
    const bool hostInputs = options.compare || !options.fills.empty();
    std::vector<HostTensor> params =
        allocateParams(func, dims, options.seed, diags, oracleLimits(), hostInputs, options.fills);
    if (diags.hasErrors())
        return finish(GpuRunStage::Upload, "cannot allocate the parameters");

    // The runner.
    std::unique_ptr<gpu::RunnerClient> owned;
    gpu::RunnerClient* client = options.client;
    if (!client) {
        gpu::RunnerOptions ro;
        ro.executable = options.runnerPath.empty() ? gpu::defaultRunnerPath() : options.runnerPath;
        ro.arguments = options.runnerArguments;
        ro.watchdog = options.watchdog;
        owned = std::make_unique<gpu::RunnerClient>(ro);
        client = owned.get();
    }
    std::string startError;
    if (!client->isRunning() && !client->start(&startError))
        return finish(GpuRunStage::Runner, "cannot start tilebench-runner: " + startError);
    step("inputs");

    // Compile, load and upload: the same setup `tilec bench` times.
    GpuLaunchOptions launchOptions;
    launchOptions.seed = options.seed;
    launchOptions.dims = dims;
    launchOptions.arch = options.arch;
    launchOptions.hostParams = hostInputs ? &params : nullptr;
    launchOptions.useCompileCache = options.useCompileCache;
    launchOptions.fastCompile = options.fastCompile;
    launchOptions.nvrtcOptions = options.nvrtcOptions;
    launchOptions.cudaSourceOverride = options.cudaSourceOverride;
    GpuLaunchSetup setup = setUpForLaunches(result, *client, launchOptions);
    out.cudaSource = setup.cudaSource;
    out.arch = setup.arch;
    out.device = setup.device;
    out.kernels = setup.kernels;
    for (const Diagnostic& d : setup.diagnostics)
        diags.report(d);
    out.stepMilliseconds.insert(out.stepMilliseconds.end(), setup.stepMilliseconds.begin(),
                                setup.stepMilliseconds.end());
    step.restart();
    if (!setup.ok)
        return finish(setup.stage, setup.message);
    const std::vector<std::string>& names = setup.bufferNames;

    auto failedReply = [&](GpuRunStage stage, const gpu::RunnerReply& reply, const std::string& what) {
        out.fault = reply.status == gpu::RunnerStatus::Fault;
        out.timeout = reply.status == gpu::RunnerStatus::Timeout;
        out.runnerRestarted = reply.runnerRestarted;
        return finish(stage, what + ": " + reply.message);
    };

    // Launch in order.
    for (size_t k = 0; k < setup.moduleIds.size(); ++k) {
        std::string line = "launch " + setup.moduleIds[k] + " " + setup.launchFields[k];
        gpu::RunnerReply lr = client->request(line, options.watchdog);
        if (!lr.ok())
            return failedReply(GpuRunStage::Launch, lr, "kernel " + setup.kernels[k].name);
        out.kernels[k].wallMs = std::atof(lr.field("wall_ms", "0").c_str());
    }
    step("launch");

    // Download and compare the outputs: the parameters marked as outputs or, when none is marked (the seed
    // article's GEMM), every parameter the kernels write; the others come back unchanged.
    const std::vector<bool> compared = ir::producedParams(func);
    // A parameter that is read back gets its data from the download alone: copying the host tensor's data
    // first would touch megabytes (zeros when the runner filled the inputs) only to overwrite them.
    std::vector<char> bytes; // one buffer for all reads: memory already paged in is faster to decode into
    for (size_t i = 0; i < params.size(); ++i) {
        if (!compared[i]) {
            out.gpuParams.push_back(params[i]);
            continue;
        }
        HostTensor& downloaded = out.gpuParams.emplace_back();
        downloaded.name = params[i].name;
        downloaded.dtype = params[i].dtype;
        downloaded.shape = params[i].shape;
        gpu::RunnerReply rd = client->readBuffer(names[i], bytes);
        if (!rd.ok())
            return failedReply(GpuRunStage::Download, rd, "read " + params[i].name);
        if (!tensorFromBytes(downloaded, bytes))
            return finish(GpuRunStage::Download, "cannot decode " + params[i].name);
    }
    for (const auto& n : names)
        client->request("free " + n);
    step("download");
    out.ran = true;
    if (!options.compare) {
        out.matches = true;
        return finish(GpuRunStage::Done, "");
    }

    // The oracle: every block, or at the program's own (large) size an even sample of them (then once or
    // twice, to tell which elements the sample writes: SampledCheck.h).
    const OracleSample sample = chooseOracleSample(module, func, dims, options.oracleBlockSample);
    out.oracleBlocks = sample.blocks;
    out.gridBlocks = sample.gridBlocks;
    if (!sample.whyNot.empty())
        out.oracleNote = "every block checked although the grid is large: " + sample.whyNot;
    ProgramExecutionOptions oracleOptions;
    oracleOptions.limits = oracleLimits();
    if (sample.blocks > 0)
        oracleOptions.limits.blockSample = sample.blocks;
    auto start = std::chrono::steady_clock::now();
    std::vector<std::vector<HostTensor>> oracleRuns;
    for (int run = 0; run < (sample.blocks > 0 ? sentinelRuns(params, compared) : 1); ++run) {
        std::vector<HostTensor>& expected = oracleRuns.emplace_back(params);
        if (sample.blocks > 0)
            fillSentinels(expected, compared, run);
        ProgramExecutionReport oracle;
        if (!executeProgram(module, func, expected, dims, diags, oracleOptions, nullptr, &oracle))
            return finish(GpuRunStage::Oracle, "the CPU executor failed");
        out.oracleBackend = cpuBackendName(oracle.used);
        if (!oracle.fallbackNote.empty())
            out.oracleNote = oracle.fallbackNote;
    }
    const std::vector<HostTensor>& expected = oracleRuns.front();
    out.oracleSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    step("oracle");
    out.matches = true;
    for (const ir::Buffer* b : func.params) {
        if (!compared[size_t(b->paramIndex)])
            continue;
        GpuOutputCheck check;
        check.name = b->name;
        check.paramIndex = b->paramIndex;
        const OutputTolerance tolerance = outputTolerance(func, *b);
        check.atol = tolerance.atol;
        check.rtol = tolerance.rtol;
        check.toleranceSetBy = tolerance.setBy;
        if (options.atol >= 0)
            check.atol = options.atol;
        if (options.rtol >= 0)
            check.rtol = options.rtol;
        const HostTensor& gpu = out.gpuParams[size_t(b->paramIndex)];
        const HostTensor& want = expected[size_t(b->paramIndex)];
        if (sample.blocks > 0) {
            std::vector<const HostTensor*> runs;
            for (const std::vector<HostTensor>& r : oracleRuns)
                runs.push_back(&r[size_t(b->paramIndex)]);
            HostTensor sampled = gpu; // the caller keeps every element the GPU wrote
            check.checkedElements = maskUnsampled(sampled, want, writtenElements(runs));
            check.comparison = compareTensors(sampled, want, check.atol, check.rtol);
        } else {
            check.checkedElements = int64_t(gpu.data.size());
            check.comparison = compareTensors(gpu, want, check.atol, check.rtol);
        }
        out.matches = out.matches && check.comparison.ok();
        out.outputs.push_back(std::move(check));
    }
    return finish(out.matches ? GpuRunStage::Done : GpuRunStage::Compare,
                  out.matches ? "" : "results differ");
}

} // namespace tb::run
