// The JIT driver: collects the buffers a PrimFunc's kernels touch, lowers each T.Kernel (Lowering.h),
// optimizes and compiles the module (OrcSession.h), and runs the kernels in order, each over a thread
// pool in block ranges (in order on one thread when its blocks combine results through atomic adds). A
// kernel with grid barriers runs phase by phase (KernelPhase in Lowering.h): every block of a phase before
// any of the next.
// A lowering that fails or a module that does not verify gives a reason instead of a program, so the
// caller can run the interpreter.
#include "engine/jit/JitProgram.h"

#include "engine/ir/IrQueries.h"
#include "engine/jit/Lowering.h"
#include "engine/jit/OrcSession.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <mutex>
#include <set>
#include <utility>

namespace tb::jit {

namespace {

using KernelFn = void (*)(void**, int64_t, int64_t, JitError*);

struct CompiledKernel {
    KernelFn fn = nullptr;
    std::vector<int64_t> grid;
    int64_t blocks = 0;
    bool sequential = false;
    // A kernel with grid barriers is one CompiledKernel per phase (KernelPhase), run in order, all blocks.
    int phase = 0;
    int phaseCount = 1;
    int64_t stateElements = 0; // per block
};

std::string joinInts(const std::vector<int64_t>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]);
    return out;
}

// The top-level kernels in order; anything else at host level is not lowered.
void collectKernels(const ir::Stmt* stmt, std::vector<const ir::Stmt*>& kernels) {
    if (!stmt)
        return;
    if (stmt->kind == ir::StmtKind::Seq) {
        for (const auto& child : stmt->stmts)
            collectKernels(child.get(), kernels);
        return;
    }
    if (stmt->kind != ir::StmtKind::Kernel)
        throw Unsupported{"a host statement outside T.Kernel"};
    kernels.push_back(stmt);
}

// The top-level statements of a kernel body, nested Seqs flattened.
void topLevelStatements(const ir::StmtPtr& stmt, std::vector<ir::StmtPtr>& out) {
    if (!stmt)
        return;
    if (stmt->kind == ir::StmtKind::Seq) {
        for (const ir::StmtPtr& child : stmt->stmts)
            topLevelStatements(child, out);
        return;
    }
    out.push_back(stmt);
}

// A kernel's phases: its body split at the grid barriers of its top level (one phase, the body itself,
// without barriers). A barrier inside a loop or branch is not lowered (Lowerer::lowerStmt says why).
std::vector<ir::StmtPtr> kernelPhases(const ir::Stmt& kernel) {
    if (!kernel.body || !ir::containsGridSync(*kernel.body))
        return {kernel.body};
    std::vector<ir::StmtPtr> statements, phases, current;
    topLevelStatements(kernel.body, statements);
    for (const ir::StmtPtr& s : statements) {
        if (s->kind != ir::StmtKind::GridSync) {
            current.push_back(s);
            continue;
        }
        phases.push_back(ir::makeSeq(std::move(current), kernel.body->range));
        current.clear();
    }
    phases.push_back(ir::makeSeq(std::move(current), kernel.body->range));
    return phases;
}

class CompiledProgram final : public JitProgram {
public:
    std::shared_ptr<OrcSession> session;
    LoweringContext lowering;
    std::vector<ir::StmtPtr> phaseBodies;  // what the phases of kernels with grid barriers lowered
    std::vector<BufferShape> globalShapes; // by position in lowering.globals
    std::vector<CompiledKernel> kernels;
    std::string text;

    bool run(std::vector<HostTensor>& params, DiagnosticEngine& diags, ThreadPool& pool) override;
    std::string llvmIr() const override { return text; }
};

