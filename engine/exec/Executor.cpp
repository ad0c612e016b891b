// The CPU reference executor: a tree-walking interpreter over the Tile IR. Vars and buffers are resolved
// through their dense module ids (vectors, no maps per element); tile ops run as native loops over the
// buffers' storage. Errors are reported as diagnostics and unwind the interpreter with a private
// exception that never leaves this file.
#include "engine/exec/Executor.h"

#include "engine/exec/CooperativeScopes.h"
#include "engine/exec/MmaIntrinsics.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace tb {

namespace {

using ir::BinaryOp;
using ir::Buffer;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using ir::Intrinsic;
using ir::MemoryScope;
using ir::Region;
using ir::Stmt;
using ir::StmtKind;
using ir::Var;

// Thrown after an error has been reported; caught at the entry points.
struct StopExecution {};

// The value of a scalar expression: `f` for float dtypes, `i` (already wrapped) for integers and bool.
struct Value {
    double f = 0;
    int64_t i = 0;
};

struct BufferSlot {
    double* data = nullptr;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    std::vector<double> owned; // storage of non-parameter buffers
    bool bound = false;
    // A local array of every thread of the block (a TensorCoreIntrinEmitter operand): copy t at
    // data[t * elements]; the shape is one thread's.
    int64_t threadCopies = 1;
    // An mbarrier buffer (T.alloc_barrier): each mbarrier's completed phases and the arrivals its current
    // phase still needs, per block.
    struct Mbarrier {
        int64_t phase = 0;
        int64_t pending = 1;
        int64_t arriveCount = 1;
    };
    std::vector<Mbarrier> mbarriers;
};

// What one of the T.ws scopes that run concurrently waits for, while it waits (for the deadlock report).
struct ScopeWait {
    const Stmt* scope = nullptr; // the WarpGroups statement
    const Stmt* wait = nullptr;  // its mbarrier_wait_parity
    int64_t index = 0;           // the mbarrier's index in its buffer
    int64_t parity = 0;
    bool waiting = false;
};

// A region with its bounds evaluated.
struct EvaluatedRegion {
    const Buffer* buffer = nullptr;
    BufferSlot* slot = nullptr;
    std::vector<int64_t> mins;
    std::vector<int64_t> extents;
};

std::string joinInts(const std::vector<int64_t>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ", ";
        out += std::to_string(values[i]);
    }
    return out;
}

std::string formatNumber(double value, DType type) {
    if (!ir::isFloat(type))
        return std::to_string(storedToInteger(value));
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    return buf;
}

