// Tile operations with their tile-level meaning, as the interpreter runs them (Executor.cpp): copies and
// atomic adds pair the non-unit extents of both sides in order and guard global memory (an out-of-bounds
// global read gives 0, a write is skipped), fills guard global writes, any other out-of-bounds access is
// an error; gemm packs op(A) and op(B) into float arrays and sums each C element's products in k order
// in single precision (double for float64, 64-bit integers for integer operands); reductions accumulate
// in double (int64) in order and round once. Tile extents are constants here; mins are runtime values
// whose ranges often prove the bounds checks unnecessary.
#include "engine/exec/HostTensor.h"
#include "engine/jit/Lowering.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <llvm/IR/GlobalVariable.h>
#include <tuple>
#include <utility>
#include <vector>

namespace tb::jit {

using ir::DType;
using ir::ExprPtr;
using ir::Stmt;
using llvm::Value;

namespace {

bool isGlobal(const ir::Buffer* buffer) {
    return buffer->scope == ir::MemoryScope::Global;
}

std::vector<size_t> nonUnitDims(const std::vector<int64_t>& extents) {
    std::vector<size_t> dims;
    for (size_t d = 0; d < extents.size(); ++d)
        if (extents[d] != 1)
            dims.push_back(d);
    return dims;
}

int64_t elementCount(const std::vector<int64_t>& extents) {
    int64_t count = 1;
    for (int64_t e : extents) {
        if (e <= 0)
            return 0;
        count *= e;
    }
    return count;
}

constexpr const char* kBoundsHint =
    "check the loop bounds and index arithmetic; only T.copy guards global memory";

} // namespace

Lowerer::Rect Lowerer::evalRect(const ir::Region& region, SourceRange range) {
    if (!region.buffer)
        throw Unsupported{"a tile op without a buffer"};
    Rect r;
    r.buffer = region.buffer;
    const BufferShape& shape = shapeOf(region.buffer);
    bufferBase(region.buffer, range);
    if (region.mins.size() != shape.shape.size() || region.extents.size() != shape.shape.size())
        throw Unsupported{"a region of '" + region.buffer->name + "' whose rank differs from the buffer's"};
    for (size_t d = 0; d < shape.shape.size(); ++d) {
        r.mins.push_back(evalInt(region.mins[d]));
        r.minRanges.push_back(rangeOf(region.mins[d], m_ranges));
        auto extent = constantValue(region.extents[d]);
        if (!extent)
            throw Unsupported{"a tile extent of '" + region.buffer->name + "' that is not a constant"};
        r.extents.push_back(*extent);
    }
    return r;
}

// The part [lo, hi) of a tile's `extent` positions along one dimension, starting at `min`, that lies inside
// [0, tensorExtent): out-of-range loads read 0 and out-of-range stores are dropped.
std::pair<Value*, Value*> Lowerer::insideRange(Value* min, int64_t extent, int64_t tensorExtent) {
    auto clamp = [&](Value* v) {
        Value* atLeast = m_b.CreateSelect(m_b.CreateICmpSLT(v, i64(0)), i64(0), v);
        return m_b.CreateSelect(m_b.CreateICmpSGT(atLeast, i64(extent)), i64(extent), atLeast);
    };
    return {clamp(m_b.CreateSub(i64(0), min)), clamp(m_b.CreateSub(i64(tensorExtent), min))};
}

bool Lowerer::provenInside(const Rect& r, size_t dim) {
    const auto& range = r.minRanges[dim];
    int64_t extent = std::max<int64_t>(r.extents[dim], 1);
    return range && range->lo >= 0 && range->hi + extent <= shapeOf(r.buffer).shape[dim];
}

Value* Lowerer::rectInside(const Rect& r, const std::vector<size_t>& dims) {
    Value* inside = m_b.getTrue();
    const BufferShape& shape = shapeOf(r.buffer);
    for (size_t d : dims) {
        if (provenInside(r, d))
            continue;
        int64_t extent = std::max<int64_t>(r.extents[d], 1);
        Value* ok = m_b.CreateAnd(m_b.CreateICmpSGE(r.mins[d], i64(0)),
                                  m_b.CreateICmpSLE(r.mins[d], i64(shape.shape[d] - extent)));
        inside = m_b.CreateAnd(inside, ok);
    }
    return inside;
}

void Lowerer::checkRectInside(const Rect& r, const Stmt& s) {
    std::vector<size_t> all(r.extents.size());
    for (size_t d = 0; d < all.size(); ++d)
        all[d] = d;
    Value* inside = rectInside(r, all);
    if (auto* constant = llvm::dyn_cast<llvm::ConstantInt>(inside); constant && constant->isOne())
        return;
    failIf(m_b.CreateNot(inside),
           addSite("runtime-out-of-bounds", blame(s.range),
                   "out-of-bounds access to " + r.buffer->name + ": the " + ir::scopeName(r.buffer->scope) +
                       " buffer's extents are exceeded",
                   kBoundsHint));
}

Value* Lowerer::linearOffset(const Rect& r, const std::vector<Value*>& index) {
    const BufferShape& shape = shapeOf(r.buffer);
    Value* offset = i64(0);
    for (size_t d = 0; d < index.size(); ++d)
        offset = m_b.CreateAdd(offset, m_b.CreateMul(index[d], i64(shape.strides[d])));
    return offset;
}

void Lowerer::atomicAccumulate(const ir::Buffer* buffer, Value* ptr, Value* stored, DType from, DType to) {
    Value* v = convertStored(stored, from, to);
    Value* old = loadStored(buffer, ptr);
    Value* updated = nullptr;
    if (ir::isFloat(to))
        updated = roundToDType(m_b.CreateFAdd(old, v), to);
    else
        updated =
            integerToStored(wrapInteger(m_b.CreateAdd(storedToInteger(old), storedToInteger(v)), to), to);
    storeStored(buffer, updated, ptr);
}

// Copy and atomic_add from a region: element pairs in row-major order of the paired non-unit dims.
void Lowerer::lowerCopyLike(const Stmt& s, bool atomic) {
    Rect src = evalRect(s.src, s.range);
    Rect dst = evalRect(s.dst, s.range);
    std::vector<size_t> srcDims = nonUnitDims(src.extents);
    std::vector<size_t> dstDims = nonUnitDims(dst.extents);
    std::vector<int64_t> pairExtents;
    for (size_t d : srcDims)
        pairExtents.push_back(src.extents[d]);
    std::vector<int64_t> dstPairExtents;
    for (size_t d : dstDims)
        dstPairExtents.push_back(dst.extents[d]);
    if (pairExtents != dstPairExtents)
        throw Unsupported{"a copy whose non-unit extents differ (the interpreter reports it)"};
    if (elementCount(dst.extents) == 0)
        return;
    DType from = src.buffer->dtype, to = dst.buffer->dtype;
    if (!isGlobal(src.buffer))
        checkRectInside(src, s);
    if (!isGlobal(dst.buffer))
        checkRectInside(dst, s);
    const BufferShape& srcShape = shapeOf(src.buffer);
    const BufferShape& dstShape = shapeOf(dst.buffer);
    Value* srcBase = bufferBase(src.buffer, s.range);
    Value* dstBase = bufferBase(dst.buffer, s.range);

    // A global destination: unit dims out of bounds skip everything; paired dims clamp their loops.
    llvm::BasicBlock* skip = nullptr;
    if (isGlobal(dst.buffer)) {
        std::vector<size_t> unitDims;
        for (size_t d = 0; d < dst.extents.size(); ++d)
            if (dst.extents[d] == 1)
                unitDims.push_back(d);
        Value* inside = rectInside(dst, unitDims);
        if (!llvm::isa<llvm::ConstantInt>(inside)) {
            llvm::BasicBlock* body = llvm::BasicBlock::Create(m_context, "copy.body", m_function);
            skip = llvm::BasicBlock::Create(m_context, "copy.skip", m_function);
            m_b.CreateCondBr(inside, body, skip);
            m_b.SetInsertPoint(body);
        }
    }
    std::vector<Value*> lo(pairExtents.size()), hi(pairExtents.size());
    for (size_t k = 0; k < pairExtents.size(); ++k) {
        size_t d = dstDims[k];
        int64_t extent = pairExtents[k];
        if (!isGlobal(dst.buffer) || provenInside(dst, d)) {
            lo[k] = i64(0);
            hi[k] = i64(extent);
            continue;
        }
        std::tie(lo[k], hi[k]) = insideRange(dst.mins[d], extent, dstShape.shape[d]);
    }
    bool srcGuarded = false;
    if (isGlobal(src.buffer))
        for (size_t d = 0; d < src.extents.size(); ++d)
            srcGuarded = srcGuarded || !provenInside(src, d);
    if (!m_zero)
        m_zero =
            new llvm::GlobalVariable(m_module, m_f64, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantFP::get(m_f64, 0.0), "tb_zero");

    std::vector<Value*> idx(pairExtents.size());
    std::function<void(size_t)> nest = [&](size_t k) {
        if (k < pairExtents.size()) {
            Value* count = m_b.CreateSub(hi[k], lo[k]);
            Value* start = lo[k];
            emitLoop(count, [&](Value* i) {
                idx[k] = m_b.CreateAdd(start, i);
                nest(k + 1);
            });
            return;
        }
        std::vector<Value*> si(src.mins), di(dst.mins);
        for (size_t p = 0; p < idx.size(); ++p) {
            si[srcDims[p]] = m_b.CreateAdd(src.mins[srcDims[p]], idx[p]);
            di[dstDims[p]] = m_b.CreateAdd(dst.mins[dstDims[p]], idx[p]);
        }
        Value* srcPtr = elementAt(src.buffer, srcBase, linearOffset(src, si));
        Value* inside = nullptr;
        if (srcGuarded) {
            inside = m_b.getTrue();
            for (size_t d = 0; d < si.size(); ++d)
                if (!provenInside(src, d))
                    inside = m_b.CreateAnd(inside, m_b.CreateICmpULT(si[d], i64(srcShape.shape[d])));
            srcPtr = m_b.CreateSelect(inside, srcPtr, m_zero);
        }
        Value* value = loadStored(src.buffer, srcPtr); // a guarded global read gives 0
        Value* dstPtr = elementAt(dst.buffer, dstBase, linearOffset(dst, di));
        if (atomic)
            atomicAccumulate(dst.buffer, dstPtr, value, from, to);
        else
            storeStored(dst.buffer, convertStored(value, from, to), dstPtr);
    };
    nest(0);
    if (skip) {
        m_b.CreateBr(skip);
        m_b.SetInsertPoint(skip);
    }
}

void Lowerer::lowerFill(const Stmt& s) {
    Rect dst = evalRect(s.dst, s.range);
    Value* value = evalStored(s.value, dst.buffer->dtype);
    if (elementCount(dst.extents) == 0)
        return;
    bool global = isGlobal(dst.buffer);
    if (!global)
        checkRectInside(dst, s);
    const BufferShape& shape = shapeOf(dst.buffer);
    Value* base = bufferBase(dst.buffer, s.range);
    size_t rank = dst.extents.size();
    std::vector<Value*> lo(rank), hi(rank), idx(rank);
    for (size_t d = 0; d < rank; ++d) {
        int64_t extent = dst.extents[d];
        if (!global || provenInside(dst, d)) {
            lo[d] = i64(0);
            hi[d] = i64(extent);
            continue;
        }
        std::tie(lo[d], hi[d]) = insideRange(dst.mins[d], extent, shape.shape[d]);
    }
    std::function<void(size_t)> nest = [&](size_t d) {
        if (d < rank) {
            Value* start = lo[d];
            emitLoop(m_b.CreateSub(hi[d], lo[d]), [&](Value* i) {
                idx[d] = m_b.CreateAdd(dst.mins[d], m_b.CreateAdd(start, i));
                nest(d + 1);
            });
            return;
        }
        storeStored(dst.buffer, value, elementAt(dst.buffer, base, linearOffset(dst, idx)));
    };
    nest(0);
}

void Lowerer::lowerAtomicValue(const Stmt& s) {
    Rect dst = evalRect(s.dst, s.range);
    Value* stored = toStored(eval(s.value), s.value->dtype);
    if (elementCount(dst.extents) == 0)
        return;
    bool global = isGlobal(dst.buffer);
    if (!global)
        checkRectInside(dst, s);
    const BufferShape& shape = shapeOf(dst.buffer);
    Value* base = bufferBase(dst.buffer, s.range);
    size_t rank = dst.extents.size();
    std::vector<Value*> idx(rank);
    std::function<void(size_t)> nest = [&](size_t d) {
        if (d < rank) {
            emitLoop(i64(dst.extents[d]), [&](Value* i) {
                idx[d] = m_b.CreateAdd(dst.mins[d], i);
                nest(d + 1);
            });
            return;
        }
        Value* inside = m_b.getTrue();
        if (global)
            for (size_t k = 0; k < rank; ++k)
                inside = m_b.CreateAnd(inside, m_b.CreateICmpULT(idx[k], i64(shape.shape[k])));
        llvm::BasicBlock* add = llvm::BasicBlock::Create(m_context, "atomic.add", m_function);
        llvm::BasicBlock* done = llvm::BasicBlock::Create(m_context, "atomic.done", m_function);
        m_b.CreateCondBr(inside, add, done);
        m_b.SetInsertPoint(add);
        atomicAccumulate(dst.buffer, elementAt(dst.buffer, base, linearOffset(dst, idx)), stored,
                         s.value->dtype, dst.buffer->dtype);
        m_b.CreateBr(done);
        m_b.SetInsertPoint(done);
    };
    nest(0);
}

} // namespace tb::jit
