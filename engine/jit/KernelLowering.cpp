// Kernels and statements: the block loop of each T.Kernel, fresh (NaN-poisoned) on-chip buffers per
// block, counted loops for every loop kind (serial, unrolled, parallel and pipelined loops all run their
// iterations in order, as in the interpreter), conditionals, element stores, bounds checks and the
// failure exits that report an ErrorSite.
#include "engine/exec/Executor.h"
#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"
#include "engine/ir/IrQueries.h"
#include "engine/jit/Lowering.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <llvm/ADT/StringMap.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/TargetParser/Host.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::jit {

using ir::DType;
using ir::ExprPtr;
using ir::Stmt;
using ir::StmtKind;
using llvm::Value;

namespace {

// On-chip buffers live on the worker's stack (ThreadPool gives workers 64 MiB).
constexpr int64_t kMaxStackBytes = int64_t(32) << 20;

} // namespace

Lowerer::Lowerer(llvm::LLVMContext& context, llvm::Module& module, LoweringContext& lowering)
    : m_context(context), m_module(module), m_lowering(lowering), m_b(context) {
    m_f64 = m_b.getDoubleTy();
    m_f32 = m_b.getFloatTy();
    m_i64 = m_b.getInt64Ty();
    m_i1 = m_b.getInt1Ty();
    m_ptr = m_b.getPtrTy();
    for (const ir::Var* dim : lowering.func->dynamicDims) {
        auto it = lowering.dims.find(dim->name);
        if (it != lowering.dims.end())
            m_ranges.set(dim, IndexRange{it->second, it->second});
    }
}

Value* Lowerer::i64(int64_t value) {
    return m_b.getInt64(static_cast<uint64_t>(value));
}

Value* Lowerer::f64(double value) {
    return llvm::ConstantFP::get(m_f64, value);
}

std::optional<int64_t> Lowerer::constantValue(const ExprPtr& expr) const {
    auto r = rangeOf(expr, m_ranges);
    if (r && r->lo == r->hi)
        return r->lo;
    return std::nullopt;
}

const BufferShape& Lowerer::shapeOf(const ir::Buffer* buffer) {
    auto it = m_shapes.find(buffer->id);
    if (it != m_shapes.end())
        return it->second;
    BufferShape shape;
    shape.count = 1;
    for (const ExprPtr& extent : buffer->shape) {
        auto value = constantValue(extent);
        if (!value)
            throw Unsupported{"the shape of '" + buffer->name + "' is not a constant"};
        if (*value < 0)
            throw Unsupported{"'" + buffer->name + "' has a negative extent"};
        shape.shape.push_back(*value);
        if (*value != 0 && shape.count > m_lowering.limits.maxBufferElements / *value)
            throw Unsupported{"'" + buffer->name + "' exceeds the executor's buffer size limit"};
        shape.count *= *value;
    }
    if (shape.count > m_lowering.limits.maxBufferElements)
        throw Unsupported{"'" + buffer->name + "' exceeds the executor's buffer size limit"};
    shape.strides.assign(shape.shape.size(), 1);
    for (size_t d = shape.shape.size(); d-- > 1;)
        shape.strides[d - 1] = shape.strides[d] * shape.shape[d];
    return m_shapes.emplace(buffer->id, std::move(shape)).first->second;
}

int Lowerer::addSite(std::string code, SourceRange range, std::string message, std::string hint) {
    m_lowering.sites.push_back({std::move(code), range, std::move(message), std::move(hint)});
    return static_cast<int>(m_lowering.sites.size()) - 1;
}

SourceRange Lowerer::blame(SourceRange preferred) const {
    return preferred.valid ? preferred : m_currentRange;
}

void Lowerer::failIf(Value* failed, int site) {
    llvm::BasicBlock* fail = llvm::BasicBlock::Create(m_context, "fail", m_function);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(m_context, "ok", m_function);
    llvm::MDBuilder md(m_context);
    m_b.CreateCondBr(failed, fail, ok, md.createBranchWeights(1, 1 << 20));
    m_b.SetInsertPoint(fail);
    m_b.CreateStore(i64(site + 1), m_errorOut);
    m_b.CreateStore(m_blockLinear, m_b.CreateConstGEP1_64(m_i64, m_errorOut, 1));
    m_b.CreateRetVoid();
    m_b.SetInsertPoint(ok);
}