int64_t floorDivide(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

// min and max of floats as IEEE 754-2019 minimumNumber/maximumNumber: a NaN operand is ignored (like
// fminf), and -0.0 is below +0.0. Spelled out rather than std::fmin/std::fmax: glibc returns the second
// of two equal operands and GCC may swap the operands of those calls, so their sign of zero depended on
// the build (found by the differential fuzzer, tests/engine/jit/programs/signed_zero_min_max.py).
double minNumber(double a, double b) {
    if (std::isnan(a))
        return b;
    if (std::isnan(b) || a < b)
        return a;
    if (b < a)
        return b;
    return std::signbit(a) ? a : b; // equal: -0.0 wins
}

double maxNumber(double a, double b) {
    if (std::isnan(a))
        return b;
    if (std::isnan(b) || a > b)
        return a;
    if (b > a)
        return b;
    return std::signbit(a) ? b : a; // equal: +0.0 wins
}

bool isGlobal(const Buffer* buffer) {
    return buffer->scope == MemoryScope::Global;
}

class Interpreter {
public:
    Interpreter(DiagnosticEngine& diags, const ExecutionLimits& limits,
                const std::map<std::string, int64_t>& dims, ExecutionLog* log)
        : m_diags(diags), m_limits(limits), m_dynamicDims(dims), m_log(log) {}

    void reserve(size_t varCount, size_t bufferCount) {
        m_varValues.resize(varCount, 0);
        m_varBound.resize(varCount, 0);
        m_slots.resize(bufferCount);
    }

    // Evaluates a buffer's shape (constants and dynamic dims) and checks it against the limits.
    std::vector<int64_t> evalShape(const Buffer* buffer, SourceRange blame) {
        std::vector<int64_t> shape;
        int64_t count = 1;
        for (const ExprPtr& extent : buffer->shape) {
            int64_t value = evalInt(extent);
            if (value < 0)
                fail("execution-invalid-shape", blame,
                     "buffer '" + buffer->name + "' has a negative extent " + std::to_string(value),
                     "check the dynamic dims given to the executor");
            shape.push_back(value);
            if (value != 0 && count > m_limits.maxBufferElements / value)
                count = m_limits.maxBufferElements + 1;
            else
                count *= value;
        }
        if (count > m_limits.maxBufferElements)
            fail("execution-limit", blame,
                 "buffer '" + buffer->name + "' of shape [" + joinInts(shape) + "] has more than " +
                     std::to_string(m_limits.maxBufferElements) + " elements",
                 "run the reference executor on smaller problem sizes");
        return shape;
    }

    void bindParams(const ir::PrimFunc& func, std::vector<HostTensor>& params) {
        if (params.size() != func.params.size())
            fail("execution-param-mismatch", func.range,
                 "'" + func.name + "' takes " + std::to_string(func.params.size()) + " tensors but " +
                     std::to_string(params.size()) + " were given",
                 "pass one host tensor per parameter, in order (allocateParams makes them)");
        const std::set<const Buffer*> written =
            func.body ? ir::writtenBuffers(*func.body) : std::set<const Buffer*>{};
        for (size_t i = 0; i < params.size(); ++i) {
            const Buffer* buffer = func.params[i];
            HostTensor& tensor = params[i];
            std::vector<int64_t> shape = evalShape(buffer, buffer->range);
            if (shape != tensor.shape || tensor.dtype != buffer->dtype ||
                tensor.data.dtype() != tensor.dtype ||
                static_cast<int64_t>(tensor.data.size()) != tensor.elementCount())
                fail("execution-param-mismatch", buffer->range,
                     "parameter '" + buffer->name + "' is " + ir::dtypeName(buffer->dtype) + "[" +
                         joinInts(shape) + "] but the tensor given is " + ir::dtypeName(tensor.dtype) + "[" +
                         joinInts(tensor.shape) + "] with " + std::to_string(tensor.data.size()) + " values",
                     "allocate the tensor with the parameter's dtype and shape");
            // The interpreter works on doubles: a copy of the tensor's values, written back by
            // writeBackParams.
            BufferSlot& slot = slotOf(buffer);
            slot.owned = tensor.data.values();
            slot.data = slot.owned.data();
            setShape(slot, shape);
            slot.bound = true;
            if (written.count(buffer)) // the others are as they were: no copy back
                m_boundParams.emplace_back(&slot, &tensor);
        }
    }

    // Stores what the run wrote into the parameters the program writes (every value is already rounded to
    // its dtype).
    void writeBackParams() {
        for (auto& [slot, tensor] : m_boundParams)
            tensor->data = slot->owned;
        m_boundParams.clear();
    }

    // T.alloc_global workspaces: zero-filled once per run of the function, shared by all its kernels.
    void allocateWorkspaces(const ir::PrimFunc& func) {
        for (const Buffer* buffer : func.workspaces) {
            BufferSlot& slot = slotOf(buffer);
            std::vector<int64_t> shape = evalShape(buffer, buffer->range);
            setShape(slot, shape);
            slot.owned.assign(static_cast<size_t>(elementCount(shape)), 0.0);
            slot.data = slot.owned.data();
            slot.bound = true;
        }
    }

    void run(const Stmt* body) { exec(body); }

    int64_t steps() const { return m_steps; }

private:
    // ------------------------------------------------------------------------------------------------
    // Errors and limits

    [[noreturn]] void fail(const std::string& code, SourceRange range, std::string message,
                           std::string hint) {
        Diagnostic& d = m_diags.error(code, range, std::move(message), std::move(hint));
        if (m_inKernel)
            d.notes.push_back({range, "in block (" + joinInts(m_blockIndex) + ")"});
        throw StopExecution{};
    }

    SourceRange blame(SourceRange preferred) const { return preferred.valid ? preferred : m_currentRange; }

    void addSteps(int64_t count, SourceRange range) {
        m_steps += count;
        if (m_steps > m_limits.maxSteps)
            fail("execution-limit", blame(range),
                 "execution stopped after " + std::to_string(m_limits.maxSteps) + " steps",
                 "reduce the problem size or raise ExecutionLimits::maxSteps; a loop may not terminate");
    }

    struct DepthGuard {
        Interpreter& self;
        DepthGuard(Interpreter& s, SourceRange range) : self(s) {
            if (++self.m_depth > self.m_limits.maxDepth)
                self.fail("execution-nesting-too-deep", self.blame(range),
                          "statements and expressions nest deeper than " +
                              std::to_string(self.m_limits.maxDepth) + " levels",
                          "simplify the program");
        }
        ~DepthGuard() { --self.m_depth; }
    };

    // ------------------------------------------------------------------------------------------------
    // Vars and buffers

    BufferSlot& slotOf(const Buffer* buffer) {
        size_t id = static_cast<size_t>(buffer->id);
        if (id >= m_slots.size())
            m_slots.resize(id + 1);
        return m_slots[id];
    }

    // A bound buffer; one with a copy per thread only where `perThreadOk` (fills and the emitter methods).
    BufferSlot& boundSlot(const Buffer* buffer, SourceRange range, bool perThreadOk = false) {
        BufferSlot& slot = slotOf(buffer);
        if (!slot.bound)
            fail("execution-unbound-buffer", blame(range),
                 "buffer '" + buffer->name + "' (" + ir::scopeName(buffer->scope) +
                     ") is used where it is not allocated",
                 "allocate the buffer inside the T.Kernel that uses it");
        if (slot.threadCopies > 1 && !perThreadOk)
            fail("execution-per-thread-local", blame(range),
                 "'" + buffer->name +
                     "' is a per-thread array of a TensorCoreIntrinEmitter; the reference executor runs "
                     "tile-level code once per block and reads or writes it only through the emitter's "
                     "methods and T.fill / T.clear",
                 "move the values through the emitter (stmatrix into shared memory) and use them from there");
        return slot;
    }

    static void setShape(BufferSlot& slot, const std::vector<int64_t>& shape) {
        slot.shape = shape;
        slot.strides.assign(shape.size(), 1);
        for (size_t d = shape.size(); d-- > 1;)
            slot.strides[d - 1] = slot.strides[d] * shape[d];
    }

    void setVar(const Var* var, int64_t value) {
        size_t id = static_cast<size_t>(var->id);
        if (id >= m_varValues.size()) {
            m_varValues.resize(id + 1, 0);
            m_varBound.resize(id + 1, 0);
        }
        m_varValues[id] = value;
        m_varBound[id] = 1;
    }

    int64_t varValue(const Var* var, SourceRange range) {
        size_t id = static_cast<size_t>(var->id);
        if (id < m_varValues.size() && m_varBound[id])
            return m_varValues[id];
        switch (var->kind) {
        case ir::VarKind::DynamicDim: {
            auto it = m_dynamicDims.find(var->name);
            if (it == m_dynamicDims.end())
                fail("execution-missing-dynamic-dim", blame(range),
                     "no value for dynamic dim '" + var->name + "'",
                     "give every T.dynamic/T.symbolic dim a value before running the reference executor");
            setVar(var, it->second);
            return it->second;
        }
        case ir::VarKind::ThreadIndex:
            fail("execution-thread-index-unsupported", blame(range),
                 "the reference executor runs tile-level code once per block and has no value for thread "
                 "index '" +
                     var->name + "'",
                 "express the computation with tile ops and T.Parallel instead of thread indices");
        case ir::VarKind::BlockIndex:
        case ir::VarKind::LoopVar:
        case ir::VarKind::Placeholder:
            break;
        }
        fail("execution-unbound-var", blame(range), "'" + var->name + "' is used outside its scope",
             "this is an elaborator bug: the IR refers to a var that is not bound here");
    }

    // Linear offset of a multi-index, or -1 when it is out of bounds.
    static int64_t linearOffset(const BufferSlot& slot, const int64_t* index, size_t rank) {
        int64_t offset = 0;
        for (size_t d = 0; d < rank; ++d) {
            if (index[d] < 0 || index[d] >= slot.shape[d])
                return -1;
            offset += index[d] * slot.strides[d];
        }
        return offset;
    }

    [[noreturn]] void outOfBounds(const Buffer* buffer, const BufferSlot& slot, const int64_t* index,
                                  size_t rank, SourceRange range) {
        std::vector<int64_t> idx(index, index + rank);
        fail("runtime-out-of-bounds", blame(range),
             "out-of-bounds access to " + buffer->name + "[" + joinInts(idx) + "]: the " +
                 ir::scopeName(buffer->scope) + " buffer's extents are [" + joinInts(slot.shape) + "]",
             "check the loop bounds and index arithmetic; only T.copy guards global memory");
    }

    // Evaluates index expressions into `out` (rank entries); a local.var may be accessed without indices.
    void evalIndices(const Buffer* buffer, const BufferSlot& slot, const std::vector<ExprPtr>& indices,
                     std::vector<int64_t>& out, SourceRange range) {
        out.assign(slot.shape.size(), 0);
        if (indices.empty() && buffer->scope == MemoryScope::LocalVar)
            return;
        if (indices.size() != slot.shape.size())
            fail("execution-malformed-ir", blame(range),
                 "'" + buffer->name + "' has rank " + std::to_string(slot.shape.size()) +
                     " but is indexed with " + std::to_string(indices.size()) + " indices",
                 "this is an elaborator bug");
        for (size_t d = 0; d < indices.size(); ++d)
            out[d] = evalInt(indices[d]);
    }

    // ------------------------------------------------------------------------------------------------
    // Scalar values

    static double toStored(const Value& v, DType type) {
        return ir::isFloat(type) ? v.f : integerToStored(v.i, type);
    }

    static Value fromStored(double stored, DType type) {
        Value v;
        if (ir::isFloat(type))
            v.f = stored;
        else
            v.i = storedToInteger(stored);
        return v;
    }

    static bool truthy(const Value& v, DType type) { return ir::isFloat(type) ? v.f != 0 : v.i != 0; }

    static Value castValue(const Value& v, DType from, DType to) {
        if (!ir::isFloat(from) && !ir::isFloat(to)) {
            Value out;
            out.i = wrapInteger(v.i, to);
            return out;
        }
        return fromStored(convertValue(toStored(v, from), from, to), to);
    }

    static Value makeInt(int64_t value, DType type) {
        Value v;
        if (ir::isFloat(type))
            v.f = roundToDType(static_cast<double>(value), type);
        else
            v.i = wrapInteger(value, type);
        return v;
    }

    static Value makeFloat(double value, DType type) {
        Value v;
        if (ir::isFloat(type))
            v.f = roundToDType(value, type);
        else
            v.i = storedToInteger(convertValue(value, DType::Float64, type));
        return v;
    }

    int64_t evalInt(const ExprPtr& expr) {
        Value v = eval(expr);
        if (ir::isFloat(expr->dtype))
            return storedToInteger(std::trunc(v.f));
        return v.i;
    }

    bool evalBool(const ExprPtr& expr) { return truthy(eval(expr), expr->dtype); }

    // Evaluates and converts to `type`, returned in stored (double) form.
    double evalStored(const ExprPtr& expr, DType type) {
        return toStored(castValue(eval(expr), expr->dtype, type), type);
    }

    Value eval(const ExprPtr& expr) {
        if (!expr)
            fail("execution-malformed-ir", m_currentRange, "missing expression", "this is an elaborator bug");
        DepthGuard guard(*this, expr->range);
        const Expr& e = *expr;
        switch (e.kind) {
        case ExprKind::IntImm:
            return makeInt(e.intValue, e.dtype);
        case ExprKind::FloatImm:
            return makeFloat(e.floatValue, e.dtype);
        case ExprKind::VarRef:
            return makeInt(varValue(e.var, e.range), e.dtype);
        case ExprKind::BufferLoad: {
            BufferSlot& slot = boundSlot(e.buffer, e.range);
            std::vector<int64_t> index;
            evalIndices(e.buffer, slot, e.operands, index, e.range);
            int64_t offset = linearOffset(slot, index.data(), index.size());
            if (offset < 0)
                outOfBounds(e.buffer, slot, index.data(), index.size(), e.range);
            return castValue(fromStored(slot.data[offset], e.buffer->dtype), e.buffer->dtype, e.dtype);
        }
        case ExprKind::Binary:
            return evalBinary(e);
        case ExprKind::Unary: {
            checkOperands(e, 1);
            DType type = e.operands[0]->dtype;
            Value a = eval(e.operands[0]);
            switch (e.unaryOp) {
            case ir::UnaryOp::Neg:
                if (ir::isFloat(type))
                    return makeFloat(-a.f, e.dtype);
                return makeInt(static_cast<int64_t>(0ull - static_cast<uint64_t>(a.i)), e.dtype);
            case ir::UnaryOp::LogicalNot:
                return makeInt(truthy(a, type) ? 0 : 1, e.dtype);
            case ir::UnaryOp::BitNot:
                if (ir::isFloat(type))
                    unsupported(e, "bitwise not of a float");
                return makeInt(~a.i, e.dtype);
            }
            return a;
        }
        case ExprKind::Select: {
            checkOperands(e, 3);
            const ExprPtr& chosen = evalBool(e.operands[0]) ? e.operands[1] : e.operands[2];
            return castValue(eval(chosen), chosen->dtype, e.dtype);
        }
        case ExprKind::Call:
            return evalCall(e);
        case ExprKind::Cast:
            checkOperands(e, 1);
            return castValue(eval(e.operands[0]), e.operands[0]->dtype, e.dtype);
        }
        return {};
    }

    void checkOperands(const Expr& e, size_t count) {
        if (e.operands.size() != count)
            fail("execution-malformed-ir", blame(e.range),
                 "expression '" + ir::printExpr(std::make_shared<Expr>(e)) + "' has " +
                     std::to_string(e.operands.size()) + " operands, expected " + std::to_string(count),
                 "this is an elaborator bug");
    }

    [[noreturn]] void unsupported(const Expr& e, const std::string& what) {
        fail("execution-unsupported", blame(e.range), "the reference executor does not support " + what,
             "insert a cast to an integer type");
    }

    [[noreturn]] void divisionByZero(const Expr& e) {
        fail("runtime-division-by-zero", blame(e.range),
             "integer division by zero in '" + ir::printExpr(std::make_shared<Expr>(e)) + "'",
             "guard the divisor; integer division by zero is undefined on the GPU");
    }

    Value evalBinary(const Expr& e) {
        checkOperands(e, 2);
        BinaryOp op = e.binaryOp;
        const ExprPtr& lhs = e.operands[0];
        const ExprPtr& rhs = e.operands[1];
        // `and` / `or` short-circuit, so a guard like `i < n and A[i] > 0` never reads out of bounds.
        if (op == BinaryOp::LogicalAnd)
            return makeInt(evalBool(lhs) && evalBool(rhs) ? 1 : 0, e.dtype);
        if (op == BinaryOp::LogicalOr)
            return makeInt(evalBool(lhs) || evalBool(rhs) ? 1 : 0, e.dtype);
        Value a = eval(lhs);
        Value b = eval(rhs);
        if (ir::isFloat(lhs->dtype) || ir::isFloat(rhs->dtype))
            return floatBinary(e, toStored(a, lhs->dtype), toStored(b, rhs->dtype));
        bool isUnsigned64 = lhs->dtype == DType::UInt64 || rhs->dtype == DType::UInt64;
        return intBinary(e, a.i, b.i, isUnsigned64, ir::dtypeBits(lhs->dtype));
    }

    Value floatBinary(const Expr& e, double a, double b) {
        switch (e.binaryOp) {
        case BinaryOp::Add:
            return makeFloat(a + b, e.dtype);
        case BinaryOp::Sub:
            return makeFloat(a - b, e.dtype);
        case BinaryOp::Mul:
            return makeFloat(a * b, e.dtype);
        case BinaryOp::Div:
            return makeFloat(a / b, e.dtype);
        case BinaryOp::FloorDiv:
            return makeFloat(std::floor(a / b), e.dtype);
        case BinaryOp::FloorMod:
            return makeFloat(a - std::floor(a / b) * b, e.dtype);
        case BinaryOp::Min:
            return makeFloat(minNumber(a, b), e.dtype); // a NaN operand is ignored
        case BinaryOp::Max:
            return makeFloat(maxNumber(a, b), e.dtype);
        case BinaryOp::Pow:
            return makeFloat(std::pow(a, b), e.dtype);
        case BinaryOp::Eq:
            return makeInt(a == b, e.dtype);
        case BinaryOp::Ne:
            return makeInt(a != b, e.dtype);
        case BinaryOp::Lt:
            return makeInt(a < b, e.dtype);
        case BinaryOp::Le:
            return makeInt(a <= b, e.dtype);
        case BinaryOp::Gt:
            return makeInt(a > b, e.dtype);
        case BinaryOp::Ge:
            return makeInt(a >= b, e.dtype);
        case BinaryOp::LogicalAnd:
            return makeInt(a != 0 && b != 0, e.dtype);
        case BinaryOp::LogicalOr:
            return makeInt(a != 0 || b != 0, e.dtype);
        case BinaryOp::BitAnd:
        case BinaryOp::BitOr:
        case BinaryOp::BitXor:
        case BinaryOp::Shl:
        case BinaryOp::Shr:
            unsupported(e, std::string("'") + ir::binaryOpName(e.binaryOp) + "' on float operands");
        }
        return {};
    }

    Value intBinary(const Expr& e, int64_t a, int64_t b, bool isUnsigned64, int bits) {
        uint64_t ua = static_cast<uint64_t>(a);
        uint64_t ub = static_cast<uint64_t>(b);
        auto wrap = [&](uint64_t v) { return makeInt(static_cast<int64_t>(v), e.dtype); };
        auto less = [&](int64_t x, int64_t y) {
            return isUnsigned64 ? static_cast<uint64_t>(x) < static_cast<uint64_t>(y) : x < y;
        };
        switch (e.binaryOp) {
        case BinaryOp::Add:
            return wrap(ua + ub);
        case BinaryOp::Sub:
            return wrap(ua - ub);
        case BinaryOp::Mul:
            return wrap(ua * ub);
        case BinaryOp::Div:
            if (b == 0)
                divisionByZero(e);
            if (isUnsigned64)
                return wrap(ua / ub);
            return b == -1 ? wrap(0ull - ua) : makeInt(a / b, e.dtype);
        case BinaryOp::FloorDiv:
            if (b == 0)
                divisionByZero(e);
            if (isUnsigned64)
                return wrap(ua / ub);
            return b == -1 ? wrap(0ull - ua) : makeInt(floorDivide(a, b), e.dtype);
        case BinaryOp::FloorMod:
            if (b == 0)
                divisionByZero(e);
            if (isUnsigned64)
                return wrap(ua % ub);
            return b == -1 ? makeInt(0, e.dtype) : makeInt(a - floorDivide(a, b) * b, e.dtype);
        case BinaryOp::Min:
            return makeInt(less(b, a) ? b : a, e.dtype);
        case BinaryOp::Max:
            return makeInt(less(a, b) ? b : a, e.dtype);
        case BinaryOp::Pow: {
            if (b < 0) // 1/x^n truncates to 0 except for |x| = 1
                return makeInt(a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0), e.dtype);
            uint64_t result = 1, base = ua;
            for (uint64_t n = ub; n; n >>= 1) { // square and multiply, wrapping
                if (n & 1)
                    result *= base;
                base *= base;
            }
            return wrap(result);
        }
        case BinaryOp::BitAnd:
            return wrap(ua & ub);
        case BinaryOp::BitOr:
            return wrap(ua | ub);
        case BinaryOp::BitXor:
            return wrap(ua ^ ub);
        case BinaryOp::Shl:
            // Shifts by a negative count or by the width or more give 0 (PTX shl clamps the count).
            if (b < 0 || b >= bits)
                return makeInt(0, e.dtype);
            return wrap(ua << b);
        case BinaryOp::Shr:
            if (b < 0 || b >= bits)
                return makeInt(!isUnsigned64 && a < 0 ? -1 : 0, e.dtype);
            return isUnsigned64 ? wrap(ua >> b) : makeInt(a >> b, e.dtype);
        case BinaryOp::Eq:
            return makeInt(a == b, e.dtype);
        case BinaryOp::Ne:
            return makeInt(a != b, e.dtype);
        case BinaryOp::Lt:
            return makeInt(less(a, b), e.dtype);
        case BinaryOp::Le:
            return makeInt(!less(b, a), e.dtype);
        case BinaryOp::Gt:
            return makeInt(less(b, a), e.dtype);
        case BinaryOp::Ge:
            return makeInt(!less(a, b), e.dtype);
        case BinaryOp::LogicalAnd:
            return makeInt(a != 0 && b != 0, e.dtype);
        case BinaryOp::LogicalOr:
            return makeInt(a != 0 || b != 0, e.dtype);
        }
        return {};
    }

    Value evalCall(const Expr& e) {
        checkOperands(e, e.intrinsic == Intrinsic::Fma ? 3 : 1);
        const ExprPtr& arg = e.operands[0];
        Value a = eval(arg);
        bool floatArg = ir::isFloat(arg->dtype);
        double x = toStored(a, arg->dtype);
        switch (e.intrinsic) {
        case Intrinsic::Exp:
            return makeFloat(std::exp(x), e.dtype);
        case Intrinsic::Exp2:
            return makeFloat(std::exp2(x), e.dtype);
        case Intrinsic::Exp10:
            return makeFloat(std::pow(10.0, x), e.dtype);
        case Intrinsic::Log:
            return makeFloat(std::log(x), e.dtype);
        case Intrinsic::Log2:
            return makeFloat(std::log2(x), e.dtype);
        case Intrinsic::Log10:
            return makeFloat(std::log10(x), e.dtype);
        case Intrinsic::Sqrt:
            return makeFloat(std::sqrt(x), e.dtype);
        case Intrinsic::Rsqrt:
            return makeFloat(1.0 / std::sqrt(x), e.dtype);
        case Intrinsic::Abs:
            if (!floatArg)
                return makeInt(a.i < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(a.i)) : a.i,
                               e.dtype);
            return makeFloat(std::fabs(x), e.dtype);
        case Intrinsic::Sigmoid:
            return makeFloat(1.0 / (1.0 + std::exp(-x)), e.dtype);
        case Intrinsic::Tanh:
            return makeFloat(std::tanh(x), e.dtype);
        case Intrinsic::Sin:
            return makeFloat(std::sin(x), e.dtype);
        case Intrinsic::Cos:
            return makeFloat(std::cos(x), e.dtype);
        case Intrinsic::Floor:
        case Intrinsic::Ceil:
        case Intrinsic::Round:
        case Intrinsic::Trunc: {
            if (!floatArg)
                return castValue(a, arg->dtype, e.dtype);
            double r = e.intrinsic == Intrinsic::Floor  ? std::floor(x)
                       : e.intrinsic == Intrinsic::Ceil ? std::ceil(x)
                       : e.intrinsic == Intrinsic::Trunc
                           ? std::trunc(x)
                           : std::round(x); // CUDA roundf: halfway cases away from zero
            return makeFloat(r, e.dtype);
        }
        case Intrinsic::Erf:
            return makeFloat(std::erf(x), e.dtype);
        case Intrinsic::Fma: {
            double y = toStored(eval(e.operands[1]), e.operands[1]->dtype);
            double z = toStored(eval(e.operands[2]), e.operands[2]->dtype);
            return makeFloat(std::fma(x, y, z), e.dtype);
        }
        case Intrinsic::IsNan:
            return makeInt(floatArg && std::isnan(x) ? 1 : 0, e.dtype);
        case Intrinsic::IsInf:
            return makeInt(floatArg && std::isinf(x) ? 1 : 0, e.dtype);
        }
        return {};
    }

    // ------------------------------------------------------------------------------------------------
    // Statements

    void exec(const Stmt* stmt) {
        if (!stmt)
            return;
        DepthGuard guard(*this, stmt->range);
        SourceRange saved = m_currentRange;
        if (stmt->range.valid)
            m_currentRange = stmt->range;
        addSteps(1, stmt->range);
        const Stmt& s = *stmt;
        switch (s.kind) {
        case StmtKind::Seq:
            for (size_t k = 0; k < s.stmts.size(); ++k) {
                if (size_t count = concurrentScopes(s.stmts, k)) {
                    execConcurrently(s.stmts, k, count);
                    k += count - 1;
                } else {
                    exec(s.stmts[k].get());
                }
            }
            break;
        case StmtKind::Kernel:
            execKernel(s);
            break;
        case StmtKind::For: {
            int64_t begin = evalInt(s.min);
            int64_t extent = evalInt(s.extent);
            if (!s.loopVar)
                fail("execution-malformed-ir", blame(s.range), "loop without a loop var",
                     "this is an elaborator bug");
            for (int64_t i = 0; i < extent; ++i) {
                addSteps(1, s.range);
                setVar(s.loopVar, begin + i);
                exec(s.body.get());
            }
            break;
        }
        case StmtKind::IfThenElse:
            if (evalBool(s.cond))
                exec(s.body.get());
            else
                exec(s.elseBody.get());
            break;
        case StmtKind::Store: {
            BufferSlot& slot = boundSlot(s.buffer, s.range);
            std::vector<int64_t> index;
            evalIndices(s.buffer, slot, s.indices, index, s.range);
            double value = evalStored(s.value, s.buffer->dtype);
            int64_t offset = linearOffset(slot, index.data(), index.size());
            if (offset < 0)
                outOfBounds(s.buffer, slot, index.data(), index.size(), s.range);
            slot.data[offset] = value;
            break;
        }
        case StmtKind::Copy:
            execCopy(s);
            break;
        case StmtKind::Gemm:
            execGemm(s);
            break;
        case StmtKind::Fill:
            execFill(s);
            break;
        case StmtKind::Reduce:
            execReduce(s);
            break;
        case StmtKind::AtomicAdd:
            execAtomicAdd(s);
            break;
        case StmtKind::AnnotateLayout:
        case StmtKind::UseSwizzle:
            break; // layouts and rasterization change where data lives and when blocks run, not results
        case StmtKind::Print:
            execPrint(s);
            break;
        case StmtKind::WarpGroups: {
            // Tile semantics: the scope's statements run once, for all its threads; an mbarrier arrive in it
            // counts as all of them arriving. Scopes that run concurrently switch at their waits
            // (execConcurrently); others run in program order.
            const int64_t outerThreads = m_arrivingThreads;
            const bool outerInScope = m_inWarpGroup;
            m_arrivingThreads = s.threadCount;
            m_inWarpGroup = true;
            exec(s.body.get());
            m_arrivingThreads = outerThreads;
            m_inWarpGroup = outerInScope;
            break;
        }
        case StmtKind::Barrier:
            execBarrier(s);
            break;
        case StmtKind::GridSync:
            // Reached only through execKernelInPhases, which runs every block up to the barrier first.
            if (!m_inPhases)
                fail("execution-malformed-ir", blame(s.range),
                     "a grid barrier (T.sync_grid) outside a kernel's phases", "this is an executor bug");
            break;
        case StmtKind::CpAsync:
            // In program order the copy has landed before anything that waits for it reads it.
            if (s.cond && !evalBool(s.cond))
                zeroFill(s); // a false predicate writes zeros, as cp.async with a source size of 0 does
            else
                execCopy(s);
            break;
        case StmtKind::MmaIntrinsic:
            execMmaIntrinsic(s);
            break;
        }
        m_currentRange = saved;
    }

    // ------------------------------------------------------------------------------------------------
    // mbarriers and the T.ws scopes that run concurrently
    //
    // Each block's mbarriers count phases as the GPU's do: an arrive counts the arriving threads (a T.ws
    // scope's, or the block's outside one), and when the arrive count is reached the phase completes and the
    // next begins. A wait for parity p passes once the phase of parity p has completed
    // (mbarrier.try_wait.parity: at first phase 0 is pending, so a wait for 0 blocks and one for 1 passes).
    // Copies are synchronous here, so expect_tx and a T.tma_copy's barrier add nothing: the program's own
    // arrives complete the phases. Outside a run of concurrent scopes program order runs every arrive
    // before the waits it satisfies, so a wait passes; inside one, an unsatisfied wait hands over to the
    // next scope that can run (CooperativeScopes), and the scope resumes once its phase has completed.

    size_t concurrentScopes(const std::vector<ir::StmtPtr>& stmts, size_t k) {
        if (m_inWarpGroup || !stmts[k] || stmts[k]->kind != StmtKind::WarpGroups)
            return 0;
        auto [it, inserted] = m_concurrentRuns.try_emplace(stmts[k].get(), 0);
        if (inserted)
            it->second = ir::concurrentWarpGroupRun(stmts, k);
        return it->second;
    }

    // The interpreter state that belongs to one scope's execution, put aside while another scope runs.
    struct ScopeContext {
        int depth = 0;
        SourceRange range;
        int64_t arrivingThreads = 1;
        bool inWarpGroup = false;
        CooperativeScopes* scopes = nullptr;
        size_t scopeIndex = 0;
        std::vector<int64_t> varValues;
        std::vector<char> varBound;
    };

    ScopeContext takeContext() {
        return {m_depth,  m_currentRange, m_arrivingThreads,      m_inWarpGroup,
                m_scopes, m_scopeIndex,   std::move(m_varValues), std::move(m_varBound)};
    }

    void putContext(ScopeContext context) {
        m_depth = context.depth;
        m_currentRange = context.range;
        m_arrivingThreads = context.arrivingThreads;
        m_inWarpGroup = context.inWarpGroup;
        m_scopes = context.scopes;
        m_scopeIndex = context.scopeIndex;
        m_varValues = std::move(context.varValues);
        m_varBound = std::move(context.varBound);
    }

    // Runs stmts[first, first + count), T.ws scopes that run concurrently on the GPU, as cooperating scopes:
    // each with the block's state as it is here (its own copy of the vars), switching at unsatisfied waits.
    void execConcurrently(const std::vector<ir::StmtPtr>& stmts, size_t first, size_t count) {
        std::vector<ScopeWait> waits(count);
        for (size_t i = 0; i < count; ++i)
            waits[i].scope = stmts[first + i].get();
        ScopeContext entry = takeContext();
        m_scopeWaits = &waits;
        try {
            CooperativeScopes::run(count, [&](CooperativeScopes& scopes, size_t i) {
                putContext(entry);
                m_scopes = &scopes;
                m_scopeIndex = i;
                exec(stmts[first + i].get());
            });
        } catch (const std::runtime_error& e) { // no thread for a scope
            putContext(std::move(entry));
            m_scopeWaits = nullptr;
            fail("execution-limit", blame(stmts[first]->range), e.what(),
                 "the executor runs each concurrent T.ws scope on a thread of its own");
        } catch (...) {
            putContext(std::move(entry));
            m_scopeWaits = nullptr;
            throw;
        }
        putContext(std::move(entry));
        m_scopeWaits = nullptr;
    }

    void execBarrier(const Stmt& s) {
        if (!s.barrier)
            fail("execution-malformed-ir", blame(s.range), "an mbarrier operation without its mbarrier",
                 "this is an elaborator bug");
        BufferSlot& slot = boundSlot(s.barrier, s.range);
        const int64_t index = s.barrierIndex ? evalInt(s.barrierIndex) : 0;
        if (index < 0 || index >= static_cast<int64_t>(slot.mbarriers.size()))
            fail("runtime-out-of-bounds", blame(s.range),
                 "mbarrier index " + std::to_string(index) + " of '" + s.barrier->name + "', which holds " +
                     std::to_string(slot.mbarriers.size()) + " mbarrier(s)",
                 "index the T.alloc_barrier buffer within its arrive counts");
        BufferSlot::Mbarrier& bar = slot.mbarriers[static_cast<size_t>(index)];
        switch (s.barrierOp) {
        case ir::BarrierOp::Arrive:
        case ir::BarrierOp::CpAsyncArrive: {
            // Arrivals past the pending count belong to the next phase, as the GPU's would.
            int64_t left = std::max<int64_t>(m_arrivingThreads, 1);
            for (; left >= bar.pending; bar.pending = bar.arriveCount) {
                left -= bar.pending;
                ++bar.phase;
            }
            bar.pending -= left;
            break;
        }
        case ir::BarrierOp::ExpectTx:
            break; // copies are synchronous: the program's arrives complete the phase
        case ir::BarrierOp::WaitParity:
            if (m_scopes) // in program order every wait is already satisfied
                waitForPhase(s, bar, index, s.value ? evalInt(s.value) & 1 : 0);
            break;
        }
    }

    void waitForPhase(const Stmt& s, const BufferSlot::Mbarrier& bar, int64_t index, int64_t parity) {
        const std::function<bool()> completed = [&bar, parity] { return (bar.phase & 1) != parity; };
        if (completed())
            return;
        ScopeWait& wait = (*m_scopeWaits)[m_scopeIndex];
        wait.wait = &s;
        wait.index = index;
        wait.parity = parity;
        wait.waiting = true;
        CooperativeScopes* scopes = m_scopes;
        const size_t self = m_scopeIndex;
        ScopeContext mine = takeContext();
        const bool satisfied = scopes->waitUntil(self, completed);
        putContext(std::move(mine));
        if (!satisfied)
            reportDeadlock(s);
        wait.waiting = false;
    }

    static std::string scopeName(const Stmt& scope) {
        std::string groups;
        for (int64_t g : scope.warpGroups)
            groups += (groups.empty() ? "" : ", ") + std::to_string(g);
        return "ws(" + groups + ") (threads " + std::to_string(scope.firstThread) + ".." +
               std::to_string(scope.firstThread + scope.threadCount - 1) + ")";
    }

    // Every unfinished scope waits for a phase that no scope will complete: on the GPU the block would hang.
    [[noreturn]] void reportDeadlock(const Stmt& s) {
        std::string waiting, finished;
        std::vector<DiagnosticNote> notes;
        for (const ScopeWait& w : *m_scopeWaits) {
            const std::string who = scopeName(*w.scope);
            if (!w.waiting) {
                finished += (finished.empty() ? "" : ", ") + who;
                continue;
            }
            const BufferSlot::Mbarrier& bar = slotOf(w.wait->barrier).mbarriers[size_t(w.index)];
            const std::string what = "mbarrier " + w.wait->barrier->name + "[" + std::to_string(w.index) +
                                     "], parity " + std::to_string(w.parity);
            waiting += (waiting.empty() ? "" : "; ") + who + " waits for " + what;
            notes.push_back({w.wait->range, who + " waits here for " + what + " (" +
                                                std::to_string(bar.phase) +
                                                " phase(s) completed; the current one, of parity " +
                                                std::to_string(bar.phase & 1) + ", still needs " +
                                                std::to_string(bar.pending) + " of " +
                                                std::to_string(bar.arriveCount) + " arrivals)"});
        }
        Diagnostic& d = m_diags.error(
            "execution-mbarrier-deadlock", blame(s.range),
            "the T.ws scopes that run concurrently wait forever: " + waiting +
                (finished.empty() ? std::string() : "; " + finished + " finished") +
                ". No scope can complete those phases: on the GPU the block would hang",
            "an mbarrier completes a phase when its arrive count of threads arrived (an arrive in a T.ws "
            "scope counts all its threads); a wait for parity p passes once a phase of parity p completed, "
            "so "
            "the first wait for parity 0 needs the first phase's arrivals and a first wait for parity 1 "
            "passes at once: check the arrive counts, the arrives and the parities");
        d.notes.insert(d.notes.end(), notes.begin(), notes.end());
        if (m_inKernel)
            d.notes.push_back({s.range, "in block (" + joinInts(m_blockIndex) + ")"});
        throw StopExecution{};
    }

    // Fresh storage for a buffer allocated in a kernel (on-chip: global workspaces belong to the function).
    void allocate(const Buffer* buffer, SourceRange range) {
        if (buffer->viewOf) { // its shape over the base's storage
            const BufferSlot& base = boundSlot(buffer->viewOf, buffer->range);
            std::vector<int64_t> shape = evalShape(buffer, buffer->range);
            const int64_t baseCount = elementCount(base.shape);
            if (elementCount(shape) > baseCount)
                fail("view-exceeds-base", blame(buffer->range),
                     "view '" + buffer->name + "' [" + joinInts(shape) + "] has " +
                         std::to_string(elementCount(shape)) + " elements but its base '" +
                         buffer->viewOf->name + "' has only " + std::to_string(baseCount),
                     "a view's extents must multiply to at most its base's element count");
            double* data = base.data;
            BufferSlot& slot = slotOf(buffer);
            setShape(slot, shape);
            slot.data = data;
            slot.bound = true;
            return;
        }
        BufferSlot& slot = slotOf(buffer);
        std::vector<int64_t> shape = evalShape(buffer, buffer->range);
        setShape(slot, shape);
        double poison = uninitializedValue(buffer->dtype);
        slot.threadCopies = m_threadLocals.count(buffer) ? m_blockThreads : 1;
        slot.owned.assign(static_cast<size_t>(elementCount(shape) * slot.threadCopies), poison);
        slot.data = slot.owned.data();
        slot.bound = true;
        slot.mbarriers.clear();
        for (int64_t count : buffer->arriveCounts) {
            const int64_t arrivals = std::max<int64_t>(count, 1);
            slot.mbarriers.push_back({0, arrivals, arrivals});
        }
        if (buffer->initValue && *buffer->initValue) {
            double init = evalStored(*buffer->initValue, buffer->dtype);
            for (double& element : slot.owned)
                element = init;
        }
    }

    static int64_t elementCount(const std::vector<int64_t>& shape) {
        int64_t count = 1;
        for (int64_t extent : shape)
            count *= extent;
        return count;
    }

    void execKernel(const Stmt& s) {
        if (ir::containsGridSync(s)) {
            execKernelInPhases(s);
            return;
        }
        std::vector<int64_t> grid;
        for (const ExprPtr& extent : s.grid)
            grid.push_back(evalInt(extent));
        if (grid.size() != s.blockVars.size() || grid.size() > 3)
            fail("execution-malformed-ir", blame(s.range),
                 "kernel with " + std::to_string(grid.size()) + " grid extents and " +
                     std::to_string(s.blockVars.size()) + " block vars",
                 "this is an elaborator bug");
        // Clamped past the step limit so that a huge grid reports "execution-limit" instead of overflowing.
        const int64_t cap = m_limits.maxSteps + 1;
        int64_t blocks = 1;
        for (int64_t extent : grid)
            blocks = extent <= 0 ? 0 : (blocks > cap / extent ? cap : blocks * extent);
        bool wasInKernel = m_inKernel;
        std::vector<int64_t> outerBlock = m_blockIndex;
        findThreadLocals(s);
        m_inKernel = true;
        std::vector<int64_t> index(grid.size(), 0);
        const bool sampled = m_limits.blockSample > 0 && blocks > m_limits.blockSample;
        const std::vector<int64_t> sample =
            sampled ? sampledBlocks(blocks, m_limits.blockSample) : std::vector<int64_t>{};
        for (int64_t i = 0; i < (sampled ? int64_t(sample.size()) : blocks); ++i) {
            const int64_t b = sampled ? sample[size_t(i)] : i;
            addSteps(1, s.range);
            int64_t rest = b; // blockIdx.x varies fastest
            for (size_t d = 0; d < grid.size(); ++d) {
                index[d] = rest % grid[d];
                rest /= grid[d];
                setVar(s.blockVars[d], index[d]);
            }
            m_blockIndex = index;
            m_blockIndex.resize(3, 0);
            for (const Buffer* buffer : s.allocations)
                allocate(buffer, s.range);
            exec(s.body.get());
        }
        // On-chip buffers die with the kernel; a later kernel that uses one gets an error, not stale data.
        for (const Buffer* buffer : s.allocations)
            if (!isGlobal(buffer))
                slotOf(buffer).bound = false;
        m_inKernel = wasInKernel;
        m_blockIndex = outerBlock;
    }

    // ------------------------------------------------------------------------------------------------
    // Kernels with a grid barrier (T.sync_grid)
    //
    // Blocks depend on each other: whatever any block does before a barrier must be done before any block
    // goes past it. The blocks run in lockstep over the statements that hold a barrier (the kernel body,
    // the serial loops and branches around it) and one after another over the statements between
    // barriers, each with its own BlockState: on-chip buffers, vars and block index, kept across phases.
    // A loop or branch around a barrier must take the same path in every block (on the GPU the grid would
    // deadlock otherwise): its bounds or condition are evaluated in every block and compared. Every block
    // runs, never a sample.

    struct BlockState {
        std::vector<int64_t> index;    // blockIdx (x, y, z)
        std::vector<BufferSlot> slots; // the kernel's non-global allocations, in allocation order
        std::vector<int64_t> varValues;
        std::vector<char> varBound;
    };

    // Makes `block` the current block (or, called again, puts it back): the two swap their state.
    void switchTo(BlockState& block, const Stmt& kernel) {
        size_t k = 0;
        for (const Buffer* buffer : kernel.allocations)
            if (!isGlobal(buffer))
                std::swap(slotOf(buffer), block.slots[k++]);
        std::swap(m_varValues, block.varValues);
        std::swap(m_varBound, block.varBound);
        std::swap(m_blockIndex, block.index);
    }

    void execKernelInPhases(const Stmt& s) {
        std::vector<int64_t> grid;
        for (const ExprPtr& extent : s.grid)
            grid.push_back(evalInt(extent));
        if (grid.size() != s.blockVars.size() || grid.size() > 3)
            fail("execution-malformed-ir", blame(s.range), "kernel with mismatched grid and block vars",
                 "this is an elaborator bug");
        int64_t blocks = 1;
        for (int64_t extent : grid)
            blocks = extent <= 0 ? 0 : blocks * extent;
        addSteps(blocks, s.range); // before allocating: a huge grid stops at the step limit
        m_phaseStmts.clear();
        ir::walkStmts(s, [&](const Stmt& x, const std::vector<const Stmt*>&) {
            if (x.kind != StmtKind::Kernel && ir::containsGridSync(x))
                m_phaseStmts.insert(&x);
        });
        checkBlockStates(s, blocks);
        const bool wasInKernel = m_inKernel;
        const std::vector<int64_t> outerBlock = m_blockIndex;
        m_inKernel = true;
        std::vector<BlockState> states(static_cast<size_t>(blocks));
        for (int64_t b = 0; b < blocks; ++b) {
            BlockState& state = states[size_t(b)];
            state.index.assign(3, 0);
            state.slots.resize(s.allocations.size());
            state.varValues = m_varValues;
            state.varBound = m_varBound;
            switchTo(state, s);
            int64_t rest = b; // blockIdx.x varies fastest
            for (size_t d = 0; d < grid.size(); ++d) {
                m_blockIndex[d] = rest % grid[d];
                rest /= grid[d];
                setVar(s.blockVars[d], m_blockIndex[d]);
            }
            for (const Buffer* buffer : s.allocations)
                allocate(buffer, s.range);
            switchTo(state, s);
        }
        m_inPhases = true;
        execInLockstep(s.body.get(), s, states);
        m_inPhases = false;
        for (const Buffer* buffer : s.allocations)
            if (!isGlobal(buffer))
                slotOf(buffer).bound = false;
        m_inKernel = wasInKernel;
        m_blockIndex = outerBlock;
    }

    // Every block's on-chip buffers live at once: together they must stay within the buffer limit.
    void checkBlockStates(const Stmt& kernel, int64_t blocks) {
        int64_t perBlock = 0;
        for (const Buffer* buffer : kernel.allocations)
            if (!isGlobal(buffer))
                perBlock += std::max<int64_t>(elementCount(evalShape(buffer, buffer->range)), 1);
        if (blocks > 0 && perBlock > m_limits.maxBufferElements / blocks)
            fail("execution-limit", blame(kernel.range),
                 "the on-chip buffers of the " + std::to_string(blocks) +
                     " blocks, which a grid barrier keeps alive together, have more than " +
                     std::to_string(m_limits.maxBufferElements) + " elements",
                 "run the reference executor on a smaller grid or smaller tiles");
    }

    // Runs `stmt` in every block: whole, one block after another, when it holds no barrier.
    void execInLockstep(const Stmt* stmt, const Stmt& kernel, std::vector<BlockState>& states) {
        if (!stmt)
            return;
        if (!m_phaseStmts.count(stmt)) {
            for (BlockState& state : states) {
                switchTo(state, kernel);
                exec(stmt);
                switchTo(state, kernel);
            }
            return;
        }
        DepthGuard guard(*this, stmt->range);
        SourceRange saved = m_currentRange;
        if (stmt->range.valid)
            m_currentRange = stmt->range;
        addSteps(1, stmt->range);
        const Stmt& s = *stmt;
        switch (s.kind) {
        case StmtKind::Seq:
            for (const auto& child : s.stmts)
                execInLockstep(child.get(), kernel, states);
            break;
        case StmtKind::GridSync:
            break; // every block has run what precedes it
        case StmtKind::For: {
            const int64_t begin = agreedValue(s.min, s, kernel, states, "starts");
            const int64_t extent = agreedValue(s.extent, s, kernel, states, "runs");
            for (int64_t i = 0; i < extent; ++i) {
                addSteps(1, s.range);
                for (BlockState& state : states) {
                    switchTo(state, kernel);
                    setVar(s.loopVar, begin + i);
                    switchTo(state, kernel);
                }
                execInLockstep(s.body.get(), kernel, states);
            }
            break;
        }
        case StmtKind::IfThenElse:
            if (agreedValue(s.cond, s, kernel, states, "decides"))
                execInLockstep(s.body.get(), kernel, states);
            else
                execInLockstep(s.elseBody.get(), kernel, states);
            break;
        case StmtKind::WarpGroups:
            execInLockstep(s.body.get(), kernel, states);
            break;
        default:
            fail("execution-malformed-ir", blame(s.range), "a grid barrier inside a tile operation",
                 "this is an elaborator bug");
        }
        m_currentRange = saved;
    }

    // The value of a loop bound or condition around a grid barrier, which every block must agree on.
    int64_t agreedValue(const ExprPtr& expr, const Stmt& s, const Stmt& kernel,
                        std::vector<BlockState>& states, const char* verb) {
        std::optional<int64_t> first;
        std::vector<int64_t> firstBlock;
        for (BlockState& state : states) {
            switchTo(state, kernel);
            const int64_t value = expr->dtype == DType::Bool ? int64_t(evalBool(expr)) : evalInt(expr);
            switchTo(state, kernel);
            if (!first) {
                first = value;
                firstBlock = state.index;
            } else if (value != *first) {
                const bool isIf = s.kind == StmtKind::IfThenElse;
                auto what = [&](int64_t v) {
                    return isIf ? std::string(v ? "true" : "false") : std::to_string(v);
                };
                m_diags.error("grid-sync-divergent", blame(s.range),
                              std::string("blocks disagree on the ") + (isIf ? "branch" : "loop") +
                                  " around a grid barrier (T.sync_grid): block (" + joinInts(firstBlock) +
                                  ") " + verb + " " + what(*first) + ", block (" + joinInts(state.index) +
                                  ") " + verb + " " + what(value) +
                                  "; on the GPU the blocks would wait for each other forever",
                              "every block must reach the same T.sync_grid calls: make the loop bounds and "
                              "conditions around it the same in every block");
                throw StopExecution{};
            }
        }
        return first.value_or(0);
    }

    // The local arrays the kernel's TensorCoreIntrinEmitter methods use get one copy per thread.
    void findThreadLocals(const Stmt& kernel) {
        m_threadLocals.clear();
        m_blockThreads = ir::blockThreads(kernel);
        m_arrivingThreads = m_blockThreads;
        ir::walkStmts(kernel, [&](const Stmt& s, const std::vector<const Stmt*>&) {
            if (s.kind != StmtKind::MmaIntrinsic)
                return;
            for (const Region* r : {&s.a, &s.b, &s.c, &s.src, &s.dst})
                if (r->buffer && r->buffer->scope == MemoryScope::Local)
                    m_threadLocals.insert(r->buffer);
        });
    }

    ThreadArrays threadArrays(const Region& region, SourceRange range) {
        if (!region.buffer)
            fail("execution-malformed-ir", blame(range), "an emitter method without a buffer",
                 "this is an elaborator bug");
        BufferSlot& slot = boundSlot(region.buffer, range, true);
        if (slot.threadCopies != m_blockThreads)
            fail("execution-malformed-ir", blame(range),
                 "'" + region.buffer->name + "' has no copy per thread", "this is an executor bug");
        return {slot.data, elementCount(slot.shape), region.buffer->dtype};
    }

    // An element of a shared region's tile, relative to the region's start in its last `rank` dims.
    SharedElement sharedElement(const Region& region, size_t rank, SourceRange range) {
        EvaluatedRegion r = evalRegion(region, range);
        auto slot = r.slot;
        auto mins = r.mins;
        const Buffer* buffer = region.buffer;
        return [this, slot, mins, buffer, rank, range](const int64_t* index) -> double& {
            std::vector<int64_t> at(mins);
            for (size_t d = 0; d < rank && d < at.size(); ++d)
                at[at.size() - rank + d] += index[d];
            int64_t offset = linearOffset(*slot, at.data(), at.size());
            if (offset < 0)
                outOfBounds(buffer, *slot, at.data(), at.size(), range);
            return slot->data[offset];
        };
    }

    void execMmaIntrinsic(const Stmt& s) {
        const ir::MmaEmitter& e = s.mmaEmitter;
        const int64_t threads = m_blockThreads;
        addSteps(threads * e.warpRows() * e.warpCols() * 16, s.range);
        switch (s.mmaOp) {
        case ir::MmaIntrinsicOp::LdmatrixA:
        case ir::MmaIntrinsicOp::LdmatrixB: {
            const int64_t kStep = s.value ? evalInt(s.value) : 0;
            runLdmatrix(e, s.mmaOp == ir::MmaIntrinsicOp::LdmatrixA, kStep, threads, s.src.buffer->dtype,
                        sharedElement(s.src, 2, s.range), threadArrays(s.dst, s.range));
            return;
        }
        case ir::MmaIntrinsicOp::Mma:
            runMma(e, threads, threadArrays(s.a, s.range), threadArrays(s.b, s.range),
                   threadArrays(s.c, s.range));
            return;
        case ir::MmaIntrinsicOp::Stmatrix:
            runStmatrix(e, threads, threadArrays(s.src, s.range), s.dst.buffer->rank(), s.dst.buffer->dtype,
                        sharedElement(s.dst, s.dst.buffer->rank(), s.range));
            return;
        }
    }

    EvaluatedRegion evalRegion(const Region& region, SourceRange range, bool perThreadOk = false) {
        EvaluatedRegion out;
        if (!region.buffer)
            fail("execution-malformed-ir", blame(range), "tile op without a buffer",
                 "this is an elaborator bug");
        out.buffer = region.buffer;
        out.slot = &boundSlot(region.buffer, range, perThreadOk);
        size_t rank = out.slot->shape.size();
        if (region.mins.size() != rank || region.extents.size() != rank)
            fail("execution-malformed-ir", blame(range),
                 "region of '" + region.buffer->name + "' has " + std::to_string(region.mins.size()) +
                     " dims but the buffer has rank " + std::to_string(rank),
                 "this is an elaborator bug");
        for (size_t d = 0; d < rank; ++d) {
            out.mins.push_back(evalInt(region.mins[d]));
            out.extents.push_back(evalInt(region.extents[d]));
        }
        return out;
    }

    // The dims of a region whose extent is not 1: those that pair up between the two sides of a copy.
    static std::vector<size_t> nonUnitDims(const EvaluatedRegion& r) {
        std::vector<size_t> dims;
        for (size_t d = 0; d < r.extents.size(); ++d)
            if (r.extents[d] != 1)
                dims.push_back(d);
        return dims;
    }

    // Element count of a region, clamped just past the step limit so that absurd extents report
    // "execution-limit" instead of overflowing.
    int64_t regionCount(const EvaluatedRegion& r) const {
        const int64_t cap = m_limits.maxSteps + 1;
        int64_t count = 1;
        for (int64_t e : r.extents) {
            if (e <= 0)
                return 0;
            count = count > cap / e ? cap : count * e;
        }
        return count;
    }

    // Calls fn(srcOffset, dstOffset) for each element pair of two regions whose non-unit extents match in
    // order; an offset is -1 where a global side is out of bounds (a non-global side reports an error).
    template <typename Fn>
    void forEachPair(const Stmt& s, const EvaluatedRegion& src, const EvaluatedRegion& dst,
                     const char* opName, Fn&& fn) {
        std::vector<size_t> srcDims = nonUnitDims(src);
        std::vector<size_t> dstDims = nonUnitDims(dst);
        std::vector<int64_t> srcShape, dstShape;
        for (size_t d : srcDims)
            srcShape.push_back(src.extents[d]);
        for (size_t d : dstDims)
            dstShape.push_back(dst.extents[d]);
        if (srcShape != dstShape)
            fail("runtime-copy-extent-mismatch", blame(s.range),
                 std::string(opName) + " from " + src.buffer->name + " region [" + joinInts(src.extents) +
                     "] to " + dst.buffer->name + " region [" + joinInts(dst.extents) +
                     "]: the extents that are not 1 differ",
                 "make both regions the same size");
        int64_t count = regionCount(dst);
        addSteps(count, s.range);
        std::vector<int64_t> idx(srcShape.size(), 0);
        std::vector<int64_t> si(src.mins), di(dst.mins);
        for (int64_t n = 0; n < count; ++n) {
            for (size_t k = 0; k < idx.size(); ++k) {
                si[srcDims[k]] = src.mins[srcDims[k]] + idx[k];
                di[dstDims[k]] = dst.mins[dstDims[k]] + idx[k];
            }
            fn(guardedOffset(src, si, s.range), guardedOffset(dst, di, s.range));
            for (size_t k = idx.size(); k-- > 0;) { // row-major odometer
                if (++idx[k] < srcShape[k])
                    break;
                idx[k] = 0;
            }
        }
    }

    int64_t guardedOffset(const EvaluatedRegion& r, const std::vector<int64_t>& index, SourceRange range) {
        int64_t offset = linearOffset(*r.slot, index.data(), index.size());
        if (offset < 0 && !isGlobal(r.buffer))
            outOfBounds(r.buffer, *r.slot, index.data(), index.size(), range);
        return offset;
    }

    // Calls fn(offset) for each element of a region (offset -1 for out-of-bounds global elements).
    template <typename Fn>
    void forEachElement(const Stmt& s, const EvaluatedRegion& r, Fn&& fn) {
        int64_t count = regionCount(r);
        addSteps(count, s.range);
        std::vector<int64_t> idx(r.mins);
        for (int64_t n = 0; n < count; ++n) {
            fn(guardedOffset(r, idx, s.range));
            for (size_t k = idx.size(); k-- > 0;) {
                if (++idx[k] < r.mins[k] + r.extents[k])
                    break;
                idx[k] = r.mins[k];
            }
        }
    }

    void execCopy(const Stmt& s) {
        EvaluatedRegion src = evalRegion(s.src, s.range);
        EvaluatedRegion dst = evalRegion(s.dst, s.range);
        DType from = src.buffer->dtype, to = dst.buffer->dtype;
        double* srcData = src.slot->data;
        double* dstData = dst.slot->data;
        forEachPair(s, src, dst, "copy", [&](int64_t so, int64_t dof) {
            if (dof < 0)
                return;                                // guarded global store
            double value = so < 0 ? 0.0 : srcData[so]; // guarded global load reads 0
            dstData[dof] = convertValue(value, from, to);
        });
    }

    void execAtomicAdd(const Stmt& s) {
        EvaluatedRegion dst = evalRegion(s.dst, s.range);
        DType to = dst.buffer->dtype;
        double* dstData = dst.slot->data;
        auto add = [&](int64_t offset, double value, DType from) {
            if (offset < 0)
                return;
            double v = convertValue(value, from, to);
            if (ir::isFloat(to))
                dstData[offset] = roundToDType(dstData[offset] + v, to);
            else
                dstData[offset] = integerToStored(
                    wrapInteger(static_cast<int64_t>(static_cast<uint64_t>(storedToInteger(dstData[offset])) +
                                                     static_cast<uint64_t>(storedToInteger(v))),
                                to),
                    to);
        };
        if (s.value) {
            Value v = eval(s.value);
            double stored = toStored(v, s.value->dtype);
            forEachElement(s, dst, [&](int64_t offset) { add(offset, stored, s.value->dtype); });
            return;
        }
        EvaluatedRegion src = evalRegion(s.src, s.range);
        DType from = src.buffer->dtype;
        double* srcData = src.slot->data;
        forEachPair(s, src, dst, "atomic_add",
                    [&](int64_t so, int64_t dof) { add(dof, so < 0 ? 0.0 : srcData[so], from); });
    }

    void zeroFill(const Stmt& s) {
        EvaluatedRegion dst = evalRegion(s.dst, s.range);
        double* data = dst.slot->data;
        forEachElement(s, dst, [&](int64_t offset) {
            if (offset >= 0)
                data[offset] = 0.0;
        });
    }

    void execFill(const Stmt& s) {
        EvaluatedRegion dst = evalRegion(s.dst, s.range, true);
        double value = evalStored(s.value, dst.buffer->dtype);
        double* data = dst.slot->data;
        const int64_t copies = dst.slot->threadCopies, stride = elementCount(dst.slot->shape);
        forEachElement(s, dst, [&](int64_t offset) {
            for (int64_t t = 0; offset >= 0 && t < copies; ++t) // every thread fills its own copy
                data[t * stride + offset] = value;
        });
    }

    // A gemm operand: the last two dims of a region, with leading extents 1.
    struct Matrix {
        const double* base = nullptr; // element (0, 0)
        int64_t rows = 0, cols = 0;
        int64_t rowStride = 0, colStride = 0;
        double at(int64_t r, int64_t c) const { return base[r * rowStride + c * colStride]; }
    };

    Matrix gemmOperand(const Stmt& s, const Region& region, const char* role) {
        EvaluatedRegion r = evalRegion(region, s.range);
        size_t rank = r.extents.size();
        if (rank < 2)
            fail("runtime-gemm-shape-mismatch", blame(s.range),
                 std::string("gemm operand ") + role + " ('" + r.buffer->name + "') has rank " +
                     std::to_string(rank),
                 "gemm operands are 2-D tiles");
        for (size_t d = 0; d + 2 < rank; ++d)
            if (r.extents[d] != 1)
                fail("runtime-gemm-shape-mismatch", blame(s.range),
                     std::string("gemm operand ") + role + " region [" + joinInts(r.extents) +
                         "] has a leading extent that is not 1",
                     "slice the stage dim, e.g. A_s[stage, :, :]");
        std::vector<int64_t> last(r.mins);
        for (size_t d = rank - 2; d < rank; ++d) {
            if (r.extents[d] < 0)
                fail("runtime-gemm-shape-mismatch", blame(s.range), "negative gemm extent", "");
            last[d] = r.mins[d] + std::max<int64_t>(r.extents[d], 1) - 1;
        }
        // Both corners in bounds means the whole rectangle is.
        if (linearOffset(*r.slot, r.mins.data(), rank) < 0)
            outOfBounds(r.buffer, *r.slot, r.mins.data(), rank, s.range);
        if (linearOffset(*r.slot, last.data(), rank) < 0)
            outOfBounds(r.buffer, *r.slot, last.data(), rank, s.range);
        Matrix m;
        m.base = r.slot->data + linearOffset(*r.slot, r.mins.data(), rank);
        m.rows = r.extents[rank - 2];
        m.cols = r.extents[rank - 1];
        m.rowStride = r.slot->strides[rank - 2];
        m.colStride = r.slot->strides[rank - 1];
        return m;
    }

    void execGemm(const Stmt& s) {
        Matrix a = gemmOperand(s, s.a, "A");
        Matrix b = gemmOperand(s, s.b, "B");
        Matrix c = gemmOperand(s, s.c, "C");
        int64_t m = s.transposeA ? a.cols : a.rows;
        int64_t k = s.transposeA ? a.rows : a.cols;
        int64_t kb = s.transposeB ? b.cols : b.rows;
        int64_t n = s.transposeB ? b.rows : b.cols;
        if (k != kb || c.rows != m || c.cols != n)
            fail("runtime-gemm-shape-mismatch", blame(s.range),
                 "gemm of op(A) " + std::to_string(m) + "x" + std::to_string(k) + " and op(B) " +
                     std::to_string(kb) + "x" + std::to_string(n) + " into C " + std::to_string(c.rows) +
                     "x" + std::to_string(c.cols),
                 "C must be M x N for A M x K and B K x N (after transposes)");
        addSteps(m * n * std::max<int64_t>(k, 1), s.range);
        bool clear = s.clearAccum ? evalBool(s.clearAccum) : false;
        DType ta = s.a.buffer->dtype, tb = s.b.buffer->dtype, tc = s.c.buffer->dtype;
        double* cBase = const_cast<double*>(c.base);
        auto cAt = [&](int64_t i, int64_t j) -> double& { return cBase[i * c.rowStride + j * c.colStride]; };
        auto aAt = [&](int64_t i, int64_t kk) { return s.transposeA ? a.at(kk, i) : a.at(i, kk); };
        auto bAt = [&](int64_t kk, int64_t j) { return s.transposeB ? b.at(j, kk) : b.at(kk, j); };
        if (!ir::isFloat(ta) && !ir::isFloat(tb)) {
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    uint64_t acc = clear ? 0 : static_cast<uint64_t>(storedToInteger(cAt(i, j)));
                    for (int64_t kk = 0; kk < k; ++kk)
                        acc += static_cast<uint64_t>(storedToInteger(aAt(i, kk))) *
                               static_cast<uint64_t>(storedToInteger(bAt(kk, j)));
                    cAt(i, j) = convertValue(integerToStored(static_cast<int64_t>(acc), DType::Int64),
                                             DType::Int64, tc);
                }
            return;
        }
        if (ta == DType::Float64 || tb == DType::Float64) {
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    double acc = clear ? 0.0 : cAt(i, j);
                    for (int64_t kk = 0; kk < k; ++kk) {
                        double product = aAt(i, kk) * bAt(kk, j);
                        acc = acc + product;
                    }
                    cAt(i, j) = convertValue(acc, DType::Float64, tc);
                }
            return;
        }
        // Single precision, like the tensor cores' fp32 accumulators. Operands are packed contiguous first
        // so that the inner loop runs over j (each C element still sums its products in k order).
        std::vector<float> opA(static_cast<size_t>(m * k)), opB(static_cast<size_t>(k * n)),
            acc(static_cast<size_t>(n));
        for (int64_t i = 0; i < m; ++i)
            for (int64_t kk = 0; kk < k; ++kk)
                opA[i * k + kk] = static_cast<float>(aAt(i, kk));
        for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = 0; j < n; ++j)
                opB[kk * n + j] = static_cast<float>(bAt(kk, j));
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j)
                acc[j] = clear ? 0.0f : static_cast<float>(cAt(i, j));
            for (int64_t kk = 0; kk < k; ++kk) {
                float av = opA[i * k + kk];
                const float* brow = &opB[kk * n];
                for (int64_t j = 0; j < n; ++j) {
                    float product = av * brow[j];
                    acc[j] = acc[j] + product; // no fma: this file is built with -ffp-contract=off
                }
            }
            for (int64_t j = 0; j < n; ++j)
                cAt(i, j) = convertValue(static_cast<double>(acc[j]), DType::Float32, tc);
        }
    }

    void execReduce(const Stmt& s) {
        if (!s.srcBuffer || !s.dstBuffer)
            fail("execution-malformed-ir", blame(s.range), "reduce without buffers",
                 "this is an elaborator bug");
        BufferSlot& src = boundSlot(s.srcBuffer, s.range);
        BufferSlot& dst = boundSlot(s.dstBuffer, s.range);
        size_t rank = src.shape.size();
        if (s.dim < 0 || static_cast<size_t>(s.dim) >= rank)
            fail("runtime-reduce-shape-mismatch", blame(s.range),
                 "reduce dim " + std::to_string(s.dim) + " of '" + s.srcBuffer->name + "' with rank " +
                     std::to_string(rank),
                 "dim must index a dimension of the source");
        size_t dim = static_cast<size_t>(s.dim);
        std::vector<int64_t> removed(src.shape), kept(src.shape);
        removed.erase(removed.begin() + static_cast<ptrdiff_t>(dim));
        kept[dim] = 1;
        if (dst.shape != removed && dst.shape != kept)
            fail("runtime-reduce-shape-mismatch", blame(s.range),
                 "reduce of '" + s.srcBuffer->name + "' [" + joinInts(src.shape) + "] along dim " +
                     std::to_string(dim) + " into '" + s.dstBuffer->name + "' [" + joinInts(dst.shape) + "]",
                 "the destination's shape is the source's without the reduced dim");
        int64_t outer = 1, inner = 1, extent = src.shape[dim];
        for (size_t d = 0; d < dim; ++d)
            outer *= src.shape[d];
        for (size_t d = dim + 1; d < rank; ++d)
            inner *= src.shape[d];
        addSteps(outer * inner * std::max<int64_t>(extent, 1), s.range);
        DType from = s.srcBuffer->dtype, to = s.dstBuffer->dtype;
        bool integer = !ir::isFloat(from) && !ir::isFloat(to);
        ir::ReduceKind kind = s.reduceKind;
        bool bitwise =
            kind == ir::ReduceKind::BitAnd || kind == ir::ReduceKind::BitOr || kind == ir::ReduceKind::BitXor;
        if (bitwise && !integer)
            fail("execution-unsupported", blame(s.range),
                 std::string("reduce_") + ir::reduceKindName(kind) + " of float buffers",
                 "bitwise reductions need integer buffers");
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                const double* column = src.data + o * extent * inner + in;
                double& out = dst.data[o * inner + in];
                if (integer)
                    out = reduceIntegers(kind, column, extent, inner, s.clear, out, to);
                else
                    out = reduceFloats(kind, column, extent, inner, s.clear, out, to);
            }
    }

    static double reduceFloats(ir::ReduceKind kind, const double* column, int64_t extent, int64_t stride,
                               bool clear, double old, DType to) {
        const double inf = std::numeric_limits<double>::infinity();
        double acc = 0;
        switch (kind) {
        case ir::ReduceKind::Max:
            acc = -inf;
            for (int64_t i = 0; i < extent; ++i)
                acc = maxNumber(acc, column[i * stride]);
            if (!clear)
                acc = maxNumber(old, acc);
            break;
        case ir::ReduceKind::Min:
            acc = inf;
            for (int64_t i = 0; i < extent; ++i)
                acc = minNumber(acc, column[i * stride]);
            if (!clear)
                acc = minNumber(old, acc);
            break;
        case ir::ReduceKind::Sum:
            for (int64_t i = 0; i < extent; ++i)
                acc += column[i * stride];
            if (!clear)
                acc = old + acc;
            break;
        case ir::ReduceKind::AbsSum:
            for (int64_t i = 0; i < extent; ++i)
                acc += std::fabs(column[i * stride]);
            if (!clear)
                acc = old + acc;
            break;
        case ir::ReduceKind::AbsMax:
            for (int64_t i = 0; i < extent; ++i)
                acc = maxNumber(acc, std::fabs(column[i * stride]));
            if (!clear)
                acc = maxNumber(old, acc);
            break;
        case ir::ReduceKind::BitAnd:
        case ir::ReduceKind::BitOr:
        case ir::ReduceKind::BitXor:
            break; // rejected before
        }
        return convertValue(acc, DType::Float64, to);
    }

    static double reduceIntegers(ir::ReduceKind kind, const double* column, int64_t extent, int64_t stride,
                                 bool clear, double oldStored, DType to) {
        int64_t old = storedToInteger(oldStored);
        uint64_t acc = 0;
        auto value = [&](int64_t i) { return storedToInteger(column[i * stride]); };
        switch (kind) {
        case ir::ReduceKind::Max: {
            int64_t r = std::numeric_limits<int64_t>::min();
            for (int64_t i = 0; i < extent; ++i)
                r = std::max(r, value(i));
            acc = static_cast<uint64_t>(clear ? r : std::max(old, r));
            break;
        }
        case ir::ReduceKind::Min: {
            int64_t r = std::numeric_limits<int64_t>::max();
            for (int64_t i = 0; i < extent; ++i)
                r = std::min(r, value(i));
            acc = static_cast<uint64_t>(clear ? r : std::min(old, r));
            break;
        }
        case ir::ReduceKind::Sum:
        case ir::ReduceKind::AbsSum:
            for (int64_t i = 0; i < extent; ++i) {
                int64_t v = value(i);
                acc += static_cast<uint64_t>(kind == ir::ReduceKind::AbsSum && v < 0 ? -v : v);
            }
            if (!clear)
                acc += static_cast<uint64_t>(old);
            break;
        case ir::ReduceKind::AbsMax: {
            int64_t r = 0;
            for (int64_t i = 0; i < extent; ++i)
                r = std::max(r, std::abs(value(i)));
            acc = static_cast<uint64_t>(clear ? r : std::max(old, r));
            break;
        }
        case ir::ReduceKind::BitAnd:
            acc = ~0ull;
            for (int64_t i = 0; i < extent; ++i)
                acc &= static_cast<uint64_t>(value(i));
            if (!clear)
                acc &= static_cast<uint64_t>(old);
            break;
        case ir::ReduceKind::BitOr:
            for (int64_t i = 0; i < extent; ++i)
                acc |= static_cast<uint64_t>(value(i));
            if (!clear)
                acc |= static_cast<uint64_t>(old);
            break;
        case ir::ReduceKind::BitXor:
            for (int64_t i = 0; i < extent; ++i)
                acc ^= static_cast<uint64_t>(value(i));
            if (!clear)
                acc ^= static_cast<uint64_t>(old);
            break;
        }
        return integerToStored(wrapInteger(static_cast<int64_t>(acc), to), to);
    }

    void execPrint(const Stmt& s) {
        std::string line = "block (" + joinInts(m_blockIndex) + "): ";
        if (!s.message.empty())
            line += s.message + ": ";
        if (s.printBuffer) {
            const BufferSlot& slot = boundSlot(s.printBuffer, s.range);
            int64_t count = elementCount(slot.shape);
            line += s.printBuffer->name + "[" + joinInts(slot.shape) + "] = [";
            const int64_t shown = std::min<int64_t>(count, 1024);
            for (int64_t i = 0; i < shown; ++i) {
                if (i)
                    line += ", ";
                line += formatNumber(slot.data[i], s.printBuffer->dtype);
            }
            if (shown < count)
                line += ", ...";
            line += "]";
        } else if (s.value) {
            Value v = eval(s.value);
            line +=
                ir::printExpr(s.value) + " = " + formatNumber(toStored(v, s.value->dtype), s.value->dtype);
        }
        if (m_log)
            m_log->prints.push_back(std::move(line));
    }

    DiagnosticEngine& m_diags;
    const ExecutionLimits& m_limits;
    const std::map<std::string, int64_t>& m_dynamicDims;
    ExecutionLog* m_log;

    std::vector<int64_t> m_varValues;
    std::vector<char> m_varBound;
    std::deque<BufferSlot> m_slots; // a deque: growing it keeps slot references valid
    std::vector<std::pair<BufferSlot*, HostTensor*>> m_boundParams;
    std::vector<int64_t> m_blockIndex{0, 0, 0};
    bool m_inKernel = false;
    bool m_inPhases = false;                // running a kernel with a grid barrier
    std::set<const Stmt*> m_phaseStmts;     // its statements that hold a grid barrier
    std::set<const Buffer*> m_threadLocals; // the kernel's per-thread emitter locals
    int64_t m_blockThreads = 1;
    int64_t m_steps = 0;
    int m_depth = 0;
    SourceRange m_currentRange;
    // mbarriers and T.ws scopes: the threads an arrive stands for (the scope's, or the block's), whether a
    // scope is running, and the concurrent scopes running now (null outside them) with this one's index.
    int64_t m_arrivingThreads = 1;
    bool m_inWarpGroup = false;
    CooperativeScopes* m_scopes = nullptr;
    size_t m_scopeIndex = 0;
    std::vector<ScopeWait>* m_scopeWaits = nullptr; // what each concurrent scope waits for, when it waits
    std::unordered_map<const Stmt*, size_t> m_concurrentRuns; // ir::concurrentWarpGroupRun, by first scope
};

} // namespace

