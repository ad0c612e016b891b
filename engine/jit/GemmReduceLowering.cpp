// T.gemm and the reductions. A float gemm is one call of the ahead-of-time kernel (FloatGemm.h) on float
// views of op(A), op(B) and C: the on-chip tiles themselves where they store float32, else float copies
// (and C rounded back to its dtype after). It sums every C element's products in k order exactly as the
// interpreter does. Integer and float64 gemms are loops here, in int64 or double. Reductions run each
// output element's extent loop in order, in double (int64 for integer buffers), like Executor.cpp.
#include "engine/exec/HostTensor.h"
#include "engine/jit/Lowering.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <string>
#include <vector>

namespace tb::jit {

using ir::DType;
using ir::Stmt;
using llvm::Value;

namespace {

// Whether every product of two values of these types is exact in float: significands of at most 24 bits
// together and magnitudes far from float's subnormals and overflow (fp16, fp8, 8-bit integers). Then a
// fused multiply-add rounds once, as the interpreter's acc + a * b does after an exact a * b, so the JIT
// may use one FMA instead of a multiply and an add and stay bit-identical.
bool exactFloatProducts(DType a, DType b) {
    auto narrow = [](DType t) {
        return t == DType::Float16 || t == DType::Float8E4M3 || t == DType::Float8E5M2 || t == DType::Int8 ||
               t == DType::UInt8;
    };
    return narrow(a) && narrow(b);
}

} // namespace

// One operand of a gemm: a matrix over a buffer's elements, in the buffer's storage type (storageType).
struct GemmMatrix {
    const ir::Buffer* buffer = nullptr;
    llvm::Type* element = nullptr; // the buffer's storage type
    Value* base = nullptr;         // element (0, 0)
    int64_t rows = 0, cols = 0, rowStride = 0, colStride = 0;

    Value* at(llvm::IRBuilder<>& b, Value* row, Value* col) const {
        Value* offset =
            b.CreateAdd(b.CreateMul(row, b.getInt64(rowStride)), b.CreateMul(col, b.getInt64(colStride)));
        return b.CreateGEP(element, base, offset);
    }
};

// A T.gemm as the lowerings see it: C[m, n] (+)= op(A)[m, k] op(B)[k, n].
struct GemmOperands {
    GemmMatrix a, b, c;
    bool transposeA = false, transposeB = false;
    int64_t m = 0, n = 0, k = 0;
    Value* clear = nullptr; // i1: start from zero instead of C
    DType ta = DType::Float32, tb = DType::Float32, tc = DType::Float32;

