// Shared layouts: gemm-operand swizzles, annotations, linear defaults.
#include "engine/passes/SharedLayouts.h"

#include "engine/check/SharedMemoryBudget.h"
#include "engine/ir/IrQueries.h"
#include "engine/layout/algebra/Swizzle.h"
#include "engine/passes/IndexConversion.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

using layout::Layout;
using layout::SharedLayoutChoice;
using layout::SharedLayoutKind;

namespace {

std::optional<SharedLayoutKind> kindOfSwizzle(layout::SwizzleKind k) {
    switch (k) {
    case layout::SwizzleKind::Quarter32B:
        return SharedLayoutKind::Quarter32B;
    case layout::SwizzleKind::Half64B:
        return SharedLayoutKind::Half64B;
    case layout::SwizzleKind::Full128B:
        return SharedLayoutKind::Full128B;
    }
    return std::nullopt;
}

std::optional<layout::SwizzleKind> swizzleOf(SharedLayoutKind k) {
    switch (k) {
    case SharedLayoutKind::Quarter32B:
        return layout::SwizzleKind::Quarter32B;
    case SharedLayoutKind::Half64B:
        return layout::SwizzleKind::Half64B;
    case SharedLayoutKind::Full128B:
        return layout::SwizzleKind::Full128B;
    case SharedLayoutKind::Linear:
    case SharedLayoutKind::Padded:
        return std::nullopt;
    }
    return std::nullopt;
}

std::string descriptorNote(SharedLayoutKind k) {
    switch (k) {
    case SharedLayoutKind::Linear:
        return "legal for TMA and wgmma descriptors (interleave / no swizzle)";
    case SharedLayoutKind::Padded:
        return "padding is not expressible in a TMA or wgmma descriptor (mma.sync path only)";
    case SharedLayoutKind::Quarter32B:
    case SharedLayoutKind::Half64B:
    case SharedLayoutKind::Full128B:
        return "legal for TMA and wgmma descriptors";
    }
    return {};
}

// A 2-D layout over the last two dimensions, expanded over the leading ones.
Layout expandTo(const Layout& inner, const std::vector<int64_t>& shape) {
    if (shape.size() <= 2)
        return inner;
    return inner.expand(std::vector<int64_t>(shape.begin(), shape.end() - 2));
}

struct Request {
    SharedLayoutChoice choice;
    const ir::Stmt* gemm = nullptr;
};

// Whether a global tile is one contiguous span: below its first dimension of more than one element, every
// dimension is whole.
bool isContiguousTile(const ir::Region& tile) {
    auto extents = ir::constantExtents(tile);
    auto shape = tile.buffer ? ir::constantShape(*tile.buffer) : std::nullopt;
    if (!extents || !shape || extents->size() != shape->size())
        return false;
    size_t d = 0;
    while (d < extents->size() && (*extents)[d] == 1)
        ++d;
    for (++d; d < extents->size(); ++d)
        if ((*extents)[d] != (*shape)[d])
            return false;
    return true;
}

// Shared buffers that TileLang 0.1.15 stores with a TMA tensor copy on sm_90a: the source of a copy to a
// strided global tile (a contiguous one goes by a 1-D bulk copy, which needs the row-major layout) that the
// program lets use TMA (T.copy(..., disable_tma=True) is a SIMT copy, which keeps the row-major layout).
std::set<const ir::Buffer*> tmaTensorStoreSources(const ir::Stmt& kernel) {
    std::set<const ir::Buffer*> sources;
    ir::walkStmts(kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        if (s.kind == ir::StmtKind::Copy && s.src.buffer && s.dst.buffer &&
            s.src.buffer->scope == ir::MemoryScope::Shared &&
            s.dst.buffer->scope == ir::MemoryScope::Global && !s.disableTma && !isContiguousTile(s.dst))
            sources.insert(s.src.buffer);
    });
    return sources;
}

// The layout of a TMA store's source, as TileLang chooses it: the widest swizzle whose 16-byte chunks tile
// the rows, over boxes of the swizzle's width (a wider tile is several boxes side by side).
std::optional<SharedLayoutChoice> tmaStoreLayout(int64_t rows, int64_t cols, int bits) {
    auto choice = layout::chooseSharedLayout(rows, cols, bits, true, false);
    if (!choice || !swizzleOf(choice->kind))
        return std::nullopt;
    choice.value().reason =
        "source of a TMA store to a strided global tile (TileLang's layout on sm_90a): " + choice->reason;
    return *choice;
}

} // namespace

