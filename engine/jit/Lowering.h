// Internal to engine/jit: the lowering of one PrimFunc's kernels from Tile IR to LLVM IR. One Lowerer
// emits one function per T.Kernel,
//
//   void tb_kernel_N(void** buffers, int64_t blockBegin, int64_t blockEnd, JitError* error)
//
// that runs the blocks [blockBegin, blockEnd) (linear, blockIdx.x fastest) one after another, exactly as
// the interpreter runs each block's tile-level code; the caller spreads block ranges over threads.
//
// Values mirror the interpreter's: a scalar of a float dtype is an LLVM double holding a value exactly
// representable in its dtype (rounded after every operation), a scalar of an integer dtype or bool an
// i64 already wrapped to its dtype. Global buffers are HostTensor storage, read and written in place at their
// dtype's width (TensorStorage: float16 as half bits, integers in two's complement, ...). Everything the
// interpreter learns at run time that cannot change within an execution (shapes, dynamic dims, grid extents,
// tile extents) is a constant here. On-chip buffers of a float dtype of at most 32 bits are stored as floats
// (every value they hold is exact in float32, so this changes no value and halves what tile loops move). A
// construct the lowering does not handle throws Unsupported (caught in JitProgram.cpp: the program then runs
// on the interpreter); a runtime error (out of bounds, division by zero) stores the index of its ErrorSite
// and the block into *error and returns.
#pragma once

#include "engine/exec/Executor.h"
#include "engine/ir/Module.h"
#include "engine/jit/IndexRanges.h"

#include <cstdint>
#include <functional>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::jit {

// Thrown while lowering when the program uses something the JIT does not lower; never leaves engine/jit.
struct Unsupported {
    std::string reason;
};

// What a kernel writes when a block fails; code 0 means no error, otherwise ErrorSite index + 1.
struct JitError {
    int64_t code = 0;
    int64_t block = 0;
};

struct ErrorSite {
    std::string code; // diagnostic code, as the interpreter reports it
    SourceRange range;
    std::string message;
    std::string hint;
};

// One phase of a kernel with grid barriers (T.sync_grid at the top level of its body): the statements
// between two barriers, lowered as a kernel function of its own. The caller runs every block of one phase
// before any block of the next; each block's on-chip buffers persist from phase to phase in a state array
// (blocks x blockStateElements doubles, the last entry of the buffer table), copied into the block's stack
// arrays at the start of a phase and back at its end.
struct KernelPhase {
    const ir::Stmt* body = nullptr; // null: the whole kernel body (a kernel without grid barriers)
    int index = 0;
    int count = 1;
};

// Compile-time facts of one buffer.
struct BufferShape {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    int64_t count = 0;
};

// What the lowering of a PrimFunc needs and produces besides LLVM IR.
struct LoweringContext {
    const ir::Module* module = nullptr;
    const ir::PrimFunc* func = nullptr;
    std::map<std::string, int64_t> dims;
    ExecutionLimits limits;
    std::vector<const ir::Buffer*> globals; // kernel argument order: parameters, then alloc_global workspaces
    std::vector<ErrorSite> sites;           // filled while lowering
    std::string namePrefix;                 // of the kernel functions (programs compiled together)
};

struct GemmOperands; // GemmReduceLowering.cpp

// Whether the host CPU converts between half and float in hardware (F16C). The JIT compiles for the host,
// and the lowering then converts halves with one exact instruction instead of integer operations, which
// cost the code generator several times the instructions to select.
bool hostConvertsHalves();

class Lowerer {
public:
    Lowerer(llvm::LLVMContext& context, llvm::Module& module, LoweringContext& lowering);

    // The function tb_kernel_<index> for one Kernel statement. `sequential` is set when its blocks must
    // run in order (they combine results through atomic adds).
    llvm::Function* lowerKernel(const ir::Stmt& kernel, const std::string& suffix, bool& sequential,
                                const KernelPhase& phase = {});
    // The doubles one block's on-chip buffers take (the state a phased kernel keeps per block).
    int64_t blockStateElements(const ir::Stmt& kernel);