    Value* aAt(llvm::IRBuilder<>& builder, Value* i, Value* kk) const {
        return transposeA ? a.at(builder, kk, i) : a.at(builder, i, kk);
    }
    Value* bAt(llvm::IRBuilder<>& builder, Value* kk, Value* j) const {
        return transposeB ? b.at(builder, j, kk) : b.at(builder, kk, j);
    }
    Value* cAt(llvm::IRBuilder<>& builder, Value* i, Value* j) const { return c.at(builder, i, j); }
};

void Lowerer::lowerGemm(const Stmt& s) {
    Rect ra = evalRect(s.a, s.range);
    Rect rb = evalRect(s.b, s.range);
    Rect rc = evalRect(s.c, s.range);
    auto matrix = [&](Rect& r, const char* role) {
        size_t rank = r.extents.size();
        if (rank < 2)
            throw Unsupported{std::string("a gemm operand ") + role + " of rank " + std::to_string(rank)};
        for (size_t d = 0; d + 2 < rank; ++d)
            if (r.extents[d] != 1)
                throw Unsupported{std::string("a gemm operand ") + role +
                                  " with a leading extent that is not 1"};
        for (size_t d = rank - 2; d < rank; ++d)
            if (r.extents[d] < 0)
                throw Unsupported{"a negative gemm extent"};
        // Both corners in bounds, as the interpreter checks (an empty side counts as extent 1).
        Rect corners = r;
        for (size_t d = rank - 2; d < rank; ++d)
            corners.extents[d] = std::max<int64_t>(r.extents[d], 1);
        checkRectInside(corners, s);
        const BufferShape& shape = shapeOf(r.buffer);
        GemmMatrix m;
        m.buffer = r.buffer;
        m.element = storageType(r.buffer);
        m.base = elementAt(r.buffer, bufferBase(r.buffer, s.range), linearOffset(r, r.mins));
        m.rows = r.extents[rank - 2];
        m.cols = r.extents[rank - 1];
        m.rowStride = shape.strides[rank - 2];
        m.colStride = shape.strides[rank - 1];
        return m;
    };
    GemmOperands g;
    g.a = matrix(ra, "A");
    g.b = matrix(rb, "B");
    g.c = matrix(rc, "C");
    g.transposeA = s.transposeA;
    g.transposeB = s.transposeB;
    g.m = s.transposeA ? g.a.cols : g.a.rows;
    g.k = s.transposeA ? g.a.rows : g.a.cols;
    int64_t kb = s.transposeB ? g.b.cols : g.b.rows;
    g.n = s.transposeB ? g.b.rows : g.b.cols;
    if (g.k != kb || g.c.rows != g.m || g.c.cols != g.n)
        throw Unsupported{"a gemm whose shapes do not match (the interpreter reports it)"};
    g.clear = s.clearAccum ? evalBool(s.clearAccum) : m_b.getFalse();
    g.ta = s.a.buffer->dtype;
    g.tb = s.b.buffer->dtype;
    g.tc = s.c.buffer->dtype;
    bool integer = !ir::isFloat(g.ta) && !ir::isFloat(g.tb);
    bool wide = g.ta == DType::Float64 || g.tb == DType::Float64;
    if (integer || wide)
        lowerExactGemm(g);
    else
        lowerSingleGemm(g);
}

void Lowerer::lowerExactGemm(const GemmOperands& g) {
    bool integer = !ir::isFloat(g.ta) && !ir::isFloat(g.tb);
    llvm::IRBuilder<> entry(m_allocaBlock, m_allocaBlock->getFirstInsertionPt());
    llvm::Type* accType = integer ? m_i64 : m_f64;
    Value* acc = entry.CreateAlloca(accType);
    emitLoop(i64(g.m), [&](Value* i) {
        emitLoop(i64(g.n), [&](Value* j) {
            Value* old = loadStored(g.c.buffer, g.cAt(m_b, i, j));
            Value* start = integer ? m_b.CreateSelect(g.clear, i64(0), storedToInteger(old))
                                   : m_b.CreateSelect(g.clear, f64(0), old);
            m_b.CreateStore(start, acc);
            emitLoop(i64(g.k), [&](Value* kk) {
                Value* x = loadStored(g.a.buffer, g.aAt(m_b, i, kk));
                Value* y = loadStored(g.b.buffer, g.bAt(m_b, kk, j));
                Value* sum = m_b.CreateLoad(accType, acc);
                Value* next = integer
                                  ? m_b.CreateAdd(sum, m_b.CreateMul(storedToInteger(x), storedToInteger(y)))
                                  : m_b.CreateFAdd(sum, m_b.CreateFMul(x, y));
                m_b.CreateStore(next, acc);
            });
            Value* total = m_b.CreateLoad(accType, acc);
            Value* result = integer ? convertStored(integerToStored(total, DType::Int64), DType::Int64, g.tc)
                                    : convertStored(total, DType::Float64, g.tc);
            storeStored(g.c.buffer, result, g.cAt(m_b, i, j));
        });
    });
}

void Lowerer::lowerSingleGemm(const GemmOperands& g) {
    const int64_t m = g.m, n = g.n, k = g.k;
    llvm::IRBuilder<> entry(m_allocaBlock, m_allocaBlock->getFirstInsertionPt());
    // A float view of op(matrix) (rows x cols) for the runtime: the buffer itself when `direct` (it stores
    // float32 values), else a float copy in a stack array (row-major).
    struct View {
        Value* data;
        int64_t rowStride, colStride;
    };
    auto floatView = [&](const GemmMatrix& matrix, bool transpose, int64_t rows, int64_t cols, bool direct,
                         const char* name) -> View {
        if (direct)
            return {matrix.base, transpose ? matrix.colStride : matrix.rowStride,
                    transpose ? matrix.rowStride : matrix.colStride};
        auto* array = entry.CreateAlloca(m_f32, i64(std::max<int64_t>(rows * cols, 1)), name);
        array->setAlignment(llvm::Align(64));
        emitLoop(i64(rows), [&](Value* i) {
            emitLoop(i64(cols), [&](Value* j) {
                Value* element = transpose ? matrix.at(m_b, j, i) : matrix.at(m_b, i, j);
                // Exact for A and B (their values are float32-exact); C is rounded to float first, as the
                // interpreter starts its float accumulator from C.
                Value* value = m_b.CreateFPTrunc(loadStored(matrix.buffer, element), m_f32);
                m_b.CreateStore(value, m_b.CreateInBoundsGEP(m_f32, array,
                                                             m_b.CreateAdd(m_b.CreateMul(i, i64(cols)), j)));
            });
        });
        return {array, cols, 1};
    };
    // An operand in C's storage (the same buffer, or views of one tensor) is copied first, as the
    // interpreter reads all of A and B before it writes C.
    auto floatStorage = [&](const GemmMatrix& matrix) { return matrix.element == m_f32; };
    auto sharesC = [&](const GemmMatrix& matrix) {
        return ir::storageOf(matrix.buffer) == ir::storageOf(g.c.buffer);
    };
    const bool cDirect = floatStorage(g.c) && g.tc == DType::Float32;
    View a = floatView(g.a, g.transposeA, m, k, floatStorage(g.a) && !sharesC(g.a), "gemm.a");
    View b = floatView(g.b, g.transposeB, k, n, floatStorage(g.b) && !sharesC(g.b), "gemm.b");
    View c = floatView(g.c, false, m, n, cDirect, "gemm.c");
    Value* flags = m_b.CreateZExt(g.clear, m_i64);
    if (exactFloatProducts(g.ta, g.tb))
        flags = m_b.CreateOr(flags, i64(2));
    llvm::Type* ptr = m_b.getPtrTy();
    auto* type = llvm::FunctionType::get(
        m_b.getVoidTy(),
        {ptr, m_i64, m_i64, ptr, m_i64, m_i64, ptr, m_i64, m_i64, m_i64, m_i64, m_i64, m_i64}, false);
    llvm::FunctionCallee callee = m_module.getOrInsertFunction("tbjit_gemm_f32", type);
    if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        fn->setDoesNotThrow();
        fn->setOnlyAccessesArgMemory(); // the alias facts about every other buffer survive the call
        fn->setWillReturn();
    }
    m_b.CreateCall(callee,
                   {a.data, i64(a.rowStride), i64(a.colStride), b.data, i64(b.rowStride), i64(b.colStride),
                    c.data, i64(c.rowStride), i64(c.colStride), i64(m), i64(n), i64(k), flags});
    if (cDirect)
        return;
    // The float sums into C, rounded to its dtype.
    emitLoop(i64(m), [&](Value* i) {
        emitLoop(i64(n), [&](Value* j) {
            Value* sum = m_b.CreateLoad(
                m_f32, m_b.CreateInBoundsGEP(m_f32, c.data, m_b.CreateAdd(m_b.CreateMul(i, i64(n)), j)));
            storeStored(g.c.buffer, convertStored(m_b.CreateFPExt(sum, m_f64), DType::Float32, g.tc),
                        g.cAt(m_b, i, j));
        });
    });
}