void Lowerer::emitLoop(Value* count, const std::function<void(Value*)>& body) {
    llvm::BasicBlock* before = m_b.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(m_context, "loop", m_function);
    llvm::BasicBlock* inside = llvm::BasicBlock::Create(m_context, "loop.body", m_function);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(m_context, "loop.exit", m_function);
    m_b.CreateBr(header);
    m_b.SetInsertPoint(header);
    llvm::PHINode* iv = m_b.CreatePHI(m_i64, 2, "i");
    iv->addIncoming(i64(0), before);
    m_b.CreateCondBr(m_b.CreateICmpSLT(iv, count), inside, exit);
    m_b.SetInsertPoint(inside);
    body(iv);
    Value* next = m_b.CreateAdd(iv, i64(1), "i.next", /*HasNUW=*/true, /*HasNSW=*/true);
    iv->addIncoming(next, m_b.GetInsertBlock());
    m_b.CreateBr(header);
    m_b.SetInsertPoint(exit);
}

Value* Lowerer::bufferBase(const ir::Buffer* buffer, SourceRange range) {
    size_t id = static_cast<size_t>(buffer->id);
    if (id >= m_bases.size() || !m_bases[id])
        throw Unsupported{"buffer '" + buffer->name + "' is used where it is not allocated"};
    return m_bases[id];
}

Value* Lowerer::elementPointer(const ir::Buffer* buffer, const std::vector<ExprPtr>& indices,
                               SourceRange range, Value** pendingCheck) {
    const BufferShape& shape = shapeOf(buffer);
    Value* base = bufferBase(buffer, range);
    *pendingCheck = nullptr;
    if (indices.empty() && buffer->scope == ir::MemoryScope::LocalVar)
        return base;
    if (indices.size() != shape.shape.size())
        throw Unsupported{"'" + buffer->name + "' is indexed with the wrong number of indices"};
    Value* offset = i64(0);
    for (size_t d = 0; d < indices.size(); ++d) {
        Value* index = evalInt(indices[d]);
        auto r = rangeOf(indices[d], m_ranges);
        if (!(r && r->lo >= 0 && r->hi < shape.shape[d])) {
            Value* outside = m_b.CreateICmpUGE(index, i64(shape.shape[d])); // negative: huge unsigned
            *pendingCheck = *pendingCheck ? m_b.CreateOr(*pendingCheck, outside) : outside;
        }
        offset = m_b.CreateAdd(offset, m_b.CreateMul(index, i64(shape.strides[d])));
    }
    return elementAt(buffer, base, offset);
}

llvm::Type* Lowerer::storageType(const ir::Buffer* buffer) const {
    if (buffer->scope == ir::MemoryScope::Global) // TensorStorage's encoding: the dtype's own width
        switch (buffer->dtype) {
        case DType::Float64:
            return m_f64;
        case DType::Float32:
            return m_f32;
        default:
            return llvm::Type::getIntNTy(m_context, static_cast<unsigned>(ir::dtypeBytes(buffer->dtype) * 8));
        }
    size_t id = static_cast<size_t>(buffer->id);
    return id < m_floatStored.size() && m_floatStored[id] ? m_f32 : m_f64;
}

Value* Lowerer::elementAt(const ir::Buffer* buffer, Value* base, Value* offset) {
    return m_b.CreateGEP(storageType(buffer), base, offset);
}

Value* Lowerer::loadStored(const ir::Buffer* buffer, Value* ptr) {
    llvm::Type* type = storageType(buffer);
    Value* value = m_b.CreateLoad(type, ptr);
    if (type == m_f64)
        return value;
    if (type == m_f32)
        return m_b.CreateFPExt(value, m_f64);
    switch (buffer->dtype) { // a global tensor's encoded element
    case DType::Float16:
        return halfToDouble(value);
    case DType::BFloat16: // the upper half of a float
        return m_b.CreateFPExt(
            m_b.CreateBitCast(m_b.CreateShl(m_b.CreateZExt(value, m_b.getInt32Ty()), 16), m_f32), m_f64);
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return m_b.CreateLoad(
            m_f64, m_b.CreateInBoundsGEP(m_f64, float8Table(buffer->dtype), m_b.CreateZExt(value, m_i64)));
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
        return m_b.CreateSIToFP(value, m_f64);
    default: // bool and unsigned integers
        return m_b.CreateUIToFP(value, m_f64);
    }
}