    // The evaluated shape of a buffer (throws Unsupported when it is not constant or too large).
    const BufferShape& shapeOf(const ir::Buffer* buffer);
    // The value of an integer expression that must be a compile-time constant here, if it is one.
    std::optional<int64_t> constantValue(const ir::ExprPtr& expr) const;

private:
    // ---- scalar expressions (ScalarLowering.cpp)
    llvm::Value* eval(const ir::ExprPtr& expr);
    llvm::Value* evalInt(const ir::ExprPtr& expr);                    // i64, like Interpreter::evalInt
    llvm::Value* evalBool(const ir::ExprPtr& expr);                   // i1
    llvm::Value* evalStored(const ir::ExprPtr& expr, ir::DType type); // double
    llvm::Value* evalBinary(const ir::Expr& e);
    llvm::Value* floatBinary(const ir::Expr& e, llvm::Value* a, llvm::Value* b);
    llvm::Value* intBinary(const ir::Expr& e, llvm::Value* a, llvm::Value* b, bool isUnsigned64, int bits);
    llvm::Value* evalCall(const ir::Expr& e);
    llvm::Value* evalLazy(const ir::ExprPtr& cond, const std::function<llvm::Value*()>& whenTrue,
                          const std::function<llvm::Value*()>& whenFalse);
    llvm::Value* loadElement(const ir::Expr& e);