void Lowerer::lowerReduce(const Stmt& s) {
    if (!s.srcBuffer || !s.dstBuffer)
        throw Unsupported{"a reduce without buffers"};
    const BufferShape& src = shapeOf(s.srcBuffer);
    const BufferShape& dst = shapeOf(s.dstBuffer);
    Value* srcBase = bufferBase(s.srcBuffer, s.range);
    Value* dstBase = bufferBase(s.dstBuffer, s.range);
    size_t rank = src.shape.size();
    if (s.dim < 0 || static_cast<size_t>(s.dim) >= rank)
        throw Unsupported{"a reduce along a dim the source does not have"};
    size_t dim = static_cast<size_t>(s.dim);
    std::vector<int64_t> removed(src.shape), kept(src.shape);
    removed.erase(removed.begin() + static_cast<ptrdiff_t>(dim));
    kept[dim] = 1;
    if (dst.shape != removed && dst.shape != kept)
        throw Unsupported{"a reduce whose destination shape does not fit (the interpreter reports it)"};
    int64_t outer = 1, inner = 1, extent = src.shape[dim];
    for (size_t d = 0; d < dim; ++d)
        outer *= src.shape[d];
    for (size_t d = dim + 1; d < rank; ++d)
        inner *= src.shape[d];
    DType from = s.srcBuffer->dtype, to = s.dstBuffer->dtype;
    bool integer = !ir::isFloat(from) && !ir::isFloat(to);
    ir::ReduceKind kind = s.reduceKind;
    bool bitwise =
        kind == ir::ReduceKind::BitAnd || kind == ir::ReduceKind::BitOr || kind == ir::ReduceKind::BitXor;
    if (bitwise && !integer)
        throw Unsupported{"a bitwise reduction of float buffers (the interpreter reports it)"};
    const double inf = std::numeric_limits<double>::infinity();
    llvm::IRBuilder<> entry(m_allocaBlock, m_allocaBlock->getFirstInsertionPt());
    Value* acc = entry.CreateAlloca(integer ? m_i64 : m_f64);

    emitLoop(i64(outer), [&](Value* o) {
        emitLoop(i64(inner), [&](Value* in) {
            Value* column =
                elementAt(s.srcBuffer, srcBase, m_b.CreateAdd(m_b.CreateMul(o, i64(extent * inner)), in));
            Value* outPtr = elementAt(s.dstBuffer, dstBase, m_b.CreateAdd(m_b.CreateMul(o, i64(inner)), in));
            auto element = [&](Value* i) {
                return loadStored(s.srcBuffer, elementAt(s.srcBuffer, column, m_b.CreateMul(i, i64(inner))));
            };
            Value* oldStored = loadStored(s.dstBuffer, outPtr);
            if (!integer) {
                using ir::ReduceKind;
                double start = kind == ReduceKind::Max ? -inf : kind == ReduceKind::Min ? inf : 0.0;
                m_b.CreateStore(f64(start), acc);
                emitLoop(i64(extent), [&](Value* i) {
                    Value* x = element(i);
                    Value* sum = m_b.CreateLoad(m_f64, acc);
                    Value* next = nullptr;
                    switch (kind) {
                    case ReduceKind::Max:
                        next = floatMax(sum, x);
                        break;
                    case ReduceKind::Min:
                        next = floatMin(sum, x);
                        break;
                    case ReduceKind::Sum:
                        next = m_b.CreateFAdd(sum, x);
                        break;
                    case ReduceKind::AbsSum:
                        next = m_b.CreateFAdd(sum, intrinsic(llvm::Intrinsic::fabs, {x}));
                        break;
                    default:
                        next = floatMax(sum, intrinsic(llvm::Intrinsic::fabs, {x}));
                        break; // AbsMax
                    }
                    m_b.CreateStore(next, acc);
                });
                Value* r = m_b.CreateLoad(m_f64, acc);
                if (!s.clear)
                    r = kind == ReduceKind::Min ? floatMin(oldStored, r)
                        : (kind == ReduceKind::Sum || kind == ReduceKind::AbsSum)
                            ? m_b.CreateFAdd(oldStored, r)
                            : floatMax(oldStored, r);
                storeStored(s.dstBuffer, convertStored(r, DType::Float64, to), outPtr);
                return;
            }
            using ir::ReduceKind;
            int64_t start = kind == ReduceKind::Max      ? std::numeric_limits<int64_t>::min()
                            : kind == ReduceKind::Min    ? std::numeric_limits<int64_t>::max()
                            : kind == ReduceKind::BitAnd ? -1
                                                         : 0;
            m_b.CreateStore(i64(start), acc);
            emitLoop(i64(extent), [&](Value* i) {
                Value* v = storedToInteger(element(i));
                Value* sum = m_b.CreateLoad(m_i64, acc);
                Value* absV = m_b.CreateSelect(m_b.CreateICmpSLT(v, i64(0)), m_b.CreateSub(i64(0), v), v);
                Value* next = nullptr;
                switch (kind) {
                case ReduceKind::Max:
                    next = m_b.CreateSelect(m_b.CreateICmpSLT(sum, v), v, sum);
                    break;
                case ReduceKind::Min:
                    next = m_b.CreateSelect(m_b.CreateICmpSLT(v, sum), v, sum);
                    break;
                case ReduceKind::Sum:
                    next = m_b.CreateAdd(sum, v);
                    break;
                case ReduceKind::AbsSum:
                    next = m_b.CreateAdd(sum, absV);
                    break;
                case ReduceKind::AbsMax:
                    next = m_b.CreateSelect(m_b.CreateICmpSLT(sum, absV), absV, sum);
                    break;
                case ReduceKind::BitAnd:
                    next = m_b.CreateAnd(sum, v);
                    break;
                case ReduceKind::BitOr:
                    next = m_b.CreateOr(sum, v);
                    break;
                case ReduceKind::BitXor:
                    next = m_b.CreateXor(sum, v);
                    break;
                }
                m_b.CreateStore(next, acc);
            });
            Value* r = m_b.CreateLoad(m_i64, acc);
            if (!s.clear) {
                Value* old = storedToInteger(oldStored);
                switch (kind) {
                case ReduceKind::Max:
                case ReduceKind::AbsMax:
                    r = m_b.CreateSelect(m_b.CreateICmpSLT(old, r), r, old);
                    break;
                case ReduceKind::Min:
                    r = m_b.CreateSelect(m_b.CreateICmpSLT(r, old), r, old);
                    break;
                case ReduceKind::Sum:
                case ReduceKind::AbsSum:
                    r = m_b.CreateAdd(r, old);
                    break;
                case ReduceKind::BitAnd:
                    r = m_b.CreateAnd(r, old);
                    break;
                case ReduceKind::BitOr:
                    r = m_b.CreateOr(r, old);
                    break;
                case ReduceKind::BitXor:
                    r = m_b.CreateXor(r, old);
                    break;
                }
            }
            storeStored(s.dstBuffer, integerToStored(wrapInteger(r, to), to), outPtr);
        });
    });
}

} // namespace tb::jit