bool CompiledProgram::run(std::vector<HostTensor>& params, DiagnosticEngine& diags, ThreadPool& pool) {
    const ir::PrimFunc& func = *lowering.func;
    if (params.size() != func.params.size()) {
        diags.error("execution-param-mismatch", func.range,
                    "'" + func.name + "' takes " + std::to_string(func.params.size()) + " tensors but " +
                        std::to_string(params.size()) + " were given",
                    "pass one host tensor per parameter, in order (allocateParams makes them)");
        return false;
    }
    // The globals, then the block state of the kernel with grid barriers that is running (KernelPhase).
    // Globals are read and written in place at their dtype's width (TensorStorage).
    std::vector<void*> pointers(lowering.globals.size() + 1, nullptr);
    std::vector<double> blockStates;
    std::vector<TensorStorage> workspaces; // T.alloc_global: zero-filled once per execution
    for (size_t i = 0; i < lowering.globals.size(); ++i) {
        const ir::Buffer* buffer = lowering.globals[i];
        const BufferShape& shape = globalShapes[i];
        if (buffer->paramIndex < 0) {
            workspaces.emplace_back(buffer->dtype, static_cast<size_t>(std::max<int64_t>(shape.count, 1)));
            pointers[i] = workspaces.back().bytes();
            continue;
        }
        HostTensor& tensor = params[static_cast<size_t>(buffer->paramIndex)];
        if (tensor.shape != shape.shape || tensor.dtype != buffer->dtype ||
            tensor.data.dtype() != tensor.dtype || static_cast<int64_t>(tensor.data.size()) != shape.count) {
            diags.error("execution-param-mismatch", buffer->range,
                        "parameter '" + buffer->name + "' is " + ir::dtypeName(buffer->dtype) + "[" +
                            joinInts(shape.shape) + "] but the tensor given is " +
                            ir::dtypeName(tensor.dtype) + "[" + joinInts(tensor.shape) + "] with " +
                            std::to_string(tensor.data.size()) + " values",
                        "allocate the tensor with the parameter's dtype and shape");
            return false;
        }
        static double empty = 0;
        pointers[i] = tensor.data.empty() ? static_cast<void*>(&empty) : tensor.data.bytes();
    }
    for (const CompiledKernel& kernel : kernels) {
        if (kernel.phaseCount > 1 && kernel.phase == 0) {
            blockStates.assign(
                static_cast<size_t>(std::max<int64_t>(kernel.blocks * kernel.stateElements, 1)), 0.0);
            pointers.back() = blockStates.data();
        }
        JitError first;
        first.block = INT64_MAX;
        std::mutex mutex;
        std::atomic<bool> failed{false};
        auto runRange = [&](int64_t begin, int64_t end, int) {
            if (failed.load(std::memory_order_relaxed))
                return;
            JitError error;
            kernel.fn(pointers.data(), begin, end, &error);
            if (error.code == 0)
                return;
            std::lock_guard<std::mutex> lock(mutex);
            if (error.block < first.block)
                first = error;
            failed = true;
        };
        // A sampled check runs the chosen blocks only, the interpreter's choice (sampledBlocks).
        const int64_t sampleSize = lowering.limits.blockSample;
        const bool sampled = sampleSize > 0 && kernel.blocks > sampleSize && kernel.phaseCount == 1;
        const std::vector<int64_t> sample =
            sampled ? sampledBlocks(kernel.blocks, sampleSize) : std::vector<int64_t>{};
        if (kernel.sequential) { // in order on one thread, sampled or not
            pool.parallelFor(1, 1, [&](int64_t, int64_t, int w) {
                if (!sampled)
                    runRange(0, kernel.blocks, w);
                for (int64_t block : sample)
                    runRange(block, block + 1, w);
            });
        } else if (sampled) {
            pool.parallelFor(int64_t(sample.size()), 0, [&](int64_t begin, int64_t end, int w) {
                for (int64_t i = begin; i < end; ++i)
                    runRange(sample[size_t(i)], sample[size_t(i)] + 1, w);
            });
        } else {
            pool.parallelFor(kernel.blocks, 0, runRange);
        }
        if (kernel.phaseCount > 1 && kernel.phase + 1 == kernel.phaseCount)
            std::vector<double>().swap(blockStates);
        if (first.code == 0)
            continue;
        const ErrorSite& site = lowering.sites.at(static_cast<size_t>(first.code - 1));
        Diagnostic& d = diags.error(site.code, site.range, site.message, site.hint);
        std::vector<int64_t> index(3, 0);
        int64_t rest = first.block;
        for (size_t k = 0; k < kernel.grid.size(); ++k) {
            int64_t extent = std::max<int64_t>(kernel.grid[k], 1);
            index[k] = rest % extent;
            rest /= extent;
        }
        d.notes.push_back({site.range, "in block (" + joinInts(index) + ")"});
        return false;
    }
    return true;
}

} // namespace

