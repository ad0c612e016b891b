// The CUDA backend (portable sm_80 path, which also runs on Hopper): Tile IR + layout plan -> readable,
// self-contained CUDA C++. One translation unit per PrimFunc, one extern "C" __global__ function per Kernel
// statement, launched in program order. Each lowering follows the plan: copies use the copy plans (cp.async
// 16 B global -> shared, multi-stage pipelines for T.Pipelined), T.gemm uses ldmatrix + mma.sync on the warp
// grid, T.Parallel loops walk each thread's registers of the loop plan, reductions fold locally then
// butterfly with __shfl_xor_sync and, across warps, through shared memory (docs/codegen.md).
//
// The generated code needs a plan made for a target without wgmma (sm_80): a gemm planned for wgmma is
// reported as "codegen-wgmma-unsupported". Emission problems are diagnostics with codes "codegen-*".
#pragma once

#include "engine/ir/Module.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Diagnostics.h"
#include "engine/support/SourceManager.h"
#include "engine/target/Target.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

// One generated line and the tile-program range it implements (invalid for boilerplate).
struct LineMapEntry {
    int generatedLine = 0; // 1-based line in CudaKernelSource::source
    SourceRange range;
    int sourceLine = 0; // 1-based line of range.begin when sources were given, else 0
};

// Generated line <-> tile-program source range, both ways.
class LineMap {
public:
    void add(int generatedLine, SourceRange range, int sourceLine);
    const std::vector<LineMapEntry>& entries() const { return m_entries; }
    // The range a generated line implements; nullopt for lines without one.
    std::optional<SourceRange> rangeOf(int generatedLine) const;
    int sourceLineOf(int generatedLine) const; // 0 when unknown
    // Generated lines whose range starts on `sourceLine`, ascending.
    std::vector<int> generatedLinesOf(int sourceLine) const;
    // Generated lines whose range overlaps [begin, end) of `file`, ascending.
    std::vector<int> generatedLinesOverlapping(FileId file, uint32_t begin, uint32_t end) const;

private:
    std::vector<LineMapEntry> m_entries; // ascending generatedLine
};

enum class KernelParamKind { Tensor, DynamicDim, TensorMap };

struct KernelParam {
    KernelParamKind kind = KernelParamKind::Tensor;
    std::string name;                         // C name in the signature
    const ir::Buffer* buffer = nullptr;       // Tensor (a parameter or a workspace); TensorMap: its tensor
    const ir::Var* var = nullptr;             // DynamicDim
    const layout::TmaCopyPlan* tma = nullptr; // TensorMap: the box and swizzle (the plan's)
    std::string cType;                        // "half_t*", "int", "tb_tensormap"
};

struct KernelLaunch {
    std::vector<ir::ExprPtr> grid;     // 3 extents (x, y, z), expressions of the dynamic dims
    std::vector<std::string> gridText; // the same as C text
    int64_t block[3] = {1, 1, 1};
    int64_t dynamicSharedBytes = 0;
    // The kernel has a grid barrier (T.sync_grid): it must be launched cooperatively
    // (cuLaunchCooperativeKernel, the runner's `cooperative=1`), with every block resident at once.
    bool cooperative = false;
};

struct GeneratedKernel {
    std::string name;                 // the extern "C" name
    const ir::Stmt* kernel = nullptr; // the Kernel statement
    KernelLaunch launch;
    std::vector<KernelParam> params; // tensors in PrimFunc order, then workspaces, then dynamic dims
    int firstLine = 0, lastLine = 0; // its lines in the source
};

struct GeneratedUnit {
    const ir::PrimFunc* func = nullptr;
    std::string source;
    std::vector<GeneratedKernel> kernels; // in launch order
    LineMap lineMap;
    // NVRTC options the program asked for (pass_configs fast math: --use_fast_math); every compile of
    // `source` passes them.
    std::vector<std::string> nvrtcOptions;
};

struct CudaKernelSource {
    bool ok = false;
    std::vector<GeneratedUnit> units; // one per PrimFunc
};

// `sources` (optional) turns ranges into line numbers for `// line N` comments and the line map.
CudaKernelSource generateCuda(const ir::Module& module, const layout::LayoutPlan& plan, const Target& target,
                              DiagnosticEngine& diagnostics, const SourceManager* sources = nullptr);

// The target the portable backend plans for on a device: the device's limits (shared memory, SM count)
// with the sm_80 instruction set (no wgmma, no TMA). For sm_80 itself this is the same target.
Target portableTarget(const Target& device);

// Integer value of a launch expression (grid extents) for the given dynamic dims; nullopt when a var is
// missing or the expression is not integer arithmetic.
std::optional<int64_t> evaluateLaunchExpr(const ir::ExprPtr& expr,
                                          const std::map<std::string, int64_t>& dims);

// C type used in the generated code: storage ("half_t", "float", "int") and arithmetic ("float" for fp16).
const char* cudaStorageType(ir::DType type);
const char* cudaComputeType(ir::DType type);

} // namespace tb::codegen
