// Checks of single tile operations (see TileOpChecks.h). The rules follow TileLang's own: copy extents
// match after dropping size-1 dims; gemm uses the last two dims of each operand (leading dims must be 1),
// A/B in shared or fragment, C a fragment, with the dtype pairs the tensor cores implement; a reduction
// drops (or keeps as 1) the reduced dim.
#include "engine/check/TileOpChecks.h"

#include "engine/check/CheckSupport.h"
#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tb::check {

using namespace tb::ir;

namespace {

// The extents that are not the constant 1.
std::vector<ExprPtr> nonUnitExtents(const Region& region) {
    std::vector<ExprPtr> out;
    for (const ExprPtr& e : region.extents)
        if (e && !isConstant(e, 1))
            out.push_back(e);
    return out;
}

bool allConstant(const std::vector<ExprPtr>& dims) {
    for (const ExprPtr& e : dims)
        if (!constantInt(e))
            return false;
    return true;
}

bool shapesDiffer(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
    if (a.size() != b.size())
        return allConstant(a) && allConstant(b);
    for (size_t i = 0; i < a.size(); ++i)
        if (extentsDiffer(a[i], b[i]))
            return true;
    return false;
}

std::vector<ExprPtr> dropUnitDims(const std::vector<ExprPtr>& dims) {
    std::vector<ExprPtr> out;
    for (const ExprPtr& e : dims)
        if (e && !isConstant(e, 1))
            out.push_back(e);
    return out;
}

} // namespace

void checkCopy(const Stmt& s, DiagnosticEngine& diagnostics) {
    if (!s.src.buffer || !s.dst.buffer)
        return;
    std::vector<ExprPtr> src = nonUnitExtents(s.src);
    std::vector<ExprPtr> dst = nonUnitExtents(s.dst);
    if (shapesDiffer(src, dst)) {
        Diagnostic& d = diagnostics.error(
            "copy-extent-mismatch", s.range,
            "copy extents do not match: source " + s.src.buffer->name + " has extents " +
                shapeText(s.src.extents) + " but destination " + s.dst.buffer->name + " has " +
                shapeText(s.dst.extents),
            "size-1 dimensions are ignored; the other extents must be equal in order, so slice the source or "
            "the destination to the same tile shape");
        addAllocationNotes(d, {s.src.buffer, s.dst.buffer});
        return;
    }
    if (s.src.buffer->scope == MemoryScope::Fragment && s.dst.buffer->scope == MemoryScope::Fragment &&
        shapesDiffer(dropUnitDims(s.src.buffer->shape), dropUnitDims(s.dst.buffer->shape))) {
        Diagnostic& d =
            diagnostics.error("copy-fragment-shape", s.range,
                              "copy between fragments of different shapes: " + s.src.buffer->name + " is " +
                                  shapeText(s.src.buffer->shape) + " but " + s.dst.buffer->name + " is " +
                                  shapeText(s.dst.buffer->shape),
                              "a fragment-to-fragment copy needs both fragments to have the same shape (and "
                              "so the same layout); "
                              "copy through shared memory or write a T.Parallel loop");
        addAllocationNotes(d, {s.src.buffer, s.dst.buffer});
    }
}