namespace {

// Lowers one program's kernels into `llvmModule`. On failure the functions it added are removed again
// and whyNot says why.
bool lowerProgram(CompiledProgram& program, llvm::LLVMContext& context, llvm::Module& llvmModule,
                  std::vector<std::string>& names, std::string& whyNot) {
    LoweringContext& lowering = program.lowering;
    const ir::PrimFunc& func = *lowering.func;
    for (const ir::Var* dim : func.dynamicDims)
        if (!lowering.dims.count(dim->name)) {
            whyNot = "no value for dynamic dim '" + dim->name + "'";
            return false;
        }
    std::set<const llvm::Function*> before;
    for (const llvm::Function& fn : llvmModule)
        before.insert(&fn);
    auto discard = [&] {
        std::vector<llvm::Function*> added;
        for (llvm::Function& fn : llvmModule)
            if (!before.count(&fn) && !fn.isDeclaration())
                added.push_back(&fn);
        for (llvm::Function* fn : added)
            fn->dropAllReferences();
        for (llvm::Function* fn : added)
            fn->eraseFromParent();
        names.clear();
    };
    std::vector<const ir::Stmt*> kernelStmts;
    try {
        collectKernels(func.body.get(), kernelStmts);
        lowering.globals = func.params;
        lowering.globals.insert(lowering.globals.end(), func.workspaces.begin(), func.workspaces.end());
        Lowerer lowerer(context, llvmModule, lowering);
        for (const ir::Buffer* buffer : lowering.globals)
            program.globalShapes.push_back(lowerer.shapeOf(buffer));
        for (size_t i = 0; i < kernelStmts.size(); ++i) {
            const std::vector<ir::StmtPtr> phases = kernelPhases(*kernelStmts[i]);
            for (size_t p = 0; p < phases.size(); ++p) {
                CompiledKernel kernel;
                kernel.phase = static_cast<int>(p);
                kernel.phaseCount = static_cast<int>(phases.size());
                const KernelPhase phase{phases[p].get(), kernel.phase, kernel.phaseCount};
                const std::string suffix =
                    std::to_string(i) + (phases.size() > 1 ? "_phase_" + std::to_string(p) : std::string());
                llvm::Function* fn = lowerer.lowerKernel(*kernelStmts[i], suffix, kernel.sequential, phase);
                names.push_back(fn->getName().str());
                kernel.stateElements = phases.size() > 1 ? lowerer.blockStateElements(*kernelStmts[i]) : 0;
                kernel.blocks = 1;
                for (const ir::ExprPtr& extent : kernelStmts[i]->grid) {
                    int64_t value = *lowerer.constantValue(extent);
                    kernel.grid.push_back(value);
                    kernel.blocks = value <= 0 ? 0 : kernel.blocks * value;
                }
                if (kernel.blocks > 0 &&
                    kernel.stateElements > lowering.limits.maxBufferElements / kernel.blocks)
                    throw Unsupported{"the on-chip buffers of the blocks, which a grid barrier keeps alive "
                                      "together, exceed the executor's buffer size limit"};
                program.kernels.push_back(kernel);
            }
            if (phases.size() > 1)
                program.phaseBodies.insert(program.phaseBodies.end(), phases.begin(), phases.end());
        }
    } catch (const Unsupported& unsupported) {
        whyNot = unsupported.reason;
        discard();
        return false;
    }
    for (llvm::Function& fn : llvmModule) {
        if (before.count(&fn) || fn.isDeclaration())
            continue;
        std::string broken;
        llvm::raw_string_ostream brokenStream(broken);
        if (llvm::verifyFunction(fn, &brokenStream)) {
            whyNot = "internal error: the lowered code does not verify: " + brokenStream.str().substr(0, 400);
            discard();
            return false;
        }
    }
    return true;
}

size_t instructionCount(const llvm::Module& module) {
    size_t count = 0;
    for (const llvm::Function& fn : module)
        count += static_cast<size_t>(std::distance(llvm::inst_begin(fn), llvm::inst_end(fn)));
    return count;
}

} // namespace

