// Naive references: for each bundled sample, an independent and obviously-correct C++ implementation of
// what the sample computes, in double precision over HostTensors. A sample names its reference with a
// header line `# tilebench-reference: NAME`; the CPU executor's (or the GPU's) outputs are compared with
// the reference's within the reference's tolerances.
//
// Which parameters are outputs. Every reference knows its sample's parameter order (documented on each
// reference's summary and below) and computes the outputs at those positions. When the PrimFunc marks
// outputs (Buffer::isOutput, from out_idx), the marked set must contain the reference's primary output,
// otherwise compute() fails with an error: the program no longer matches its reference.
//
//   elementwise_add  A, B, C                                   -> C (2)
//   gemm_relu        A[M,K], B[K,N], C[M,N]                     -> C (2)
//   gemm_transpose   A, B, C; reads trans_A / trans_B           -> C (2)
//   softmax          X[M,N], Y[M,N]                             -> Y (1)
//   rmsnorm_silu     X[M,C], gamma[C], Y[M,C]; reads eps        -> Y (2)
//   flash_attention  Q, K, V, Output [B,S,H,D]; reads is_causal -> Output (3)
//   mla_decode       Q, Q_pe, KV, K_pe, glse, Output_partial, Output
//                                                               -> Output (6); with num_split > 1 also
//                                                                  glse (4), Output_partial (5); reads
//                                                                  block_N
#pragma once

#include "engine/exec/HostTensor.h"
#include "engine/ir/Module.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct ReferenceInvocation {
    // All PrimFunc parameters in order, inputs filled (outputs may hold anything).
    const std::vector<HostTensor>& params;
    // Specialization parameters come from Module::specialization.
    const ir::Module& module;
    // The PrimFunc whose parameters these are (for Buffer::isOutput); null means module.funcs.front(),
    // and no outputs are checked when the module has no funcs.
    const ir::PrimFunc* func = nullptr;
};

struct Reference {
    std::string name;    // "gemm_relu"
    std::string summary; // one line: what it computes and its parameter convention
    // Computes the expected value of every output parameter, keyed by parameter index, each with the
    // parameter's dtype and shape and the exact result rounded once to that dtype. Returns false with a
    // lower-case message when the parameters do not fit (wrong count, inconsistent shapes, missing flag).
    std::function<bool(const ReferenceInvocation&, std::map<int, HostTensor>& expected, std::string& error)>
        compute;
    // Tolerances for compareTensors(actual, expected, atol, rtol); each reference says why.
    double atol = 0;
    double rtol = 0;
};

const Reference* findReference(std::string_view name);
// Sorted.
std::vector<std::string> referenceNames();
// The NAME of the first comment line `# tilebench-reference: NAME` (leading spaces allowed), if any.
std::optional<std::string> referenceDirective(std::string_view sourceText);

} // namespace tb
