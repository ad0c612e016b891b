// T.gemm and the reductions. The float gemm follows the interpreter: op(A) and op(B) packed into float
// arrays, then for each row of C a float accumulator row updated k step by k step (acc = acc + a * b,
// no fused multiply-add), so every C element sums its products in k order exactly as the interpreter
// does. The accumulator row is processed in chunks of 64 columns held in eight <8 x float> registers
// across the k loop (emitted as vectors here, so the speed does not depend on LLVM's unrolling). Reductions
// run each output element's extent loop in order, in double (int64 for integer buffers), like Executor.cpp.
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

constexpr int64_t kGemmChunk = 64; // columns of C per register block
constexpr int64_t kLanes = 16;     // floats per vector (one zmm register with AVX-512, two ymm without)

struct Matrix {
    Value* base = nullptr; // element (0, 0)
    int64_t rows = 0, cols = 0, rowStride = 0, colStride = 0;
};

} // namespace

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
        Matrix m;
        m.base = m_b.CreateGEP(m_f64, bufferBase(r.buffer, s.range), linearOffset(r, r.mins));
        m.rows = r.extents[rank - 2];
        m.cols = r.extents[rank - 1];
        m.rowStride = shape.strides[rank - 2];
        m.colStride = shape.strides[rank - 1];
        return m;
    };
    Matrix a = matrix(ra, "A");
    Matrix b = matrix(rb, "B");
    Matrix c = matrix(rc, "C");
    int64_t m = s.transposeA ? a.cols : a.rows;
    int64_t k = s.transposeA ? a.rows : a.cols;
    int64_t kb = s.transposeB ? b.cols : b.rows;
    int64_t n = s.transposeB ? b.rows : b.cols;
    if (k != kb || c.rows != m || c.cols != n)
        throw Unsupported{"a gemm whose shapes do not match (the interpreter reports it)"};
    Value* clear = s.clearAccum ? evalBool(s.clearAccum) : m_b.getFalse();
    DType ta = s.a.buffer->dtype, tb = s.b.buffer->dtype, tc = s.c.buffer->dtype;

    auto at = [&](const Matrix& x, Value* r, Value* col) {
        Value* offset =
            m_b.CreateAdd(m_b.CreateMul(r, i64(x.rowStride)), m_b.CreateMul(col, i64(x.colStride)));
        return m_b.CreateGEP(m_f64, x.base, offset);
    };
    auto aAt = [&](Value* i, Value* kk) { return s.transposeA ? at(a, kk, i) : at(a, i, kk); };
    auto bAt = [&](Value* kk, Value* j) { return s.transposeB ? at(b, j, kk) : at(b, kk, j); };
    auto cAt = [&](Value* i, Value* j) { return at(c, i, j); };

    bool integer = !ir::isFloat(ta) && !ir::isFloat(tb);
    bool wide = ta == DType::Float64 || tb == DType::Float64;
    if (integer || wide) {
        llvm::IRBuilder<> entry(m_allocaBlock, m_allocaBlock->getFirstInsertionPt());
        llvm::Type* accType = integer ? m_i64 : m_f64;
        Value* acc = entry.CreateAlloca(accType);
        emitLoop(i64(m), [&](Value* i) {
            emitLoop(i64(n), [&](Value* j) {
                Value* old = m_b.CreateLoad(m_f64, cAt(i, j));
                Value* start = integer ? m_b.CreateSelect(clear, i64(0), storedToInteger(old))
                                       : m_b.CreateSelect(clear, f64(0), old);
                m_b.CreateStore(start, acc);
                emitLoop(i64(k), [&](Value* kk) {
                    Value* x = m_b.CreateLoad(m_f64, aAt(i, kk));
                    Value* y = m_b.CreateLoad(m_f64, bAt(kk, j));
                    Value* sum = m_b.CreateLoad(accType, acc);
                    Value* next =
                        integer ? m_b.CreateAdd(sum, m_b.CreateMul(storedToInteger(x), storedToInteger(y)))
                                : m_b.CreateFAdd(sum, m_b.CreateFMul(x, y));
                    m_b.CreateStore(next, acc);
                });
                Value* total = m_b.CreateLoad(accType, acc);
                Value* result = integer
                                    ? convertStored(integerToStored(total, DType::Int64), DType::Int64, tc)
                                    : convertStored(total, DType::Float64, tc);
                m_b.CreateStore(result, cAt(i, j));
            });
        });
        return;
    }

    // Single precision.
    llvm::IRBuilder<> entry(m_allocaBlock, m_allocaBlock->getFirstInsertionPt());
    auto floatArray = [&](int64_t count, const char* name) {
        auto* array = entry.CreateAlloca(m_f32, i64(std::max<int64_t>(count, 1)), name);
        array->setAlignment(llvm::Align(64));
        return array;
    };
    Value* opA = floatArray(m * k, "gemm.a");
    Value* opB = floatArray(k * n, "gemm.b");
    Value* accRow = floatArray(std::min<int64_t>(n, kGemmChunk), "gemm.acc");
    auto f32At = [&](Value* array, Value* index) { return m_b.CreateInBoundsGEP(m_f32, array, index); };
    emitLoop(i64(m), [&](Value* i) {
        emitLoop(i64(k), [&](Value* kk) {
            Value* v = m_b.CreateFPTrunc(m_b.CreateLoad(m_f64, aAt(i, kk)), m_f32);
            m_b.CreateStore(v, f32At(opA, m_b.CreateAdd(m_b.CreateMul(i, i64(k)), kk)));
        });
    });
    emitLoop(i64(k), [&](Value* kk) {
        emitLoop(i64(n), [&](Value* j) {
            Value* v = m_b.CreateFPTrunc(m_b.CreateLoad(m_f64, bAt(kk, j)), m_f32);
            m_b.CreateStore(v, f32At(opB, m_b.CreateAdd(m_b.CreateMul(kk, i64(n)), j)));
        });
    });
    // A chunk of kGemmChunk columns of row i, its accumulators as explicit <8 x float> values carried
    // through the k loop in registers (no reliance on unrolling heuristics).
    auto* vec = llvm::FixedVectorType::get(m_f32, kLanes);
    auto vectorChunk = [&](Value* i, Value* j0) {
        // In and out through the chunk array (small loops that LLVM vectorizes), in registers between.
        emitLoop(i64(kGemmChunk), [&](Value* j) {
            Value* old = m_b.CreateFPTrunc(m_b.CreateLoad(m_f64, cAt(i, m_b.CreateAdd(j0, j))), m_f32);
            m_b.CreateStore(m_b.CreateSelect(clear, llvm::ConstantFP::get(m_f32, 0.0), old),
                            f32At(accRow, j));
        });
        std::vector<Value*> init;
        for (int64_t v = 0; v < kGemmChunk / kLanes; ++v)
            init.push_back(m_b.CreateAlignedLoad(vec, f32At(accRow, i64(v * kLanes)), llvm::Align(32)));
        llvm::BasicBlock* before = m_b.GetInsertBlock();
        llvm::BasicBlock* header = llvm::BasicBlock::Create(m_context, "gemm.k", m_function);
        llvm::BasicBlock* body = llvm::BasicBlock::Create(m_context, "gemm.k.body", m_function);
        llvm::BasicBlock* exit = llvm::BasicBlock::Create(m_context, "gemm.k.exit", m_function);
        m_b.CreateBr(header);
        m_b.SetInsertPoint(header);
        llvm::PHINode* kk = m_b.CreatePHI(m_i64, 2, "kk");
        kk->addIncoming(i64(0), before);
        std::vector<llvm::PHINode*> accs;
        for (Value* v : init) {
            accs.push_back(m_b.CreatePHI(vec, 2, "acc"));
            accs.back()->addIncoming(v, before);
        }
        m_b.CreateCondBr(m_b.CreateICmpSLT(kk, i64(k)), body, exit);
        m_b.SetInsertPoint(body);
        Value* av = m_b.CreateLoad(m_f32, f32At(opA, m_b.CreateAdd(m_b.CreateMul(i, i64(k)), kk)));
        Value* splat = m_b.CreateVectorSplat(unsigned(kLanes), av);
        Value* bRow = m_b.CreateAdd(m_b.CreateMul(kk, i64(n)), j0);
        for (size_t v = 0; v < accs.size(); ++v) {
            Value* bv = m_b.CreateAlignedLoad(vec, f32At(opB, m_b.CreateAdd(bRow, i64(int64_t(v) * kLanes))),
                                              llvm::Align(4));
            accs[v]->addIncoming(m_b.CreateFAdd(accs[v], m_b.CreateFMul(splat, bv)), body);
        }
        kk->addIncoming(m_b.CreateAdd(kk, i64(1), "", true, true), body);
        m_b.CreateBr(header);
        m_b.SetInsertPoint(exit);
        for (size_t v = 0; v < accs.size(); ++v)
            m_b.CreateAlignedStore(accs[v], f32At(accRow, i64(int64_t(v) * kLanes)), llvm::Align(32));
        emitLoop(i64(kGemmChunk), [&](Value* j) {
            Value* sum = m_b.CreateFPExt(m_b.CreateLoad(m_f32, f32At(accRow, j)), m_f64);
            m_b.CreateStore(convertStored(sum, DType::Float32, tc), cAt(i, m_b.CreateAdd(j0, j)));
        });
    };
    // The last n % kGemmChunk columns: the same sums through a small accumulator array.
    auto tailChunk = [&](Value* i, Value* j0, int64_t width) {
        emitLoop(i64(width), [&](Value* j) {
            Value* col = m_b.CreateAdd(j0, j);
            Value* old = m_b.CreateFPTrunc(m_b.CreateLoad(m_f64, cAt(i, col)), m_f32);
            m_b.CreateStore(m_b.CreateSelect(clear, llvm::ConstantFP::get(m_f32, 0.0), old),
                            f32At(accRow, j));
        });
        emitLoop(i64(k), [&](Value* kk) {
            Value* av = m_b.CreateLoad(m_f32, f32At(opA, m_b.CreateAdd(m_b.CreateMul(i, i64(k)), kk)));
            Value* bRow = m_b.CreateMul(kk, i64(n));
            emitLoop(i64(width), [&](Value* j) {
                Value* col = m_b.CreateAdd(j0, j);
                Value* accPtr = f32At(accRow, j);
                Value* product =
                    m_b.CreateFMul(av, m_b.CreateLoad(m_f32, f32At(opB, m_b.CreateAdd(bRow, col))));
                m_b.CreateStore(m_b.CreateFAdd(m_b.CreateLoad(m_f32, accPtr), product), accPtr);
            });
        });
        emitLoop(i64(width), [&](Value* j) {
            Value* col = m_b.CreateAdd(j0, j);
            Value* sum = m_b.CreateFPExt(m_b.CreateLoad(m_f32, f32At(accRow, j)), m_f64);
            m_b.CreateStore(convertStored(sum, DType::Float32, tc), cAt(i, col));
        });
    };
    int64_t fullChunks = n / kGemmChunk;
    int64_t rest = n % kGemmChunk;
    emitLoop(i64(m), [&](Value* i) {
        if (fullChunks > 0)
            emitLoop(i64(fullChunks), [&](Value* q) { vectorChunk(i, m_b.CreateMul(q, i64(kGemmChunk))); });
        if (rest > 0)
            tailChunk(i, i64(fullChunks * kGemmChunk), rest);
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
                m_b.CreateGEP(m_f64, srcBase, m_b.CreateAdd(m_b.CreateMul(o, i64(extent * inner)), in));
            Value* outPtr = m_b.CreateGEP(m_f64, dstBase, m_b.CreateAdd(m_b.CreateMul(o, i64(inner)), in));
            auto element = [&](Value* i) {
                return m_b.CreateLoad(m_f64, m_b.CreateGEP(m_f64, column, m_b.CreateMul(i, i64(inner))));
            };
            Value* oldStored = m_b.CreateLoad(m_f64, outPtr);
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
                m_b.CreateStore(convertStored(r, DType::Float64, to), outPtr);
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
            m_b.CreateStore(integerToStored(wrapInteger(r, to), to), outPtr);
        });
    });
}

} // namespace tb::jit
