// Copy planning: instruction, vector width and thread map of every T.copy.
#include "engine/passes/CopyPlanning.h"

#include "engine/ir/IrQueries.h"
#include "engine/passes/FragmentDerivation.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

namespace {

// True when the copied tile's innermost (non-unit) dimension is the buffer's last dimension, i.e. the
// elements a vector would move are adjacent in memory.
bool innermostContiguous(const std::vector<int64_t>& extents) {
    std::vector<size_t> dims = ir::nonUnitDims(extents);
    return dims.empty() || dims.back() + 1 == extents.size();
}

// TileLang's vector for a memory-only loop: the largest V <= vmax with the least padding.
int64_t paddingVector(int64_t total, int64_t vmax, int64_t threads) {
    int64_t best = 1, bestPad = -1;
    for (int64_t v = vmax; v >= 1; v /= 2) {
        const int64_t chunk = threads * v;
        const int64_t pad = (total + chunk - 1) / chunk * chunk - total;
        if (bestPad < 0 || pad < bestPad) {
            best = v;
            bestPad = pad;
        }
    }
    return best;
}

} // namespace

void runCopyPlanning(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                     DiagnosticEngine&) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        FragmentTableCache local;
        FragmentTableCache& cache = context.tables ? *context.tables : local;
        ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>& enclosing) {
            if (s.kind != ir::StmtKind::Copy || !s.src.buffer || !s.dst.buffer)
                return;
            std::optional<std::vector<int64_t>> srcExt = ir::constantExtents(s.src);
            std::optional<std::vector<int64_t>> dstExt = ir::constantExtents(s.dst);
            if (!srcExt || !dstExt)
                return;
            std::vector<int64_t> shape;
            for (size_t d : ir::nonUnitDims(*dstExt))
                shape.push_back((*dstExt)[d]);
            if (shape.empty())
                shape.push_back(1);
            if (layout::shapeSize(shape) > layout::kMaxEnumerationPoints)
                return;
            const ir::Buffer* src = s.src.buffer;
            const ir::Buffer* dst = s.dst.buffer;
            // The vector is the memory side's (TileLang's rule, as for the default partition in
            // LayoutInference.cpp): 8 float16 per 16-byte access even when the registers are float32.
            // Between two fragments, or two memory buffers, the wider element decides.
            const bool srcMemory = src->scope != ir::MemoryScope::Fragment;
            const bool dstMemory = dst->scope != ir::MemoryScope::Fragment;
            const int bits = srcMemory != dstMemory
                                 ? ir::dtypeBits(srcMemory ? src->dtype : dst->dtype)
                                 : std::max(ir::dtypeBits(src->dtype), ir::dtypeBits(dst->dtype));
            const int64_t vmax = std::max<int64_t>(context.options.maxVectorBits / std::max(bits, 8), 1);
            const bool contiguous = innermostContiguous(*srcExt) && innermostContiguous(*dstExt);
            bool pipelined = false;
            for (const ir::Stmt* e : enclosing)
                pipelined =
                    pipelined || (e->loopKind == ir::LoopKind::Pipelined && e->pipeline.numStages > 0);
            layout::CopyPlan cp;
            cp.copy = &s;
            const bool srcFrag = src->scope == ir::MemoryScope::Fragment;
            const bool dstFrag = dst->scope == ir::MemoryScope::Fragment;
            if (srcFrag || dstFrag) {
                const layout::FragmentPlan* frag = kernel.fragmentOf(dstFrag && !srcFrag ? dst : src);
                if (!frag)
                    return;
                std::optional<layout::Fragment> map;
                if (frag->fragment.inputShape() == shape)
                    map = frag->fragment;
                else
                    map = planLoopPartition(shape, 1, kernel.threadsOf(&s), true);
                cp.threadMap = *map;
                int64_t v = contiguousRegisterRun(*map, vmax, &cache);
                cp.reason = "each thread moves the elements it owns under the layout of '" +
                            frag->buffer->name + "'; runs of " + std::to_string(v) +
                            " consecutive elements in consecutive registers";
                if (!contiguous && !(srcFrag && dstFrag)) {
                    v = 1;
                    cp.reason += "; the memory side is strided: scalar accesses";
                }
                cp.vectorWidth = int(v);
                if (srcFrag && dstFrag) {
                    cp.instruction = layout::CopyInstruction::VectorLoadStore;
                    cp.reason = "register-to-register copy" +
                                std::string(src->dtype != dst->dtype
                                                ? " with a cast (" + std::string(ir::dtypeName(src->dtype)) +
                                                      " -> " + ir::dtypeName(dst->dtype) + ")"
                                                : "") +
                                ": thread-local, both fragments share one layout";
                } else if (srcFrag)
                    cp.instruction = dst->scope == ir::MemoryScope::Shared
                                         ? layout::CopyInstruction::FragmentToShared
                                         : layout::CopyInstruction::FragmentToGlobal;
                else
                    cp.instruction = src->scope == ir::MemoryScope::Shared
                                         ? layout::CopyInstruction::SharedToFragment
                                         : layout::CopyInstruction::GlobalToFragment;
                kernel.copies.push_back(std::move(cp));
                return;
            }
            const int64_t total = layout::shapeSize(shape);
            const int64_t rowBytes = shape.back() * ir::dtypeBytes(src->dtype);
            if (src->scope == ir::MemoryScope::Global && dst->scope == ir::MemoryScope::Shared &&
                context.target.hasCpAsync && context.options.allowCpAsync && src->dtype == dst->dtype &&
                contiguous && rowBytes % 16 == 0) {
                cp.instruction = layout::CopyInstruction::CpAsync;
                cp.vectorWidth = int(16 / ir::dtypeBytes(src->dtype));
                cp.reason = "global -> shared with 16-byte aligned rows (" + std::to_string(rowBytes) +
                            " bytes) on " + context.target.name + ": cp.async.cg of 16 bytes" +
                            (pipelined ? ", overlapped by the software pipeline" : "");
                if (context.device.hasTma && !context.target.hasTma)
                    cp.reason += " (TMA on " + context.device.name + " in a warp-specialised producer; the " +
                                 backendName(context.backend) + " backend uses cp.async)";
            } else {
                cp.instruction = layout::CopyInstruction::VectorLoadStore;
                int64_t v = contiguous ? paddingVector(total, vmax, kernel.threadsOf(&s)) : 1;
                while (v > 1 && shape.back() % v != 0)
                    v /= 2;
                cp.vectorWidth = int(v);
                std::string why;
                if (src->scope == ir::MemoryScope::Global && dst->scope == ir::MemoryScope::Shared) {
                    if (!context.target.hasCpAsync || !context.options.allowCpAsync)
                        why = "no cp.async on this target";
                    else if (src->dtype != dst->dtype)
                        why = "the copy converts " + std::string(ir::dtypeName(src->dtype)) + " to " +
                              ir::dtypeName(dst->dtype);
                    else if (!contiguous)
                        why = "the copied elements are strided in memory";
                    else
                        why = "rows of " + std::to_string(rowBytes) + " bytes are not 16-byte multiples";
                    why = "not cp.async: " + why + "; ";
                }
                cp.reason = why + "vectorized ld/st of " + std::to_string(v) +
                            " elements, consecutive vectors to consecutive threads";
            }
            cp.threadMap = planLoopPartition(shape, cp.vectorWidth, kernel.threadsOf(&s), false);
            kernel.copies.push_back(std::move(cp));
        });
    }
}

} // namespace tb::passes