namespace {

enum class GemmFamily { F16, BF16, FP8, Int8, TF32, F64, Unsupported };

GemmFamily gemmFamily(DType t) {
    switch (t) {
    case DType::Float16:
        return GemmFamily::F16;
    case DType::BFloat16:
        return GemmFamily::BF16;
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return GemmFamily::FP8;
    case DType::Int8:
    case DType::UInt8:
        return GemmFamily::Int8;
    case DType::Float32:
        return GemmFamily::TF32;
    case DType::Float64:
        return GemmFamily::F64;
    case DType::Bool:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
        return GemmFamily::Unsupported;
    }
    return GemmFamily::Unsupported;
}

// Accumulator dtypes the tensor-core instructions offer per operand family (mma.sync and wgmma).
std::vector<DType> accumulatorsFor(GemmFamily family) {
    switch (family) {
    case GemmFamily::F16:
        return {DType::Float32, DType::Float16};
    case GemmFamily::BF16:
        return {DType::Float32};
    case GemmFamily::FP8:
        return {DType::Float32, DType::Float16};
    case GemmFamily::Int8:
        return {DType::Int32};
    case GemmFamily::TF32:
        return {DType::Float32};
    case GemmFamily::F64:
        return {DType::Float64};
    case GemmFamily::Unsupported:
        return {};
    }
    return {};
}

std::string dtypeList(const std::vector<DType>& types) {
    std::string out;
    for (size_t i = 0; i < types.size(); ++i)
        out += std::string(i ? (i + 1 == types.size() ? " or " : ", ") : "") + dtypeName(types[i]);
    return out;
}

// The operand's extents with leading size-1 dims dropped down to rank 2 (A_s[stage, :, :] is 2-D).
std::vector<ExprPtr> gemmDims(const Region& r) {
    std::vector<ExprPtr> dims = r.extents;
    while (dims.size() > 2 && isConstant(dims.front(), 1))
        dims.erase(dims.begin());
    return dims;
}

void checkGemmDtypes(const Stmt& s, DiagnosticEngine& diagnostics) {
    DType a = s.a.buffer->dtype, b = s.b.buffer->dtype, c = s.c.buffer->dtype;
    GemmFamily fa = gemmFamily(a), fb = gemmFamily(b);
    const char* hint =
        "T.gemm takes float16, bfloat16, float8, int8 or float32 (tf32) operands of one dtype, "
        "accumulating in float32 (float16 also for float16/float8, int32 for int8)";
    if (fa == GemmFamily::Unsupported || fb == GemmFamily::Unsupported) {
        const Buffer* bad = fa == GemmFamily::Unsupported ? s.a.buffer : s.b.buffer;
        Diagnostic& d = diagnostics.error("gemm-dtype", s.range,
                                          std::string("gemm operand ") + (bad == s.a.buffer ? "A" : "B") +
                                              " (" + bad->name + ") is " + dtypeName(bad->dtype) +
                                              ", which the tensor cores do not multiply",
                                          hint);
        addAllocationNotes(d, {bad});
        return;
    }
    if (fa != fb || (fa != GemmFamily::FP8 && fa != GemmFamily::Int8 && a != b)) {
        Diagnostic& d = diagnostics.error(
            "gemm-dtype", s.range,
            std::string("gemm operands have different dtypes: A (") + s.a.buffer->name + ") is " +
                dtypeName(a) + " but B (" + s.b.buffer->name + ") is " + dtypeName(b),
            "cast one operand (copy it into a buffer of the other's dtype) first");
        addAllocationNotes(d, {s.a.buffer, s.b.buffer});
        return;
    }
    std::vector<DType> allowed = accumulatorsFor(fa);
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
        Diagnostic& d = diagnostics.error(
            "gemm-dtype", s.range,
            std::string("gemm accumulator C (") + s.c.buffer->name + ") is " + dtypeName(c) + " but " +
                dtypeName(a) + " operands accumulate in " + dtypeList(allowed),
            std::string("allocate the accumulator as ") + dtypeName(allowed.front()) +
                " and cast when storing the result");
        addAllocationNotes(d, {s.c.buffer});
    }
}

} // namespace