void Lowerer::storeStored(const ir::Buffer* buffer, Value* stored, Value* ptr) {
    // Exact: a stored value is already rounded to the buffer's dtype, which its storage type holds.
    llvm::Type* type = storageType(buffer);
    Value* encoded = nullptr;
    if (type == m_f64)
        encoded = stored;
    else if (type == m_f32)
        encoded = m_b.CreateFPTrunc(stored, m_f32);
    else
        switch (buffer->dtype) {
        case DType::Float16:
            encoded = doubleToHalf(stored);
            break;
        case DType::BFloat16:
            encoded = m_b.CreateTrunc(
                m_b.CreateLShr(m_b.CreateBitCast(m_b.CreateFPTrunc(stored, m_f32), m_b.getInt32Ty()), 16),
                type);
            break;
        case DType::Float8E4M3:
        case DType::Float8E5M2:
            encoded = m_b.CreateTrunc(
                callRuntime("tbjit_float8Bits", m_i64, {stored, i64(buffer->dtype == DType::Float8E4M3)}),
                type);
            break;
        case DType::Int64:
        case DType::UInt64: // may not fit a signed conversion: the interpreter's own rule
            encoded = storedToInteger(stored);
            break;
        default: // a wrapped integer of at most 32 bits, or 0/1: exact in a signed conversion
            encoded = m_b.CreateTrunc(m_b.CreateFPToSI(stored, m_i64), type);
        }
    m_b.CreateStore(encoded, ptr);
}

bool hostConvertsHalves() {
    static const bool yes = [] {
        llvm::StringMap<bool> features;
        return llvm::sys::getHostCPUFeatures(features) && features.lookup("f16c");
    }();
    return yes;
}

Value* Lowerer::halfToDouble(Value* bits) {
    if (hostConvertsHalves()) // exact, as is every half-to-double conversion
        return m_b.CreateFPExt(m_b.CreateBitCast(bits, m_b.getHalfTy()), m_f64);
    // The double's fields from the half's: sign, exponent rebiased 15 -> 1023 (31, inf/NaN, -> 2047),
    // mantissa shifted up by 42; a subnormal half (exponent 0) is its mantissa times 2^-24.
    Value* h = m_b.CreateZExt(bits, m_i64);
    Value* sign = m_b.CreateShl(m_b.CreateAnd(h, i64(0x8000)), 48);
    Value* exponent = m_b.CreateAnd(m_b.CreateLShr(h, 10), i64(31));
    Value* mantissa = m_b.CreateAnd(h, i64(1023));
    Value* rebiased = m_b.CreateSelect(m_b.CreateICmpEQ(exponent, i64(31)), i64(2047),
                                       m_b.CreateAdd(exponent, i64(1023 - 15)));
    Value* normal =
        m_b.CreateOr(sign, m_b.CreateOr(m_b.CreateShl(rebiased, 52), m_b.CreateShl(mantissa, 42)));
    Value* magnitude = m_b.CreateFMul(m_b.CreateUIToFP(mantissa, m_f64), f64(0x1p-24));
    Value* subnormal = m_b.CreateOr(sign, m_b.CreateBitCast(magnitude, m_i64));
    Value* result = m_b.CreateSelect(m_b.CreateICmpEQ(exponent, i64(0)), subnormal, normal);
    return m_b.CreateBitCast(result, m_f64);
}