double uninitializedValue(ir::DType type) {
    using ir::DType;
    switch (type) {
    case DType::Float8E4M3:
    case DType::Float8E5M2:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
        return std::numeric_limits<double>::quiet_NaN();
    case DType::Bool:
        return 0;
    case DType::Int8:
        return -128.0;
    case DType::Int16:
        return -32768.0;
    case DType::Int32:
        return -2147483648.0;
    case DType::Int64:
        return -9223372036854775808.0;
    case DType::UInt8:
        return 255.0;
    case DType::UInt16:
        return 65535.0;
    case DType::UInt32:
        return 4294967295.0;
    case DType::UInt64:
        return integerToStored(-1, DType::UInt64);
    }
    return 0;
}

bool executePrimFunc(const ir::Module& module, const ir::PrimFunc& func, std::vector<HostTensor>& params,
                     const std::map<std::string, int64_t>& dynamicDims, DiagnosticEngine& diags,
                     const ExecutionLimits& limits, ExecutionLog* log) {
    Interpreter interpreter(diags, limits, dynamicDims, log);
    interpreter.reserve(module.vars().size(), module.buffers().size());
    bool ok = true;
    try {
        for (const Var* dim : func.dynamicDims)
            if (!dynamicDims.count(dim->name))
                diags.error(
                    "execution-missing-dynamic-dim", dim->range,
                    "no value for dynamic dim '" + dim->name + "'",
                    "give every T.dynamic/T.symbolic dim a value before running the reference executor");
        for (const Var* dim : func.dynamicDims)
            if (!dynamicDims.count(dim->name))
                throw StopExecution{};
        interpreter.bindParams(func, params);
        interpreter.allocateWorkspaces(func);
        interpreter.run(func.body.get());
    } catch (const StopExecution&) {
        ok = false;
    }
    interpreter.writeBackParams(); // what a failed run wrote too, as on the GPU
    if (log)
        log->steps = interpreter.steps();
    return ok;
}