void checkGemm(const Stmt& s, DiagnosticEngine& diagnostics) {
    if (!s.a.buffer || !s.b.buffer || !s.c.buffer)
        return;
    if (s.c.buffer->scope != MemoryScope::Fragment) {
        Diagnostic& d = diagnostics.error("gemm-accumulator-scope", rangeOf(s.c, s),
                                          "gemm accumulator C (" + s.c.buffer->name + ") is a " +
                                              scopeName(s.c.buffer->scope) + " buffer; it must be a fragment",
                                          "allocate the accumulator with T.alloc_fragment");
        addAllocationNotes(d, {s.c.buffer});
    }
    for (const Region* r : {&s.a, &s.b}) {
        MemoryScope scope = r->buffer->scope;
        if (scope == MemoryScope::Shared || scope == MemoryScope::Fragment)
            continue;
        Diagnostic& d = diagnostics.error("gemm-operand-scope", rangeOf(*r, s),
                                          std::string("gemm operand ") + (r == &s.a ? "A" : "B") + " (" +
                                              r->buffer->name + ") is a " + scopeName(scope) +
                                              " buffer; it must be in shared memory or a fragment",
                                          "copy the tile into a T.alloc_shared buffer first and pass that");
        addAllocationNotes(d, {r->buffer});
    }
    checkGemmDtypes(s, diagnostics);

    std::vector<ExprPtr> a = gemmDims(s.a), b = gemmDims(s.b), c = gemmDims(s.c);
    std::string shapes = "A " + s.a.buffer->name + shapeText(a) + ", B " + s.b.buffer->name + shapeText(b) +
                         ", C " + s.c.buffer->name + shapeText(c) +
                         " (transpose_A=" + (s.transposeA ? "True" : "False") +
                         ", transpose_B=" + (s.transposeB ? "True" : "False") + ")";
    const char* hint =
        "C[M, N] += A[M, K] @ B[K, N]; transpose_A takes A as [K, M] and transpose_B takes B as [N, K]";
    if (a.size() != 2 || b.size() != 2 || c.size() != 2) {
        Diagnostic& d = diagnostics.error(
            "gemm-shape-mismatch", s.range,
            "gemm operands must be 2-D after dropping leading size-1 dims: " + shapes, hint);
        addAllocationNotes(d, {s.a.buffer, s.b.buffer, s.c.buffer});
        return;
    }
    ExprPtr m = s.transposeA ? a[1] : a[0], kA = s.transposeA ? a[0] : a[1];
    ExprPtr kB = s.transposeB ? b[1] : b[0], n = s.transposeB ? b[0] : b[1];
    std::vector<std::string> problems;
    auto compare = [&](const char* what, const ExprPtr& x, const char* xs, const ExprPtr& y, const char* ys) {
        if (extentsDiffer(x, y))
            problems.push_back(std::string(what) + " is " + printExpr(simplify(x)) + " in " + xs + " but " +
                               printExpr(simplify(y)) + " in " + ys);
    };
    compare("M", m, "A", c[0], "C");
    compare("N", n, "B", c[1], "C");
    compare("K", kA, "A", kB, "B");
    if (problems.empty())
        return;
    std::string message = "gemm shapes do not agree: " + shapes + ": ";
    for (size_t i = 0; i < problems.size(); ++i)
        message += (i ? "; " : "") + problems[i];
    Diagnostic& d = diagnostics.error("gemm-shape-mismatch", s.range, message, hint);
    addAllocationNotes(d, {s.a.buffer, s.b.buffer, s.c.buffer});
}

void checkReduce(const Stmt& s, DiagnosticEngine& diagnostics) {
    const Buffer* src = s.srcBuffer;
    const Buffer* dst = s.dstBuffer;
    if (!src || !dst)
        return;
    std::string op = std::string("reduce_") + reduceKindName(s.reduceKind);
    if (s.dim < 0 || static_cast<size_t>(s.dim) >= src->rank()) {
        Diagnostic& d = diagnostics.error("reduce-dim", s.range,
                                          op + " dim " + std::to_string(s.dim) + " is out of range for " +
                                              src->name + ", which has rank " + std::to_string(src->rank()),
                                          "dim counts from 0 (negative values count from the last dim)");
        addAllocationNotes(d, {src});
        return;
    }
    std::vector<ExprPtr> dropped, kept = src->shape;
    for (size_t i = 0; i < src->rank(); ++i)
        if (static_cast<int>(i) != s.dim)
            dropped.push_back(src->shape[i]);
    kept[static_cast<size_t>(s.dim)] = makeInt(1);
    auto matches = [&](const std::vector<ExprPtr>& expected) {
        if (expected.size() != dst->rank())
            return false;
        for (size_t i = 0; i < expected.size(); ++i)
            if (extentsDiffer(expected[i], dst->shape[i]))
                return false;
        return true;
    };
    if (matches(dropped) || matches(kept))
        return;
    Diagnostic& d = diagnostics.error("reduce-shape-mismatch", s.range,
                                      op + " of " + src->name + shapeText(src->shape) + " along dim " +
                                          std::to_string(s.dim) + " needs a destination of shape " +
                                          shapeText(dropped) + " (or " + shapeText(kept) + "), but " +
                                          dst->name + " is " + shapeText(dst->shape),
                                      "the destination has the source's shape without the reduced dim");
    addAllocationNotes(d, {src, dst});
}