Value* Lowerer::doubleToHalf(Value* stored) {
    if (hostConvertsHalves()) { // exact (the value is a half); every NaN becomes TensorStorage's quiet NaN
        Value* bits = m_b.CreateBitCast(m_b.CreateFPTrunc(m_b.CreateFPTrunc(stored, m_f32), m_b.getHalfTy()),
                                        m_b.getInt16Ty());
        Value* sign = m_b.CreateTrunc(m_b.CreateLShr(m_b.CreateBitCast(stored, m_i64), 48), m_b.getInt16Ty());
        Value* quietNaN = m_b.CreateOr(m_b.CreateAnd(sign, m_b.getInt16(0x8000)), m_b.getInt16(0x7e00));
        return m_b.CreateSelect(m_b.CreateFCmpUNO(stored, stored), quietNaN, bits);
    }
    // The value is a half, so exact in float, whose fields give the half's: exponent rebiased 127 -> 15,
    // mantissa shifted down by 13; below the normal range (and zero) the mantissa is |value| * 2^24;
    // inf/NaN keep a quiet-NaN bit when the mantissa is not zero (TensorStorage's encoding).
    llvm::Type* i32 = m_b.getInt32Ty();
    auto c32 = [&](uint32_t v) { return m_b.getInt32(v); };
    Value* f = m_b.CreateFPTrunc(stored, m_f32);
    Value* b = m_b.CreateBitCast(f, i32);
    Value* sign = m_b.CreateAnd(m_b.CreateLShr(b, 16), c32(0x8000));
    Value* exponent = m_b.CreateAnd(m_b.CreateLShr(b, 23), c32(0xff));
    Value* mantissa = m_b.CreateAnd(b, c32(0x7fffff));
    Value* normal = m_b.CreateOr(m_b.CreateShl(m_b.CreateSub(exponent, c32(112)), 10),
                                 m_b.CreateAnd(m_b.CreateLShr(b, 13), c32(0x3ff)));
    Value* special = m_b.CreateSelect(m_b.CreateICmpEQ(mantissa, c32(0)), c32(0x7c00), c32(0x7e00));
    Value* magnitude = intrinsic(llvm::Intrinsic::fabs, {f});
    // fptoui is poison for normal magnitudes, which the select below never picks.
    Value* subnormal = m_b.CreateFPToUI(m_b.CreateFMul(magnitude, llvm::ConstantFP::get(m_f32, 0x1p24)), i32);
    Value* field =
        m_b.CreateSelect(m_b.CreateICmpEQ(exponent, c32(255)), special,
                         m_b.CreateSelect(m_b.CreateICmpUGE(exponent, c32(113)), normal, subnormal));
    return m_b.CreateTrunc(m_b.CreateOr(sign, field), m_b.getInt16Ty());
}

llvm::GlobalVariable* Lowerer::float8Table(DType type) {
    // Every byte's value: a float8 load is one table lookup.
    llvm::GlobalVariable*& table = type == DType::Float8E4M3 ? m_float8E4M3Table : m_float8E5M2Table;
    if (!table) {
        std::vector<double> values(256);
        for (size_t byte = 0; byte < values.size(); ++byte)
            values[byte] = float8Value(static_cast<uint8_t>(byte), type);
        auto* array = llvm::ConstantDataArray::get(m_context, values);
        table = new llvm::GlobalVariable(m_module, array->getType(), /*isConstant=*/true,
                                         llvm::GlobalValue::PrivateLinkage, array, "tb_float8_values");
    }
    return table;
}

void Lowerer::chooseStorage(const Stmt& kernel) {
    // Views (T.Tensor over buf.data) address global memory only (the frontend rejects views of on-chip
    // buffers), so a float-stored buffer is never seen through another dtype.
    auto narrowFloat = [](ir::DType t) { return ir::isFloat(t) && t != ir::DType::Float64; };
    m_floatStored.assign(m_lowering.module->buffers().size(), false);
    for (const ir::Buffer* buffer : kernel.allocations)
        if (!buffer->viewOf && buffer->scope != ir::MemoryScope::Global && narrowFloat(buffer->dtype))
            m_floatStored[static_cast<size_t>(buffer->id)] = true;
}

void Lowerer::fillFresh(const ir::Buffer* buffer) {
    const BufferShape& shape = shapeOf(buffer);
    Value* base = bufferBase(buffer, buffer->range);
    Value* value = f64(uninitializedValue(buffer->dtype));
    if (buffer->initValue && *buffer->initValue)
        value = evalStored(*buffer->initValue, buffer->dtype);
    if (shape.count == 1) {
        storeStored(buffer, value, base);
        return;
    }
    emitLoop(i64(shape.count), [&](Value* i) {
        storeStored(buffer, value, m_b.CreateInBoundsGEP(storageType(buffer), base, i));
    });
}

int64_t Lowerer::blockStateElements(const Stmt& kernel) {
    int64_t elements = 0;
    for (const ir::Buffer* buffer : kernel.allocations)
        if (buffer->scope != ir::MemoryScope::Global)
            elements += std::max<int64_t>(shapeOf(buffer).count, 1);
    return elements;
}

