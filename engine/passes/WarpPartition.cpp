// Warp partition: instruction, warp grid and fragments for every T.gemm.
#include "engine/passes/WarpPartition.h"

#include "engine/ir/IrQueries.h"
#include "engine/layout/algebra/GemmFragments.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

layout::GemmWarpPolicy toLayoutPolicy(ir::GemmWarpPolicy policy) {
    switch (policy) {
    case ir::GemmWarpPolicy::Square:
        return layout::GemmWarpPolicy::Square;
    case ir::GemmWarpPolicy::FullRow:
        return layout::GemmWarpPolicy::FullRow;
    case ir::GemmWarpPolicy::FullCol:
        return layout::GemmWarpPolicy::FullCol;
    }
    return layout::GemmWarpPolicy::Square;
}

namespace {

// The last two extents of a region (a gemm operand may be a 2-D slice of a higher-rank buffer).
std::optional<std::pair<int64_t, int64_t>> tile2d(const ir::Region& region) {
    std::optional<std::vector<int64_t>> extents = ir::constantExtents(region);
    if (!extents || extents->empty())
        return std::nullopt;
    std::vector<int64_t> dims;
    for (size_t d : ir::nonUnitDims(*extents))
        dims.push_back((*extents)[d]);
    while (dims.size() < 2)
        dims.insert(dims.begin(), 1);
    return std::make_pair(dims[dims.size() - 2], dims[dims.size() - 1]);
}

void reportLayoutError(DiagnosticEngine& diagnostics, const layout::LayoutError& error, SourceRange range) {
    diagnostics.error(error.code, range, error.message, error.hint);
}

// wgmma reads its shared operands through descriptors of whole 2-D tiles: a gemm on a slice of a tile (its
// last two dimensions only partly) needs mma.sync. One stage of a buffer the program multi-buffers itself
// (A_shared[ko % 2, :, :]) is a whole tile: the stage index moves the descriptors' start. Empty when every
// shared operand is a whole 2-D tile.
std::string partialTileOperand(const ir::Stmt& gemm) {
    for (const ir::Region* r : {&gemm.a, &gemm.b}) {
        if (!r->buffer || r->buffer->scope != ir::MemoryScope::Shared)
            continue;
        size_t n = r->mins.size();
        for (size_t d = 0; d + 2 < n; ++d)
            if (ir::constantInt(r->extents[d]) != 1)
                return "'" + r->buffer->name +
                       "' spans several of its leading indices (a descriptor "
                       "addresses one 2-D tile)";
        for (size_t d = n >= 2 ? n - 2 : 0; d < n; ++d)
            if (ir::constantInt(r->mins[d]) != 0 ||
                ir::constantInt(r->extents[d]) != r->buffer->constantExtent(d))
                return "'" + r->buffer->name + "' is a slice of its tile";
    }
    return {};
}

// On a backend without wgmma, what the device itself would have issued for this gemm ("wgmma m64n128k16"),
// or "" when it would have used mma.sync too. The plan's reason says so, since TileLang would emit wgmma.
std::string instructionTheDeviceWouldUse(const PassContext& context, int64_t M, int64_t N, int64_t K,
                                         int64_t numWarps, const layout::GemmOperandTypes& types,
                                         layout::GemmWarpPolicy policy) {
    if (context.target.hasWgmma || !context.device.hasWgmma)
        return {};
    auto wgmma =
        layout::selectGemmInstruction(context.device, M, N, K, numWarps, types, context.options.disableWgmma);
    if (!wgmma || wgmma->kind != layout::GemmInstructionKind::Wgmma)
        return {};
    auto grid = layout::computeWarpGrid(M, N, numWarps, policy, *wgmma);
    if (!grid)
        return {};
    return "wgmma m64n" + std::to_string(grid->atomN) + "k" + std::to_string(wgmma->k);
}

// A gemm that the device would issue with wgmma but that mma.sync issues here (the portable backend on a
// wgmma device, or an operand slice on the hopper backend) keeps wgmma's warps when each warpgroup covers one
// 64-row atom of M: four warps of 16 rows each, stacked along M, then hold exactly wgmma's accumulator, the
// fragment TileLang lays out for the gemm. A gemm beside a wgmma on the same accumulator then agrees with it.
std::optional<layout::WarpGrid> wgmmaShapedMmaGrid(const PassContext& context, int64_t M, int64_t N,
                                                   int64_t K, int64_t numWarps,
                                                   const layout::GemmOperandTypes& types,
                                                   layout::GemmWarpPolicy policy,
                                                   const layout::GemmInstruction& mma) {
    const Target& device = context.target.hasWgmma ? context.target : context.device;
    if (mma.kind != layout::GemmInstructionKind::MmaSync || !device.hasWgmma || context.options.disableWgmma)
        return std::nullopt;
    auto wgmma = layout::selectGemmInstruction(device, M, N, K, numWarps, types);
    if (!wgmma || wgmma->kind != layout::GemmInstructionKind::Wgmma)
        return std::nullopt;
    auto wgmmaGrid = layout::computeWarpGrid(M, N, numWarps, policy, *wgmma);
    if (!wgmmaGrid || wgmmaGrid->atomsM != 1)
        return std::nullopt;
    auto grid = layout::warpGridOf(M, N, wgmmaGrid->mWarp, wgmmaGrid->nWarp, mma);
    return grid ? std::optional<layout::WarpGrid>(*grid) : std::nullopt;
}

} // namespace