void checkAtomicAdd(const Stmt& s, DiagnosticEngine& diagnostics) {
    const Buffer* dst = s.dst.buffer;
    if (!dst || dst->scope == MemoryScope::Global || dst->scope == MemoryScope::Shared)
        return;
    Diagnostic& d =
        diagnostics.error("atomic-add-scope", rangeOf(s.dst, s),
                          "atomic_add destination " + dst->name + " is a " + scopeName(dst->scope) +
                              " buffer; it must be in global or shared memory",
                          "registers are private to a thread; accumulate into the fragment with a "
                          "plain add, or atomically into a shared or global buffer");
    addAllocationNotes(d, {dst});
}

namespace {

void checkIndex(const Buffer& buffer, size_t dim, const ExprPtr& index, SourceRange range,
                DiagnosticEngine& diagnostics) {
    auto value = constantInt(index);
    auto extent = buffer.constantExtent(dim);
    if (!value || (*value >= 0 && (!extent || *value < *extent)))
        return;
    std::string message = "index " + std::to_string(*value) + " is out of range for dimension " +
                          std::to_string(dim) + " of " + buffer.name;
    message +=
        extent ? ", which has extent " + std::to_string(*extent) : std::string(" (indices start at 0)");
    Diagnostic& d = diagnostics.error("index-out-of-range", range, message,
                                      "valid indices of a dimension of extent n are 0 to n-1");
    addAllocationNotes(d, {&buffer});
}

void checkRegionBounds(const Region& r, const Stmt& s, DiagnosticEngine& diagnostics) {
    if (!r.buffer)
        return;
    for (size_t i = 0; i < r.buffer->rank() && i < r.mins.size() && i < r.extents.size(); ++i) {
        auto lo = constantInt(r.mins[i]);
        auto ext = constantInt(r.extents[i]);
        auto size = r.buffer->constantExtent(i);
        std::string message;
        if (lo && *lo < 0)
            message = "region starts at " + std::to_string(*lo) + " in dimension " + std::to_string(i) +
                      " of " + r.buffer->name + " (indices start at 0)";
        else if (lo && ext && size && *lo + *ext > *size)
            message = "region [" + std::to_string(*lo) + ", " + std::to_string(*lo + *ext) +
                      ") of dimension " + std::to_string(i) + " of " + r.buffer->name +
                      " exceeds its extent " + std::to_string(*size);
        else if (ext && size && *ext > *size)
            message = "region extent " + std::to_string(*ext) + " of dimension " + std::to_string(i) +
                      " of " + r.buffer->name + " exceeds its extent " + std::to_string(*size);
        if (message.empty())
            continue;
        // A copy guards its global side (TileLang's bound checks, TMA's zero fill): a tile reaching past the
        // tensor reads zeros there and does not write, like the last tile of a ragged size. Worth a warning
        // (that part of every tile is wasted work), not an error.
        const bool guarded =
            s.kind == StmtKind::Copy && r.buffer->scope == MemoryScope::Global && !(lo && *lo < 0);
        Diagnostic& d =
            guarded
                ? diagnostics.warning("copy-past-extent", rangeOf(r, s),
                                      message + "; the copy reads zeros and writes nothing past the extent",
                                      "a block size that divides the tensor's extent wastes no work")
                : diagnostics.error("index-out-of-range", rangeOf(r, s), message,
                                    "a slice lo:hi must satisfy 0 <= lo and hi <= the dimension's extent");
        addAllocationNotes(d, {r.buffer});
        return; // one report per region
    }
}

} // namespace

void checkConstantIndices(const Stmt& s, DiagnosticEngine& diagnostics) {
    if (s.kind == StmtKind::Store && s.buffer)
        for (size_t i = 0; i < s.indices.size() && i < s.buffer->rank(); ++i)
            checkIndex(*s.buffer, i, s.indices[i], s.range, diagnostics);
    forEachRegion(s, [&](const Region& r) { checkRegionBounds(r, s, diagnostics); });
    forEachStmtExpr(s, [&](const ExprPtr& root) {
        forEachExprNode(root, [&](const Expr& e) {
            if (e.kind != ExprKind::BufferLoad || !e.buffer)
                return;
            SourceRange range = e.range.valid ? e.range : s.range;
            for (size_t i = 0; i < e.operands.size() && i < e.buffer->rank(); ++i)
                checkIndex(*e.buffer, i, e.operands[i], range, diagnostics);
        });
    });
}

} // namespace tb::check