std::vector<std::unique_ptr<JitProgram>> compileJitBatch(const std::vector<JitBatchItem>& items,
                                                         const ExecutionLimits& limits,
                                                         std::vector<std::string>& whyNot) {
    std::vector<std::unique_ptr<JitProgram>> out(items.size());
    whyNot.assign(items.size(), "");
    std::string error;
    std::shared_ptr<OrcSession> session = OrcSession::create(error);
    if (!session) {
        whyNot.assign(items.size(), error);
        return out;
    }
    auto context = std::make_unique<llvm::LLVMContext>();
    auto llvmModule = std::make_unique<llvm::Module>("tile_programs", *context);
    session->configure(*llvmModule);
    std::vector<std::unique_ptr<CompiledProgram>> programs(items.size());
    std::vector<std::vector<std::string>> names(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        auto program = std::make_unique<CompiledProgram>();
        program->session = session;
        program->lowering.module = items[i].module;
        program->lowering.func = items[i].func;
        program->lowering.dims = items[i].dynamicDims;
        program->lowering.limits = limits;
        program->lowering.namePrefix = "p" + std::to_string(i) + "_";
        if (lowerProgram(*program, *context, *llvmModule, names[i], whyNot[i]))
            programs[i] = std::move(program);
    }
    session->optimize(*llvmModule);
    if (!session->addModule(std::move(llvmModule), std::move(context), error)) {
        whyNot.assign(items.size(), error);
        return out;
    }
    for (size_t i = 0; i < items.size(); ++i) {
        if (!programs[i])
            continue;
        bool found = true;
        for (size_t k = 0; k < names[i].size() && found; ++k) {
            void* address = session->lookup(names[i][k], whyNot[i]);
            found = address != nullptr;
            programs[i]->kernels[k].fn = reinterpret_cast<KernelFn>(address);
        }
        if (found)
            out[i] = std::move(programs[i]);
    }
    return out;
}

std::unique_ptr<JitProgram> compileJitProgram(const ir::Module& module, const ir::PrimFunc& func,
                                              const std::map<std::string, int64_t>& dynamicDims,
                                              const ExecutionLimits& limits, std::string& whyNot,
                                              JitCompileStats* stats, bool keepLlvmIr) {
    auto start = std::chrono::steady_clock::now();
    auto program = std::make_unique<CompiledProgram>();
    program->session = OrcSession::create(whyNot);
    if (!program->session)
        return nullptr;
    program->lowering.module = &module;
    program->lowering.func = &func;
    program->lowering.dims = dynamicDims;
    program->lowering.limits = limits;
    auto context = std::make_unique<llvm::LLVMContext>();
    auto llvmModule = std::make_unique<llvm::Module>("tile_program", *context);
    program->session->configure(*llvmModule);
    std::vector<std::string> names;
    if (!lowerProgram(*program, *context, *llvmModule, names, whyNot))
        return nullptr;
    auto lowered = std::chrono::steady_clock::now();
    size_t before = instructionCount(*llvmModule);
    program->session->optimize(*llvmModule);
    auto optimized = std::chrono::steady_clock::now();
    size_t instructions = instructionCount(*llvmModule);
    if (keepLlvmIr || std::getenv("TB_JIT_DUMP")) {
        llvm::raw_string_ostream textStream(program->text);
        llvmModule->print(textStream, nullptr);
        textStream.flush();
    }
    if (std::getenv("TB_JIT_DUMP"))
        std::fprintf(stderr, "%s\n", program->text.c_str());
    if (!program->session->addModule(std::move(llvmModule), std::move(context), whyNot))
        return nullptr;
    for (size_t i = 0; i < names.size(); ++i) {
        void* address = program->session->lookup(names[i], whyNot);
        if (!address)
            return nullptr;
        program->kernels[i].fn = reinterpret_cast<KernelFn>(address);
    }
    if (std::getenv("TB_JIT_TIMING")) // compile-time investigations
        std::fprintf(stderr, "jit: lower %.3f optimize %.3f codegen %.3f s, %zu -> %zu instructions\n",
                     std::chrono::duration<double>(lowered - start).count(),
                     std::chrono::duration<double>(optimized - lowered).count(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - optimized).count(),
                     before, instructions);
    if (stats) {
        stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        stats->kernels = 0;
        stats->sequentialKernels = 0;
        for (const CompiledKernel& k : program->kernels) {
            stats->kernels += k.phase == 0 ? 1 : 0; // a kernel with grid barriers counts once
            stats->sequentialKernels += k.phase == 0 && k.sequential ? 1 : 0;
        }
        stats->instructions = instructions;
    }
    return program;
}

} // namespace tb::jit
