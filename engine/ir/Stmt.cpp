#include "engine/ir/Stmt.h"

#include <cstdint>
#include <memory>
#include <utility>

namespace tb::ir {

const char* scopeName(MemoryScope scope) {
    switch (scope) {
    case MemoryScope::Global:
        return "global";
    case MemoryScope::Shared:
        return "shared";
    case MemoryScope::Fragment:
        return "fragment";
    case MemoryScope::Local:
        return "local";
    case MemoryScope::LocalVar:
        return "local.var";
    case MemoryScope::Barrier:
        return "shared.barrier";
    }
    return "?";
}

const Buffer* storageOf(const Buffer* buffer) {
    return buffer && buffer->viewOf ? buffer->viewOf : buffer;
}

const char* barrierOpName(BarrierOp op) {
    switch (op) {
    case BarrierOp::WaitParity:
        return "mbarrier_wait_parity";
    case BarrierOp::Arrive:
        return "mbarrier_arrive";
    case BarrierOp::ExpectTx:
        return "mbarrier_expect_tx";
    case BarrierOp::CpAsyncArrive:
        return "cp_async_barrier_noinc";
    }
    return "?";
}

const char* mmaIntrinsicOpName(MmaIntrinsicOp op) {
    switch (op) {
    case MmaIntrinsicOp::LdmatrixA:
        return "ldmatrix_a";
    case MmaIntrinsicOp::LdmatrixB:
        return "ldmatrix_b";
    case MmaIntrinsicOp::Mma:
        return "mma";
    case MmaIntrinsicOp::Stmatrix:
        return "stmatrix";
    }
    return "?";
}

std::string mmaEmitterText(const MmaEmitter& e) {
    auto flag = [](bool b) { return b ? "True" : "False"; };
    return std::string("TensorCoreIntrinEmitter(a_dtype=") + dtypeName(e.aDtype) +
           ", b_dtype=" + dtypeName(e.bDtype) + ", accum_dtype=" + dtypeName(e.accumDtype) +
           ", a_transposed=" + flag(e.aTransposed) + ", b_transposed=" + flag(e.bTransposed) +
           ", block_row_warps=" + std::to_string(e.blockRowWarps) +
           ", block_col_warps=" + std::to_string(e.blockColWarps) +
           ", warp_row_tiles=" + std::to_string(e.warpRowTiles) +
           ", warp_col_tiles=" + std::to_string(e.warpColTiles) + ", chunk=" + std::to_string(e.chunk) + ")";
}

const char* loopKindName(LoopKind kind) {
    switch (kind) {
    case LoopKind::Serial:
        return "serial";
    case LoopKind::Unroll:
        return "unroll";
    case LoopKind::Parallel:
        return "parallel";
    case LoopKind::Pipelined:
        return "pipelined";
    case LoopKind::Vectorized:
        return "vectorized";
    }
    return "?";
}

const char* gemmWarpPolicyName(GemmWarpPolicy p) {
    switch (p) {
    case GemmWarpPolicy::Square:
        return "Square";
    case GemmWarpPolicy::FullRow:
        return "FullRow";
    case GemmWarpPolicy::FullCol:
        return "FullCol";
    }
    return "?";
}

const char* evictionPolicyName(EvictionPolicy p) {
    switch (p) {
    case EvictionPolicy::Normal:
        return "evict_normal";
    case EvictionPolicy::First:
        return "evict_first";
    case EvictionPolicy::Last:
        return "evict_last";
    }
    return "?";
}

const char* reduceKindName(ReduceKind kind) {
    switch (kind) {
    case ReduceKind::Max:
        return "max";
    case ReduceKind::Min:
        return "min";
    case ReduceKind::Sum:
        return "sum";
    case ReduceKind::AbsSum:
        return "abssum";
    case ReduceKind::AbsMax:
        return "absmax";
    case ReduceKind::BitAnd:
        return "bitand";
    case ReduceKind::BitOr:
        return "bitor";
    case ReduceKind::BitXor:
        return "bitxor";
    }
    return "?";
}

const char* layoutAnnotationKindName(LayoutAnnotationKind kind) {
    switch (kind) {
    case LayoutAnnotationKind::Swizzled:
        return "swizzled";
    case LayoutAnnotationKind::WgmmaSwizzled:
        return "wgmma_swizzled";
    case LayoutAnnotationKind::FullBankSwizzled:
        return "full_bank_swizzled";
    case LayoutAnnotationKind::HalfBankSwizzled:
        return "half_bank_swizzled";
    case LayoutAnnotationKind::QuarterBankSwizzled:
        return "quarter_bank_swizzled";
    case LayoutAnnotationKind::Linear:
        return "linear";
    case LayoutAnnotationKind::CustomLayout:
        return "layout";
    case LayoutAnnotationKind::CustomFragment:
        return "fragment";
    case LayoutAnnotationKind::FullyReplicated:
        return "fully_replicated";
    }
    return "?";
}

std::optional<int64_t> Buffer::constantExtent(size_t i) const {
    if (i >= shape.size())
        return std::nullopt;
    return constantInt(shape[i]);
}

std::optional<int64_t> Buffer::constantElementCount() const {
    int64_t count = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        auto e = constantExtent(i);
        if (!e)
            return std::nullopt;
        count *= *e;
    }
    return count;
}

std::shared_ptr<Stmt> makeStmt(StmtKind kind, SourceRange range) {
    return std::make_shared<Stmt>(kind, range);
}

StmtPtr makeSeq(std::vector<StmtPtr> stmts, SourceRange range) {
    auto s = makeStmt(StmtKind::Seq, range);
    s->stmts = std::move(stmts);
    return s;
}

} // namespace tb::ir