std::vector<HostTensor> allocateParams(const ir::PrimFunc& func,
                                       const std::map<std::string, int64_t>& dynamicDims, uint64_t seed,
                                       DiagnosticEngine& diags, const ExecutionLimits& limits,
                                       bool fillInputs, const InputFills& fills) {
    for (const auto& [name, fill] : fills) {
        auto named = std::find_if(func.params.begin(), func.params.end(),
                                  [&](const Buffer* b) { return b->name == name && !b->isOutput; });
        if (named == func.params.end()) {
            std::string inputs;
            for (const Buffer* b : func.params)
                if (!b->isOutput)
                    inputs += (inputs.empty() ? "" : ", ") + b->name;
            diags.error("fill-unknown-input", func.range,
                        "--fill names '" + name + "', which is not an input of " + func.name,
                        "the inputs are: " + inputs);
            return {};
        }
    }
    Interpreter interpreter(diags, limits, dynamicDims, nullptr);
    std::vector<HostTensor> tensors;
    try {
        for (const Buffer* buffer : func.params) {
            HostTensor tensor(buffer->name, buffer->dtype, interpreter.evalShape(buffer, buffer->range));
            auto fill = fills.find(buffer->name);
            std::string why;
            if (fill != fills.end() && !buffer->isOutput) {
                if (!applyInputFill(tensor, fill->second, seed, dynamicDims, why)) {
                    diags.error("fill-invalid", buffer->range,
                                "cannot fill '" + buffer->name + "' with " + fill->second.text + ": " + why);
                    return {};
                }
            } else if (!buffer->isOutput && fillInputs) {
                fillRandom(tensor, seed);
            }
            tensors.push_back(std::move(tensor));
        }
    } catch (const StopExecution&) {
        return {};
    }
    return tensors;
}

std::vector<int64_t> sampledBlocks(int64_t blocks, int64_t samples) {
    std::vector<int64_t> out;
    if (samples <= 0 || samples >= blocks) {
        for (int64_t b = 0; b < blocks; ++b)
            out.push_back(b);
        return out;
    }
    for (int64_t i = 0; i < samples; ++i)
        out.push_back(samples == 1 ? 0 : i * (blocks - 1) / (samples - 1));
    return out;
}

} // namespace tb
