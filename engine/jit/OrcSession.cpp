// LLJIT set-up and the optimization pipeline for JIT-compiled kernels.
#include "engine/jit/OrcSession.h"

#include "engine/jit/JitRuntime.h"

#include <cstdlib>
#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace tb::jit {

namespace {

std::string message(llvm::Error error) {
    return llvm::toString(std::move(error));
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder> hostMachine() {
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
        return builder.takeError();
    const char* level = std::getenv("TB_JIT_CODEGEN");
    builder->setCodeGenOptLevel(!level            ? llvm::CodeGenOpt::Aggressive
                                : level[0] == '1' ? llvm::CodeGenOpt::Less
                                : level[0] == '2' ? llvm::CodeGenOpt::Default
                                : level[0] == '0' ? llvm::CodeGenOpt::None
                                                  : llvm::CodeGenOpt::Aggressive);
    builder->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict; // the interpreter never fuses
    return builder;
}

} // namespace

std::unique_ptr<OrcSession> OrcSession::create(std::string& error) {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        // No loop strength reduction in code generation: on the tile kernels' many addressing expressions
        // it took a third of the code generator's time (10 of 30 ms on the GEMM sample, `llc -time-passes`)
        // for no measurable run time (bench_cpu, 2026-12-06). TB_JIT_LLVM_ARGS=-disable-lsr=false restores
        // it.
        llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
        if (auto it = options.find("disable-lsr"); it != options.end())
            static_cast<llvm::cl::opt<bool>*>(it->second)->setValue(true);
        // TB_JIT_LLVM_ARGS="-time-passes ...": LLVM's own options, for looking into compile time.
        if (const char* args = std::getenv("TB_JIT_LLVM_ARGS")) {
            static std::vector<std::string> words{"tilebench"};
            std::istringstream in(args);
            for (std::string w; in >> w;)
                words.push_back(w);
            static std::vector<const char*> argv;
            for (const auto& w : words)
                argv.push_back(w.c_str());
            llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data());
        }
    });
    auto session = std::make_unique<OrcSession>();
    auto builder = hostMachine();
    if (!builder) {
        error = message(builder.takeError());
        return nullptr;
    }
    auto machine = builder->createTargetMachine();
    if (!machine) {
        error = message(machine.takeError());
        return nullptr;
    }
    session->m_machine = std::move(*machine);
    // The code generator uses the optimizer's TargetMachine rather than one of its own: creating a target
    // machine and its subtarget (feature parsing, the lowering and legalizer tables) is a fixed cost of
    // every compile.
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(*builder))
                   .setCompileFunctionCreator(
                       [machine = session->m_machine.get()](llvm::orc::JITTargetMachineBuilder)
                           -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                           return std::make_unique<llvm::orc::SimpleCompiler>(*machine);
                       })
                   .create();
    if (!jit) {
        error = message(jit.takeError());
        return nullptr;
    }
    session->m_jit = std::move(*jit);
    llvm::orc::JITDylib& dylib = session->m_jit->getMainJITDylib();
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        session->m_jit->getDataLayout().getGlobalPrefix());
    if (!process) {
        error = message(process.takeError());
        return nullptr;
    }
    dylib.addGenerator(std::move(*process));
    llvm::orc::SymbolMap symbols;
    for (const auto& [name, address] : runtimeSymbols())
        symbols[session->m_jit->mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
            llvm::pointerToJITTargetAddress(address), llvm::JITSymbolFlags::Exported);
    if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
        error = message(std::move(err));
        return nullptr;
    }
    return session;
}

void OrcSession::configure(llvm::Module& module) const {
    module.setDataLayout(m_machine->createDataLayout());
    module.setTargetTriple(m_machine->getTargetTriple().str());
}

void OrcSession::optimize(llvm::Module& module) {
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager cgscc;
    llvm::ModuleAnalysisManager modules;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    // No heuristic unrolling: fully unrolled tile loops make huge blocks that cost the scheduler far more
    // compile time than they save (the gemm's register blocking is explicit in the lowering).
    tuning.LoopUnrolling = std::getenv("TB_JIT_UNROLL") != nullptr;
    llvm::PassInstrumentationCallbacks callbacks;
    llvm::StandardInstrumentations instrumentations(module.getContext(), /*DebugLogging=*/false);
    instrumentations.registerCallbacks(callbacks, &functions);
    llvm::PassBuilder builder(m_machine.get(), tuning, std::nullopt, &callbacks);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    // A lean pipeline for simple counted loops: inline the kernel body (its noalias arguments become
    // alias scopes), promote scalars to registers, clean up, hoist invariants, canonicalize the loops
    // and vectorize them, clean up again. The default -O2 pipeline gives the same code for these kernels
    // at about twice the compile time (its inliner, unswitching and GVN find little to do here). No
    // indvars: the lowering's induction variables are already canonical i64 counters, and the pass spent a
    // third of the optimization time (its SCEV queries) for the same run times (bench_cpu, 2026-12-06).
    // TB_JIT_PIPELINE overrides it (a PassBuilder pipeline text, e.g. "default<O3>").
    const char* text = std::getenv("TB_JIT_PIPELINE");
    if (!text)
        text = "always-inline,function(sroa,early-cse,simplifycfg,instcombine,loop-simplify,lcssa,"
               "loop-mssa(licm),loop(loop-rotate),loop-simplify,lcssa,loop-vectorize,instcombine,"
               "simplifycfg,early-cse,loop-mssa(licm),instcombine)";
    llvm::ModulePassManager pipeline;
    if (auto err = builder.parsePassPipeline(pipeline, text)) {
        llvm::errs() << "TB_JIT_PIPELINE: " << llvm::toString(std::move(err)) << "\n";
        pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    }
    pipeline.run(module, modules);
}

bool OrcSession::addModule(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                           std::string& error) {
    if (auto err = m_jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
        error = message(std::move(err));
        return false;
    }
    return true;
}

void* OrcSession::lookup(const std::string& name, std::string& error) {
    auto address = m_jit->lookup(name);
    if (!address) {
        error = message(address.takeError());
        return nullptr;
    }
    return address->toPtr<void*>();
}

} // namespace tb::jit