    // ---- numerics, mirroring engine/exec/HostTensor.cpp (ScalarLowering.cpp)
    llvm::Value* roundToDType(llvm::Value* x, ir::DType type);
    llvm::Value* roundToNarrowFloat(llvm::Value* x, ir::DType type);
    llvm::Value* wrapInteger(llvm::Value* i, ir::DType type);
    llvm::Value* storedToInteger(llvm::Value* x);
    llvm::Value* integerToStored(llvm::Value* i, ir::DType type);
    llvm::Value* convertStored(llvm::Value* x, ir::DType from, ir::DType to); // convertValue
    llvm::Value* toStored(llvm::Value* v, ir::DType type);
    llvm::Value* fromStored(llvm::Value* x, ir::DType type);
    llvm::Value* castValue(llvm::Value* v, ir::DType from, ir::DType to);
    llvm::Value* makeIntValue(llvm::Value* i, ir::DType type);
    llvm::Value* makeFloatValue(llvm::Value* x, ir::DType type);
    llvm::Value* truthy(llvm::Value* v, ir::DType type);   // i1
    llvm::Value* floatMin(llvm::Value* a, llvm::Value* b); // std::fmin, NaN operands ignored
    llvm::Value* floatMax(llvm::Value* a, llvm::Value* b);
    void fenceBesideZero(llvm::Value*& a, llvm::Value*& b);
    llvm::Value* callRuntime(const char* name, llvm::Type* result, std::vector<llvm::Value*> args);
    void fenceAgainstSignedZeroFold(llvm::Value*& arm, llvm::BasicBlock* armEnd, llvm::Value* otherArm);
    llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);

    // ---- statements and kernels (KernelLowering.cpp)
    void lowerStmt(const ir::Stmt* stmt);
    void lowerFor(const ir::Stmt& s);
    void lowerIf(const ir::Stmt& s);
    void lowerStore(const ir::Stmt& s);
    void fillFresh(const ir::Buffer* buffer);
    // A phased kernel's block state: `restore` copies it into the buffers' stack arrays, else it saves them.
    void copyBlockState(const std::vector<const ir::Buffer*>& buffers, llvm::Value* blockState, bool restore);
    // A counted loop: body(i) for i in [0, count), count an i64 value.
    void emitLoop(llvm::Value* count, const std::function<void(llvm::Value*)>& body);
    // Branches to a failure exit that reports `site` when `failed` (i1) is true.
    void failIf(llvm::Value* failed, int site);
    int addSite(std::string code, SourceRange range, std::string message, std::string hint);
    SourceRange blame(SourceRange preferred) const;
    // Element pointer for buffer[indices], bounds-checked unless the ranges prove it in bounds.
    llvm::Value* elementPointer(const ir::Buffer* buffer, const std::vector<ir::ExprPtr>& indices,
                                SourceRange range, llvm::Value** pendingCheck);
    llvm::Value* bufferBase(const ir::Buffer* buffer, SourceRange range);
    // How a buffer's elements are stored: a global buffer at its dtype's width (TensorStorage), an on-chip
    // one as float for a float dtype of at most 32 bits and as double otherwise. Loads give and stores
    // take the double a scalar is.
    llvm::Type* storageType(const ir::Buffer* buffer) const;
    llvm::Value* elementAt(const ir::Buffer* buffer, llvm::Value* base, llvm::Value* offset);
    llvm::Value* loadStored(const ir::Buffer* buffer, llvm::Value* ptr);
    void storeStored(const ir::Buffer* buffer, llvm::Value* stored, llvm::Value* ptr);
    llvm::Value* halfToDouble(llvm::Value* bits);      // i16 half bits -> double, exact
    llvm::Value* doubleToHalf(llvm::Value* stored);    // a double that is a half -> its i16 bits
    llvm::GlobalVariable* float8Table(ir::DType type); // [256 x double]: the value of every byte
    // Decides storageType for the kernel's allocations.
    void chooseStorage(const ir::Stmt& kernel);
    llvm::Value* i64(int64_t value);
    llvm::Value* f64(double value);

    // ---- tile operations (TileOpLowering.cpp)
    struct Rect { // a region with runtime mins and constant extents
        const ir::Buffer* buffer = nullptr;
        std::vector<llvm::Value*> mins;
        std::vector<std::optional<IndexRange>> minRanges;
        std::vector<int64_t> extents;
    };
    Rect evalRect(const ir::Region& region, SourceRange range);
    bool provenInside(const Rect& r, size_t dim);
    std::pair<llvm::Value*, llvm::Value*> insideRange(llvm::Value* min, int64_t extent, int64_t tensorExtent);
    llvm::Value* rectInside(const Rect& r, const std::vector<size_t>& dims); // i1, runtime check
    void checkRectInside(const Rect& r, const ir::Stmt& s);
    void lowerCopyLike(const ir::Stmt& s, bool atomic);
    void lowerFill(const ir::Stmt& s);
    void lowerAtomicValue(const ir::Stmt& s);
    void atomicAccumulate(const ir::Buffer* buffer, llvm::Value* ptr, llvm::Value* stored, ir::DType from,
                          ir::DType to);
    void lowerGemm(const ir::Stmt& s);
    void lowerExactGemm(const GemmOperands& g);  // integer or float64 operands
    void lowerSingleGemm(const GemmOperands& g); // float32 accumulation: a call of FloatGemm.h
    void lowerReduce(const ir::Stmt& s);
    llvm::Value* linearOffset(const Rect& r, const std::vector<llvm::Value*>& index);

    llvm::LLVMContext& m_context;
    llvm::Module& m_module;
    LoweringContext& m_lowering;
    llvm::IRBuilder<> m_b;
    llvm::Type* m_f64 = nullptr;
    llvm::Type* m_f32 = nullptr;
    llvm::Type* m_i64 = nullptr;
    llvm::Type* m_i1 = nullptr;
    llvm::Type* m_ptr = nullptr;

    // Per kernel.
    llvm::Function* m_function = nullptr;
    llvm::Value* m_errorOut = nullptr;
    llvm::Value* m_blockLinear = nullptr;
    llvm::BasicBlock* m_allocaBlock = nullptr;
    std::vector<llvm::Value*> m_bases;   // by Buffer::id
    std::vector<bool> m_floatStored;     // by Buffer::id: stored as float (storageType)
    std::vector<llvm::Value*> m_vars;    // by Var::id: current i64 value
    std::map<int, BufferShape> m_shapes; // by Buffer::id
    RangeScope m_ranges;
    SourceRange m_currentRange;
    bool m_sequential = false;
    llvm::GlobalVariable* m_zero = nullptr;            // what a guarded global read loads
    llvm::GlobalVariable* m_float8E4M3Table = nullptr; // float8Table
    llvm::GlobalVariable* m_float8E5M2Table = nullptr;
};

} // namespace tb::jit