llvm::Function* Lowerer::lowerKernel(const Stmt& kernel, const std::string& suffix, bool& sequential,
                                     const KernelPhase& phase) {
    const auto& globals = m_lowering.globals;
    const bool phased = phase.count > 1;
    std::vector<llvm::Type*> argTypes(globals.size(), m_ptr);
    argTypes.insert(argTypes.end(), {m_i64, m_i64, m_ptr});
    if (phased)
        argTypes.push_back(m_ptr); // the blocks' state
    auto* bodyType = llvm::FunctionType::get(m_b.getVoidTy(), argTypes, false);
    std::string name = m_lowering.namePrefix + "tb_kernel_" + suffix;
    m_function = llvm::Function::Create(bodyType, llvm::Function::InternalLinkage, name + "_body", m_module);
    m_function->addFnAttr(llvm::Attribute::AlwaysInline);
    m_function->addFnAttr(llvm::Attribute::NoUnwind);
    if (const char* width = std::getenv("TB_JIT_VECTOR_WIDTH")) {
        m_function->addFnAttr("prefer-vector-width", width);
        m_function->addFnAttr("min-legal-vector-width", width);
    }
    for (size_t i = 0; i < globals.size(); ++i)
        m_function->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    Value* state = phased ? m_function->getArg(static_cast<unsigned>(globals.size() + 3)) : nullptr;
    if (phased)
        m_function->addParamAttr(static_cast<unsigned>(globals.size() + 3), llvm::Attribute::NoAlias);
    Value* blockBegin = m_function->getArg(static_cast<unsigned>(globals.size()));
    Value* blockEnd = m_function->getArg(static_cast<unsigned>(globals.size() + 1));
    m_errorOut = m_function->getArg(static_cast<unsigned>(globals.size() + 2));
    m_currentRange = kernel.range;
    m_sequential = false;

    m_allocaBlock = llvm::BasicBlock::Create(m_context, "entry", m_function);
    m_b.SetInsertPoint(m_allocaBlock);
    m_bases.assign(m_lowering.module->buffers().size(), nullptr);
    m_vars.assign(m_lowering.module->vars().size(), nullptr);
    for (size_t i = 0; i < globals.size(); ++i)
        m_bases[static_cast<size_t>(globals[i]->id)] = m_function->getArg(static_cast<unsigned>(i));

    // Grid.
    if (kernel.grid.size() != kernel.blockVars.size() || kernel.grid.size() > 3 || kernel.grid.empty())
        throw Unsupported{"a kernel whose grid and block vars do not match"};
    std::vector<int64_t> grid;
    for (const ExprPtr& extent : kernel.grid) {
        auto value = constantValue(extent);
        if (!value)
            throw Unsupported{"a grid extent that is not a constant"};
        grid.push_back(*value);
    }
    for (size_t d = 0; d < grid.size(); ++d)
        m_ranges.set(kernel.blockVars[d], IndexRange{0, std::max<int64_t>(grid[d] - 1, 0)});

    // On-chip buffers: one stack array each, poisoned at the start of every block (of a phased kernel's
    // first phase; later phases restore the block's state).
    const int64_t stateElements = phased ? blockStateElements(kernel) : 0;
    chooseStorage(kernel);
    int64_t stackBytes = 0;
    std::vector<const ir::Buffer*> fresh;
    for (const ir::Buffer* buffer : kernel.allocations) {
        if (buffer->viewOf) { // its own shape over its base's storage
            if (shapeOf(buffer).count > shapeOf(buffer->viewOf).count)
                throw Unsupported{"view '" + buffer->name +
                                  "' is larger than its base"}; // the interpreter reports it
            m_bases[static_cast<size_t>(buffer->id)] = m_bases[static_cast<size_t>(buffer->viewOf->id)];
            continue;
        }
        if (buffer->scope == ir::MemoryScope::Global)
            continue; // a workspace: one of the kernel's arguments
        const BufferShape& shape = shapeOf(buffer);
        llvm::Type* element = storageType(buffer);
        stackBytes += shape.count * (element == m_f32 ? 4 : 8);
        if (stackBytes > kMaxStackBytes)
            throw Unsupported{"the on-chip buffers of a block take more than 32 MiB"};
        auto* array = m_b.CreateAlloca(element, i64(std::max<int64_t>(shape.count, 1)), buffer->name);
        array->setAlignment(llvm::Align(64));
        m_bases[static_cast<size_t>(buffer->id)] = array;
        fresh.push_back(buffer);
    }
    llvm::BasicBlock* start = llvm::BasicBlock::Create(m_context, "start", m_function);
    m_b.CreateBr(start);
    m_b.SetInsertPoint(start);

    emitLoop(m_b.CreateSub(blockEnd, blockBegin), [&](Value* i) {
        m_blockLinear = m_b.CreateAdd(blockBegin, i);
        Value* rest = m_blockLinear;
        for (size_t d = 0; d < grid.size(); ++d) { // blockIdx.x varies fastest
            int64_t extent = std::max<int64_t>(grid[d], 1);
            m_vars[static_cast<size_t>(kernel.blockVars[d]->id)] = m_b.CreateURem(rest, i64(extent));
            rest = m_b.CreateUDiv(rest, i64(extent));
        }
        if (phase.index == 0)
            for (const ir::Buffer* buffer : fresh)
                fillFresh(buffer);
        Value* blockState =
            phased ? m_b.CreateGEP(m_f64, state, m_b.CreateMul(m_blockLinear, i64(stateElements))) : nullptr;
        if (phased && phase.index > 0)
            copyBlockState(fresh, blockState, /*restore=*/true);
        lowerStmt(phase.body ? phase.body : kernel.body.get());
        if (phased && phase.index + 1 < phase.count)
            copyBlockState(fresh, blockState, /*restore=*/false);
    });
    m_b.CreateRetVoid();

    // The entry point: unpack the buffer table and call the body (inlined; the body's noalias
    // arguments become alias scopes).
    auto* entryType = llvm::FunctionType::get(m_b.getVoidTy(), {m_ptr, m_i64, m_i64, m_ptr}, false);
    llvm::Function* entry =
        llvm::Function::Create(entryType, llvm::Function::ExternalLinkage, name, m_module);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
    m_b.SetInsertPoint(llvm::BasicBlock::Create(m_context, "entry", entry));
    std::vector<Value*> args;
    for (size_t i = 0; i < globals.size(); ++i)
        args.push_back(m_b.CreateLoad(m_ptr, m_b.CreateConstGEP1_64(m_ptr, entry->getArg(0), i)));
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    args.push_back(entry->getArg(3));
    if (phased) // the state follows the globals in the buffer table
        args.push_back(
            m_b.CreateLoad(m_ptr, m_b.CreateConstGEP1_64(m_ptr, entry->getArg(0), globals.size())));
    m_b.CreateCall(m_function, args);
    m_b.CreateRetVoid();
    sequential = m_sequential;
    return entry;
}