void runWarpPartition(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                      DiagnosticEngine& diagnostics) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            if (s.kind != ir::StmtKind::Gemm || !s.a.buffer || !s.b.buffer || !s.c.buffer)
                return;
            // The warps of the gemm's own T.ws scope, or of the whole block.
            const int64_t numWarps = std::max<int64_t>(kernel.threadsOf(&s) / context.target.warpSize, 1);
            auto a = tile2d(s.a), b = tile2d(s.b), c = tile2d(s.c);
            if (!a || !b || !c) {
                diagnostics.error("gemm-shape-symbolic", s.range,
                                  "the gemm's operand tiles must have compile-time constant extents",
                                  "use constant block sizes for T.gemm operands");
                return;
            }
            const int64_t M = c->first, N = c->second;
            const int64_t K = s.transposeA ? a->first : a->second;
            layout::GemmOperandTypes types;
            types.a = s.a.buffer->dtype;
            types.b = s.b.buffer->dtype;
            types.c = s.c.buffer->dtype;
            types.aTransposed = s.transposeA;
            types.bTransposed = s.transposeB;
            types.aInShared = s.a.buffer->scope != ir::MemoryScope::Fragment;
            types.bInShared = s.b.buffer->scope != ir::MemoryScope::Fragment;
            const std::string slice = context.target.hasWgmma ? partialTileOperand(s) : std::string();
            auto instruction = layout::selectGemmInstruction(context.target, M, N, K, numWarps, types,
                                                             context.options.disableWgmma || !slice.empty());
            if (instruction && !slice.empty())
                instruction.value().reason = "wgmma reads whole shared tiles and " + slice + ": mma.sync (" +
                                             instruction->reason + ")";
            if (!instruction) {
                reportLayoutError(diagnostics, instruction.error(), s.range);
                return;
            }
            std::string wouldUse =
                instructionTheDeviceWouldUse(context, M, N, K, numWarps, types, toLayoutPolicy(s.policy));
            if (!wouldUse.empty())
                instruction.value().reason = wouldUse + " on " + context.device.name +
                                             "; emitting mma.sync: " + backendName(context.backend) +
                                             " backend (" + instruction->reason + ")";
            auto grid = layout::computeWarpGrid(M, N, numWarps, toLayoutPolicy(s.policy), *instruction);
            if (auto shaped = wgmmaShapedMmaGrid(context, M, N, K, numWarps, types, toLayoutPolicy(s.policy),
                                                 *instruction))
                grid = *shaped;
            if (!grid) {
                reportLayoutError(diagnostics, grid.error(), s.range);
                return;
            }
            layout::GemmPlan gemm;
            gemm.gemm = &s;
            gemm.instruction = *instruction;
            gemm.grid = *grid;
            auto fragC = layout::makeGemmFragmentC(*grid);
            if (!fragC) {
                reportLayoutError(diagnostics, fragC.error(), s.range);
                return;
            }
            gemm.fragmentC = *fragC;
            if (!types.aInShared || grid->instruction == layout::GemmInstructionKind::MmaSync) {
                auto fragA = layout::makeGemmFragmentA(*grid, K, s.transposeA, ir::dtypeBits(types.a));
                if (fragA)
                    gemm.fragmentA = *fragA;
                else if (!types.aInShared) {
                    reportLayoutError(diagnostics, fragA.error(), s.range);
                    return;
                }
            }
            if (grid->instruction == layout::GemmInstructionKind::MmaSync) {
                auto fragB = layout::makeGemmFragmentB(*grid, K, s.transposeB, ir::dtypeBits(types.b));
                if (fragB)
                    gemm.fragmentB = *fragB;
                else if (!types.bInShared) {
                    reportLayoutError(diagnostics, fragB.error(), s.range);
                    return;
                }
            }
            kernel.gemms.push_back(std::move(gemm));
        });
    }
}

} // namespace tb::passes
