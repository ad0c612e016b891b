// The JIT's interface to the rest of engine/jit (no LLVM here): compile a PrimFunc, specialized to its
// dynamic dims, into machine code, then run it on host tensors with the kernels' blocks spread over a
// thread pool. compileJitProgram returns null with a reason when the function uses something the JIT
// does not lower (the caller then runs the interpreter and shows the reason).
#pragma once

#include "engine/exec/Executor.h"
#include "engine/exec/HostTensor.h"
#include "engine/ir/Module.h"
#include "engine/jit/ThreadPool.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tb::jit {

struct JitCompileStats {
    double seconds = 0;        // lowering + optimization + machine code
    int kernels = 0;           // kernel statements compiled
    int sequentialKernels = 0; // kernels whose blocks must run in order (atomic adds)
    size_t instructions = 0;   // LLVM IR instructions after optimization
};

class JitProgram {
public:
    virtual ~JitProgram() = default;
    // Runs every kernel in order on `params` (checked against the parameters' dtypes and shapes).
    // Returns false after reporting an error diagnostic.
    virtual bool run(std::vector<HostTensor>& params, DiagnosticEngine& diags, ThreadPool& pool) = 0;
    // The optimized LLVM IR when compiled with keepLlvmIr (for tests and debugging), else empty.
    virtual std::string llvmIr() const = 0;
};

// Programs compiled together share one LLVM module and one JIT session: the fixed cost of an
// optimization pipeline and a code generator is paid once (the differential fuzzer compiles thousands).
struct JitBatchItem {
    const ir::Module* module = nullptr;
    const ir::PrimFunc* func = nullptr;
    std::map<std::string, int64_t> dynamicDims;
};

// One entry per item: the program, or null with whyNot[i] set.
std::vector<std::unique_ptr<JitProgram>> compileJitBatch(const std::vector<JitBatchItem>& items,
                                                         const ExecutionLimits& limits,
                                                         std::vector<std::string>& whyNot);

std::unique_ptr<JitProgram> compileJitProgram(const ir::Module& module, const ir::PrimFunc& func,
                                              const std::map<std::string, int64_t>& dynamicDims,
                                              const ExecutionLimits& limits, std::string& whyNot,
                                              JitCompileStats* stats = nullptr, bool keepLlvmIr = false);

} // namespace tb::jit