void Lowerer::copyBlockState(const std::vector<const ir::Buffer*>& buffers, Value* blockState, bool restore) {
    // The state has a double's room for every element (blockStateElements); float-stored buffers use half.
    uint64_t offset = 0;
    for (const ir::Buffer* buffer : buffers) {
        const int64_t count = std::max<int64_t>(shapeOf(buffer).count, 1);
        Value* stack = bufferBase(buffer, buffer->range);
        Value* saved = m_b.CreateConstGEP1_64(m_b.getInt8Ty(), blockState, offset);
        const uint64_t bytes = static_cast<uint64_t>(count) * (storageType(buffer) == m_f32 ? 4 : 8);
        if (restore)
            m_b.CreateMemCpy(stack, llvm::Align(4), saved, llvm::Align(4), bytes);
        else
            m_b.CreateMemCpy(saved, llvm::Align(4), stack, llvm::Align(4), bytes);
        offset += (bytes + 7) / 8 * 8;
    }
}

void Lowerer::lowerStmt(const Stmt* stmt) {
    if (!stmt)
        return;
    SourceRange saved = m_currentRange;
    if (stmt->range.valid)
        m_currentRange = stmt->range;
    const Stmt& s = *stmt;
    switch (s.kind) {
    case StmtKind::Seq:
        for (size_t k = 0; k < s.stmts.size(); ++k) {
            // Lowered code runs a block straight through; it cannot suspend a scope at a wait.
            if (ir::concurrentWarpGroupRun(s.stmts, k))
                throw Unsupported{
                    "T.ws scopes that run concurrently, ordered by the program's mbarriers (the "
                    "interpreter switches between them at their waits, as the GPU runs them)"};
            lowerStmt(s.stmts[k].get());
        }
        break;
    case StmtKind::Kernel:
        throw Unsupported{"a T.Kernel inside a kernel"};
    case StmtKind::For:
        lowerFor(s);
        break;
    case StmtKind::IfThenElse:
        lowerIf(s);
        break;
    case StmtKind::Store:
        lowerStore(s);
        break;
    case StmtKind::Copy:
        lowerCopyLike(s, /*atomic=*/false);
        break;
    case StmtKind::AtomicAdd:
        m_sequential = true; // the order of the additions decides the rounding
        if (s.value)
            lowerAtomicValue(s);
        else
            lowerCopyLike(s, /*atomic=*/true);
        break;
    case StmtKind::Gemm:
        lowerGemm(s);
        break;
    case StmtKind::Fill:
        lowerFill(s);
        break;
    case StmtKind::Reduce:
        lowerReduce(s);
        break;
    case StmtKind::AnnotateLayout:
    case StmtKind::UseSwizzle:
        break; // where data lives and when blocks run, not what they compute
    case StmtKind::Print:
        throw Unsupported{"T.print (its output is formatted by the interpreter)"};
    case StmtKind::WarpGroups:
        lowerStmt(s.body.get()); // in program order, as the interpreter runs it
        break;
    case StmtKind::Barrier:
        break; // in program order every wait is already satisfied
    case StmtKind::GridSync:
        // Phases split the kernel at the grid barriers of its top level (JitProgram.cpp); one elsewhere
        // would need the blocks in lockstep through the loop or branch around it.
        throw Unsupported{
            "a T.sync_grid inside a loop or branch (the interpreter runs the blocks in lockstep "
            "through it)"};
    case StmtKind::CpAsync:
        if (s.cond)
            throw Unsupported{"T.ptx_cp_async with a predicate"};
        lowerCopyLike(s, /*atomic=*/false); // in program order the copy has landed before it is read
        break;
    case StmtKind::MmaIntrinsic:
        throw Unsupported{
            "TensorCoreIntrinEmitter methods (per-thread mma.sync fragments; the interpreter runs "
            "them by the PTX fragment maps)"};
    }
    m_currentRange = saved;
}