void runSharedLayouts(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                      DiagnosticEngine& diagnostics) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        check::KernelSharedMemory budget = check::kernelSharedMemory(*kernel.kernel);
        std::map<const ir::Buffer*, const ir::LayoutAnnotation*> annotations;
        std::map<const ir::Buffer*, std::vector<Request>> requests;
        const std::set<const ir::Buffer*> tmaStores = context.backend == Backend::Hopper
                                                          ? tmaTensorStoreSources(*kernel.kernel)
                                                          : std::set<const ir::Buffer*>{};
        ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            if (s.kind == ir::StmtKind::AnnotateLayout)
                for (const ir::LayoutAnnotation& a : s.layouts)
                    if (a.buffer && a.buffer->scope == ir::MemoryScope::Shared)
                        annotations[a.buffer] = &a;
        });
        for (const layout::GemmPlan& g : kernel.gemms) {
            const bool wgmma = g.grid.instruction == layout::GemmInstructionKind::Wgmma;
            for (int operand = 0; operand < 2; ++operand) {
                const ir::Region& r = operand == 0 ? g.gemm->a : g.gemm->b;
                if (!r.buffer || r.buffer->scope != ir::MemoryScope::Shared)
                    continue;
                std::optional<std::vector<int64_t>> shape = ir::constantShape(*r.buffer);
                if (!shape || shape->size() < 2)
                    continue;
                const bool kMajor = operand == 0 ? !g.gemm->transposeA : g.gemm->transposeB;
                const int64_t rows = (*shape)[shape->size() - 2], cols = shape->back();
                // An MN-major wgmma operand's swizzle panel may not be wider than the columns one instruction
                // and one warpgroup read (TileLang's `continuity`): A's 64 rows of M, B's instruction N.
                int64_t continuity = 0;
                if (wgmma && !kMajor)
                    continuity = operand == 0 ? std::gcd<int64_t>(64, g.grid.warpTileM)
                                              : std::gcd(g.grid.atomN, g.grid.warpTileN);
                auto choice = layout::chooseSharedLayout(rows, cols, ir::dtypeBits(r.buffer->dtype), kMajor,
                                                         !wgmma, continuity);
                if (!choice) {
                    if (!annotations.count(r.buffer))
                        diagnostics.error(choice.error().code, g.gemm->range, choice.error().message,
                                          choice.error().hint);
                    continue;
                }
                choice.value().reason =
                    std::string(operand == 0 ? "A" : "B") + " operand of " + g.instruction.name + " gemm" +
                    (context.lineOf(g.gemm->range).empty() ? "" : " at " + context.lineOf(g.gemm->range)) +
                    " (" + (kMajor ? "K-major" : "MN-major") + "): " + choice->reason;
                requests[r.buffer].push_back({*choice, g.gemm});
            }
        }
        for (const ir::Buffer* b : kernel.kernel->allocations) {
            if (b->scope != ir::MemoryScope::Shared)
                continue;
            std::optional<std::vector<int64_t>> shape = ir::constantShape(*b);
            if (!shape)
                continue;
            layout::SharedBufferPlan sp;
            sp.buffer = b;
            sp.unswizzled = Layout::linear(*shape);
            const int bits = ir::dtypeBits(b->dtype);
            const int64_t rows = shape->size() >= 2 ? (*shape)[shape->size() - 2] : 1;
            const int64_t cols = shape->back();
            sp.choice.kind = SharedLayoutKind::Linear;
            sp.choice.layout = sp.unswizzled;
            sp.choice.reason = "not a gemm operand: row-major";
            if (auto it = annotations.find(b); it != annotations.end()) {
                const ir::LayoutAnnotation& a = *it->second;
                sp.annotated = true;
                std::optional<layout::LayoutResult<Layout>> made;
                switch (a.kind) {
                case ir::LayoutAnnotationKind::Swizzled:
                case ir::LayoutAnnotationKind::WgmmaSwizzled: {
                    const bool allowPad = a.kind == ir::LayoutAnnotationKind::Swizzled && a.allowPad;
                    const int64_t c = a.kind == ir::LayoutAnnotationKind::WgmmaSwizzled && a.continuity > 0
                                          ? std::min<int64_t>(a.continuity, cols)
                                          : cols;
                    auto choice = layout::chooseSharedLayout(rows, c, bits, a.kMajor, allowPad);
                    if (!choice) {
                        diagnostics.error(choice.error().code, a.range, choice.error().message,
                                          choice.error().hint);
                        break;
                    }
                    if (c != cols && swizzleOf(choice->kind)) {
                        auto full = layout::makeSwizzledLayout(*swizzleOf(choice->kind), rows, cols, bits);
                        if (full)
                            choice.value().layout = *full;
                    }
                    sp.choice = *choice;
                    sp.choice.reason = std::string(a.kind == ir::LayoutAnnotationKind::Swizzled
                                                       ? "T.annotate_layout make_swizzled_layout"
                                                       : "T.annotate_layout make_wgmma_swizzled_layout") +
                                       ": " + choice->reason;
                    break;
                }
                case ir::LayoutAnnotationKind::FullBankSwizzled:
                case ir::LayoutAnnotationKind::HalfBankSwizzled:
                case ir::LayoutAnnotationKind::QuarterBankSwizzled: {
                    const layout::SwizzleKind kind = a.kind == ir::LayoutAnnotationKind::FullBankSwizzled
                                                         ? layout::SwizzleKind::Full128B
                                                     : a.kind == ir::LayoutAnnotationKind::HalfBankSwizzled
                                                         ? layout::SwizzleKind::Half64B
                                                         : layout::SwizzleKind::Quarter32B;
                    auto l = layout::makeSwizzledLayout(kind, rows, cols, bits);
                    if (!l) {
                        diagnostics.error(l.error().code, a.range, l.error().message, l.error().hint);
                        break;
                    }
                    sp.choice.kind = *kindOfSwizzle(kind);
                    sp.choice.layout = *l;
                    sp.choice.reason =
                        std::string("T.annotate_layout ") + layout::swizzleKindName(kind) + " swizzle";
                    break;
                }
                case ir::LayoutAnnotationKind::Linear:
                    sp.choice.reason = "T.annotate_layout make_linear_layout";
                    break;
                case ir::LayoutAnnotationKind::CustomLayout: {
                    std::map<const ir::Var*, layout::IndexExpr> vars;
                    for (size_t d = 0; d < a.placeholders.size() && d < shape->size(); ++d)
                        vars[a.placeholders[d]] =
                            layout::IndexExpr::var(layout::inputVarName(d), (*shape)[d]);
                    std::vector<layout::IndexExpr> forward;
                    bool ok = !a.forward.empty();
                    for (const ir::ExprPtr& e : a.forward) {
                        auto x = toIndexExpr(e, vars);
                        ok = ok && x.has_value();
                        if (x)
                            forward.push_back(*x);
                    }
                    if (!ok) {
                        diagnostics.error("layout-annotation-expr", a.range,
                                          "the T.Layout for '" + b->name +
                                              "' is not integer index arithmetic of its parameters");
                        break;
                    }
                    sp.choice.layout = Layout(*shape, forward);
                    sp.choice.kind = SharedLayoutKind::Linear;
                    if (shape->size() == 2)
                        if (auto k = layout::detectSwizzleKind(sp.choice.layout, bits))
                            sp.choice.kind = *kindOfSwizzle(*k);
                    sp.choice.reason = "T.annotate_layout T.Layout (custom)";
                    break;
                }
                case ir::LayoutAnnotationKind::CustomFragment:
                case ir::LayoutAnnotationKind::FullyReplicated:
                    break;
                }
            } else if (auto rq = requests.find(b); rq != requests.end() && !rq->second.empty()) {
                SharedLayoutChoice chosen = rq->second.front().choice;
                for (size_t k = 1; k < rq->second.size(); ++k) {
                    const SharedLayoutChoice& other = rq->second[k].choice;
                    if (other.kind == chosen.kind)
                        continue;
                    auto s1 = swizzleOf(chosen.kind), s2 = swizzleOf(other.kind);
                    if (s1 && s2) {
                        auto merged = layout::mergeSwizzleKinds(*s1, *s2);
                        auto l = layout::makeSwizzledLayout(merged, rows, cols, bits);
                        if (l) {
                            chosen.kind = *kindOfSwizzle(merged);
                            chosen.layout = *l;
                            chosen.reason += "; merged with another gemm's " +
                                             std::string(layout::sharedLayoutKindName(other.kind)) +
                                             ": the smaller swizzle serves both";
                        }
                    } else {
                        // A padded and a swizzled request: the wgmma side cannot take padding.
                        if (chosen.kind == SharedLayoutKind::Padded)
                            chosen = other;
                    }
                }
                sp.choice = chosen;
            } else if (tmaStores.count(b) && shape->size() == 2) {
                if (auto choice = tmaStoreLayout(rows, cols, bits))
                    sp.choice = *choice;
            }
            if (shape->size() > 2 && sp.choice.layout.inputShape().size() == 2)
                sp.choice.layout = expandTo(sp.choice.layout, *shape);
            sp.choice.reason += "; " + descriptorNote(sp.choice.kind);
            sp.bytes = layout::shapeSize(*shape) * ir::dtypeBytes(b->dtype);
            for (const check::SharedBufferBudget& bb : budget.buffers)
                if (bb.buffer == b)
                    sp.stages = bb.stages;
            kernel.sharedBuffers.push_back(std::move(sp));
        }
    }
}

} // namespace tb::passes
