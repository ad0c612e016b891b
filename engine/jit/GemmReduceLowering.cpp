// T.gemm and the reductions. The float gemm follows the interpreter: op(A) and op(B) packed into float
// arrays, then for each row of C a float accumulator row updated k step by k step (acc = acc + a * b),
// so every C element sums its products in k order exactly as the interpreter does; a fused multiply-add
// only where every product is exact in float, which rounds the same (exactFloatProducts). Chunks of 64
// columns of one to four rows of C stay in vector registers across the k loop (emitted as vectors here, so
// the speed does not depend on LLVM's unrolling). Reductions run each output element's extent loop in
// order, in double (int64 for integer buffers), like Executor.cpp.
#include "engine/exec/HostTensor.h"
#include "engine/jit/Lowering.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <llvm/ADT/StringMap.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/TargetParser/Host.h>
#include <string>
#include <vector>

namespace tb::jit {

using ir::DType;
using ir::Stmt;
using llvm::Value;

namespace {

constexpr int64_t kGemmChunk = 64; // columns of C per register block
constexpr int64_t kLanes = 16;     // floats per vector (one zmm register with AVX-512, two ymm without)

// Rows of C per register block: four with AVX-512 (16 accumulators and 4 vectors of op(B) in 32 zmm
// registers), one without (the 16 ymm registers hold one row's eight half-vectors). TB_JIT_GEMM_ROWS
// overrides it for measurements.
int64_t gemmRowsPerBlock() {
    static const int64_t rows = [] {
        if (const char* text = std::getenv("TB_JIT_GEMM_ROWS"))
            return std::clamp<int64_t>(std::atoll(text), 1, 8);
        llvm::StringMap<bool> features;
        return llvm::sys::getHostCPUFeatures(features) && features.lookup("avx512f") ? int64_t(4)
                                                                                     : int64_t(1);
    }();
    return rows;
}

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
    auto floatArray = [&](int64_t count, const char* name) {
        auto* array = entry.CreateAlloca(m_f32, i64(std::max<int64_t>(count, 1)), name);
        array->setAlignment(llvm::Align(64));
        return array;
    };
    Value* opA = floatArray(m * k, "gemm.a");
    Value* opB = floatArray(k * n, "gemm.b");
    Value* accRow = floatArray(gemmRowsPerBlock() * std::min<int64_t>(n, kGemmChunk), "gemm.acc");
    auto f32At = [&](Value* array, Value* index) { return m_b.CreateInBoundsGEP(m_f32, array, index); };
    bool fuse = exactFloatProducts(g.ta, g.tb);
    // An operand element as a float (exact: float operands of this gemm are float32-exact).
    auto loadFloat = [&](const GemmMatrix& matrix, Value* ptr) -> Value* {
        return m_b.CreateFPTrunc(loadStored(matrix.buffer, ptr), m_f32); // folds away for float storage
    };
    // A float32 sum into C (rounded to C's dtype).
    auto storeSum = [&](Value* sum, Value* ptr) {
        storeStored(g.c.buffer, convertStored(m_b.CreateFPExt(sum, m_f64), DType::Float32, g.tc), ptr);
    };
    auto mulAdd = [&](Value* x, Value* y, Value* acc) -> Value* {
        if (fuse)
            return m_b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, acc});
        return m_b.CreateFAdd(acc, m_b.CreateFMul(x, y));
    };
    emitLoop(i64(m), [&](Value* i) {
        emitLoop(i64(k), [&](Value* kk) {
            Value* v = loadFloat(g.a, g.aAt(m_b, i, kk));
            m_b.CreateStore(v, f32At(opA, m_b.CreateAdd(m_b.CreateMul(i, i64(k)), kk)));
        });
    });
    emitLoop(i64(k), [&](Value* kk) {
        emitLoop(i64(n), [&](Value* j) {
            Value* v = loadFloat(g.b, g.bAt(m_b, kk, j));
            m_b.CreateStore(v, f32At(opB, m_b.CreateAdd(m_b.CreateMul(kk, i64(n)), j)));
        });
    });
    // A chunk of kGemmChunk columns of `rows` consecutive rows from i0, their accumulators as explicit
    // vectors carried through the k loop in registers (no reliance on unrolling heuristics). Several rows
    // share each loaded vector of op(B) and give the adder independent chains to overlap (one row's four
    // chains leave half of its latency exposed).
    auto* vec = llvm::FixedVectorType::get(m_f32, kLanes);
    constexpr int64_t kVectorsPerRow = kGemmChunk / kLanes;
    auto vectorChunk = [&](Value* i0, int64_t rows, Value* j0) {
        // In and out through the chunk array (small loops that LLVM vectorizes), in registers between.
        std::vector<Value*> init;
        for (int64_t r = 0; r < rows; ++r) {
            Value* i = m_b.CreateAdd(i0, i64(r));
            emitLoop(i64(kGemmChunk), [&](Value* j) {
                Value* old = loadFloat(g.c, g.cAt(m_b, i, m_b.CreateAdd(j0, j)));
                m_b.CreateStore(m_b.CreateSelect(g.clear, llvm::ConstantFP::get(m_f32, 0.0), old),
                                f32At(accRow, m_b.CreateAdd(i64(r * kGemmChunk), j)));
            });
            for (int64_t v = 0; v < kVectorsPerRow; ++v)
                init.push_back(m_b.CreateAlignedLoad(vec, f32At(accRow, i64(r * kGemmChunk + v * kLanes)),
                                                     llvm::Align(32)));
        }
        llvm::BasicBlock* before = m_b.GetInsertBlock();
        llvm::BasicBlock* header = llvm::BasicBlock::Create(m_context, "gemm.k", m_function);
        llvm::BasicBlock* body = llvm::BasicBlock::Create(m_context, "gemm.k.body", m_function);
        llvm::BasicBlock* exit = llvm::BasicBlock::Create(m_context, "gemm.k.exit", m_function);
        m_b.CreateBr(header);
        m_b.SetInsertPoint(header);
        llvm::PHINode* kk = m_b.CreatePHI(m_i64, 2, "kk");
        kk->addIncoming(i64(0), before);
        std::vector<llvm::PHINode*> accs; // row-major: accs[r * kVectorsPerRow + v]
        for (Value* v : init) {
            accs.push_back(m_b.CreatePHI(vec, 2, "acc"));
            accs.back()->addIncoming(v, before);
        }
        m_b.CreateCondBr(m_b.CreateICmpSLT(kk, i64(k)), body, exit);
        m_b.SetInsertPoint(body);
        Value* bRow = m_b.CreateAdd(m_b.CreateMul(kk, i64(n)), j0);
        std::vector<Value*> bVectors;
        for (int64_t v = 0; v < kVectorsPerRow; ++v)
            bVectors.push_back(
                m_b.CreateAlignedLoad(vec, f32At(opB, m_b.CreateAdd(bRow, i64(v * kLanes))), llvm::Align(4)));
        for (int64_t r = 0; r < rows; ++r) {
            Value* aIndex = m_b.CreateAdd(m_b.CreateMul(m_b.CreateAdd(i0, i64(r)), i64(k)), kk);
            Value* splat = m_b.CreateVectorSplat(unsigned(kLanes), m_b.CreateLoad(m_f32, f32At(opA, aIndex)));
            for (int64_t v = 0; v < kVectorsPerRow; ++v) {
                llvm::PHINode* acc = accs[size_t(r * kVectorsPerRow + v)];
                acc->addIncoming(mulAdd(splat, bVectors[size_t(v)], acc), body);
            }
        }
        kk->addIncoming(m_b.CreateAdd(kk, i64(1), "", true, true), body);
        m_b.CreateBr(header);
        m_b.SetInsertPoint(exit);
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t v = 0; v < kVectorsPerRow; ++v)
                m_b.CreateAlignedStore(accs[size_t(r * kVectorsPerRow + v)],
                                       f32At(accRow, i64(r * kGemmChunk + v * kLanes)), llvm::Align(32));
            Value* i = m_b.CreateAdd(i0, i64(r));
            emitLoop(i64(kGemmChunk), [&](Value* j) {
                Value* sum = m_b.CreateLoad(m_f32, f32At(accRow, m_b.CreateAdd(i64(r * kGemmChunk), j)));
                storeSum(sum, g.cAt(m_b, i, m_b.CreateAdd(j0, j)));
            });
        }
    };
    // The last n % kGemmChunk columns: the same sums through a small accumulator array.
    auto tailChunk = [&](Value* i, Value* j0, int64_t width) {
        emitLoop(i64(width), [&](Value* j) {
            Value* col = m_b.CreateAdd(j0, j);
            Value* old = loadFloat(g.c, g.cAt(m_b, i, col));
            m_b.CreateStore(m_b.CreateSelect(g.clear, llvm::ConstantFP::get(m_f32, 0.0), old),
                            f32At(accRow, j));
        });
        emitLoop(i64(k), [&](Value* kk) {
            Value* av = m_b.CreateLoad(m_f32, f32At(opA, m_b.CreateAdd(m_b.CreateMul(i, i64(k)), kk)));
            Value* bRow = m_b.CreateMul(kk, i64(n));
            emitLoop(i64(width), [&](Value* j) {
                Value* col = m_b.CreateAdd(j0, j);
                Value* accPtr = f32At(accRow, j);
                Value* bv = m_b.CreateLoad(m_f32, f32At(opB, m_b.CreateAdd(bRow, col)));
                m_b.CreateStore(mulAdd(av, bv, m_b.CreateLoad(m_f32, accPtr)), accPtr);
            });
        });
        emitLoop(i64(width), [&](Value* j) {
            Value* col = m_b.CreateAdd(j0, j);
            storeSum(m_b.CreateLoad(m_f32, f32At(accRow, j)), g.cAt(m_b, i, col));
        });
    };
    int64_t fullChunks = n / kGemmChunk;
    int64_t rest = n % kGemmChunk;
    auto rowBlock = [&](Value* i0, int64_t rows) {
        if (fullChunks > 0)
            emitLoop(i64(fullChunks),
                     [&](Value* q) { vectorChunk(i0, rows, m_b.CreateMul(q, i64(kGemmChunk))); });
        if (rest > 0)
            for (int64_t r = 0; r < rows; ++r)
                tailChunk(m_b.CreateAdd(i0, i64(r)), i64(fullChunks * kGemmChunk), rest);
    };
    int64_t rowsPerBlock = gemmRowsPerBlock();
    int64_t blocks = m / rowsPerBlock;
    if (blocks > 0)
        emitLoop(i64(blocks), [&](Value* q) { rowBlock(m_b.CreateMul(q, i64(rowsPerBlock)), rowsPerBlock); });
    for (int64_t i = blocks * rowsPerBlock; i < m; ++i)
        rowBlock(i64(i), 1);
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