void Lowerer::lowerFor(const Stmt& s) {
    if (!s.loopVar)
        throw Unsupported{"a loop without a loop var"};
    Value* begin = evalInt(s.min);
    Value* extent = evalInt(s.extent);
    auto minRange = rangeOf(s.min, m_ranges);
    auto extentRange = rangeOf(s.extent, m_ranges);
    std::optional<IndexRange> varRange;
    if (minRange && extentRange)
        varRange = IndexRange{minRange->lo, minRange->hi + std::max<int64_t>(extentRange->hi, 1) - 1};
    size_t id = static_cast<size_t>(s.loopVar->id);
    Value* savedValue = m_vars[id];
    auto savedRange = m_ranges.get(s.loopVar);
    m_ranges.set(s.loopVar, varRange);
    emitLoop(extent, [&](Value* i) {
        m_vars[id] = m_b.CreateAdd(begin, i);
        lowerStmt(s.body.get());
    });
    m_vars[id] = savedValue;
    m_ranges.set(s.loopVar, savedRange);
}

void Lowerer::lowerIf(const Stmt& s) {
    Value* cond = evalBool(s.cond);
    llvm::BasicBlock* thenBlock = llvm::BasicBlock::Create(m_context, "if.then", m_function);
    llvm::BasicBlock* elseBlock = llvm::BasicBlock::Create(m_context, "if.else", m_function);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(m_context, "if.done", m_function);
    m_b.CreateCondBr(cond, thenBlock, elseBlock);
    m_b.SetInsertPoint(thenBlock);
    lowerStmt(s.body.get());
    m_b.CreateBr(done);
    m_b.SetInsertPoint(elseBlock);
    lowerStmt(s.elseBody.get());
    m_b.CreateBr(done);
    m_b.SetInsertPoint(done);
}

void Lowerer::lowerStore(const Stmt& s) {
    Value* pending = nullptr;
    Value* ptr = elementPointer(s.buffer, s.indices, s.range, &pending);
    Value* value = evalStored(s.value, s.buffer->dtype);
    if (pending)
        failIf(pending, addSite("runtime-out-of-bounds", blame(s.range),
                                "out-of-bounds access to " + s.buffer->name + ": the " +
                                    ir::scopeName(s.buffer->scope) + " buffer's extents are exceeded",
                                "check the loop bounds and index arithmetic; only T.copy guards global "
                                "memory"));
    storeStored(s.buffer, value, ptr);
}

} // namespace tb::jit
