// Internal to engine/jit: one LLJIT instance for the host CPU (all its vector extensions), the -O3
// pipeline through PassBuilder with the target's cost model (so the loop vectorizer sees the real vector
// width), strict floating-point contraction (no fused multiply-add: results must match the interpreter),
// and the runtime symbols (JitRuntime.h) plus the process's own (memset, memcpy) for the code to call.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <memory>
#include <string>

namespace tb::jit {

class OrcSession {
public:
    // Null with `error` set when the host target cannot be set up.
    static std::unique_ptr<OrcSession> create(std::string& error);

    // Sets the module's data layout and triple, runs the -O3 pipeline, hands it to the JIT.
    bool addModule(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                   std::string& error);
    void* lookup(const std::string& name, std::string& error);
    // Prepares a module for this target (data layout and triple) before lowering into it.
    void configure(llvm::Module& module) const;
    // The -O3 pipeline for this target.
    void optimize(llvm::Module& module);

private:
    std::unique_ptr<llvm::TargetMachine> m_machine; // the optimizer's and the code generator's
    std::unique_ptr<llvm::orc::LLJIT> m_jit;        // destroyed first: its compiler uses m_machine
};

} // namespace tb::jit
