// The elaborator's Python interpreter (private to engine/elaborate). One class runs three kinds of code
// with the same evaluator:
//   - host code (module level, main()): lenient; unknown names and failures become Opaque values and no
//     diagnostics, because only the first call of the jit function matters there;
//   - compile-time code (the jit function body, helpers, asserts): strict Python semantics, diagnostics;
//   - kernel code (a traced @T.prim_func, eager jit body, @T.macro bodies): the same evaluator, but tile
//     calls emit IR statements into the innermost open statement list and run-time values are ir::Expr.
// Interpreter.cpp holds scopes, statements and calls; Operators.cpp the arithmetic; Builtins.cpp argument
// binding and module attributes; TileBuffers.cpp and TileLoops.cpp buffers, element access, kernel scopes
// and tile loops; the primitives (TileLang's kernel calls, Python builtins, host libraries) are one handler
// each in the family files listed in Primitives.h; Elaborator.cpp is the driver.
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/elaborate/Value.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tb::elab {

// A Python scope: a function call's locals (parent = the defining scope) or the module globals.
struct Env {
    std::unordered_map<std::string, Value> vars;
    Env* parent = nullptr;
    std::set<std::string> globalNames;
    bool captured = false; // a closure refers to this scope, so it must outlive its call
};

enum class Flow { Normal, Break, Continue, Return, Halt };

struct CallArgs {
    std::vector<Value> positional;
    std::vector<SourceRange> positionalRanges;
    std::vector<std::pair<std::string, Value>> keywords;
    std::vector<SourceRange> keywordRanges;     // each keyword's value
    std::vector<SourceRange> keywordNameRanges; // each keyword as written, name=value
    SourceRange range;                          // the whole call
    SourceRange keywordName(size_t k) const {
        return k < keywordNameRanges.size() ? keywordNameRanges[k] : range;
    }
};

// Arguments of a builtin bound to its signature: one slot per named parameter, plus *varargs.
struct BoundArgs {
    std::vector<Value> values;
    std::vector<bool> given;
    std::vector<SourceRange> ranges;
    std::vector<Value> varargs;
    std::vector<SourceRange> varargRanges;
    SourceRange range;
    const Value& operator[](size_t k) const { return values[k]; }
    SourceRange at(size_t k) const { return given[k] && ranges[k].valid ? ranges[k] : range; }
};

// The first call of the jit function (or prim_func) found in host code.
struct RecordedCall {
    std::shared_ptr<FunctionData> fn;
    CallArgs args;
    bool viaCompile = false; // f.compile(M=...)
};

// State of one traced PrimFunc: the open statement lists and kernel frames.
// The threads of a `with T.ws(...)` scope (TileSynchronization.cpp); empty groups after a reported error.
struct WarpGroupScope {
    std::vector<int64_t> groups;
    int64_t firstThread = 0;
    int64_t threadCount = 0;
};

struct KernelFrame {
    std::vector<const ir::Buffer*> allocations;
    std::vector<const ir::Var*> threadVars;
    int64_t threadCount = 0;
    bool inWarpGroups = false; // inside a T.ws scope
};

struct TraceState {
    std::vector<std::vector<ir::StmtPtr>> emit;
    std::vector<KernelFrame> kernels;
    std::vector<const ir::Buffer*> workspaces; // T.alloc_global, in or outside a kernel: PrimFunc::workspaces
    std::set<std::string> usedNames;
    // Eager mode: tensors declared by annotations and T.empty outputs.
    bool eager = false;
    std::vector<std::string> eagerParamNames;
    std::vector<std::pair<int, ir::Buffer*>> eagerParams; // (position in the def, buffer)
    std::vector<ir::Buffer*> eagerOutputs;
};

class Interpreter {
public:
    Interpreter(const SourceManager& sources, DiagnosticEngine& diagnostics, ir::Module& out, FileId file);
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    // The whole job (Elaborator.cpp). Returns false when elaboration could not produce a PrimFunc.
    bool elaborateModule(const ast::Module& module, const ElaborateOptions& options);

    // --- diagnostics --------------------------------------------------------------------------
    // Reports an error (silently in host code) and returns the value that stands for it: Poison, or
    // Opaque in host code so that host failures never look like reported errors.
    Value error(const std::string& code, SourceRange range, const std::string& message,
                const std::string& hint = {});
    bool quiet() const { return m_quiet > 0; }
    std::string sourceText(SourceRange range) const;

    // --- evaluation (Interpreter.cpp) ---------------------------------------------------------
    Value eval(const ast::Expr& e);
    Flow exec(const ast::Stmt& s);
    Flow execBlock(const std::vector<ast::StmtPtr>& body);
    Value call(const Value& callee, CallArgs& args, SourceRange range);
    Value callFunction(const std::shared_ptr<FunctionData>& fn, CallArgs& args, SourceRange range);
    Value lookup(const std::string& name, SourceRange range);
    void assign(const ast::Expr& target, const Value& value, SourceRange valueRange);
    void bindName(const std::string& name, const Value& value);
    Value attribute(const Value& base, const std::string& attr, SourceRange range, SourceRange baseRange);
    Value subscript(const Value& base, const Value& index, SourceRange range);
    Value classAttribute(const Value& cls, const std::string& attr);              // HostClasses.cpp
    std::optional<std::vector<Value>> iterate(const Value& v, SourceRange range); // compile-time iteration
    Env* newEnv(Env* parent);
    std::shared_ptr<FunctionData> makeFunction(const ast::Stmt* def, const ast::Expr* lambda);
    bool step(SourceRange range); // counts one interpreter step; false once the cap is hit

    // --- operators (Operators.cpp) ------------------------------------------------------------
    Value binary(ast::BinOpKind op, const Value& a, const Value& b, SourceRange range);
    Value compare(ast::CompareKind op, const Value& a, const Value& b, SourceRange range);
    Value unary(ast::UnaryOpKind op, const Value& a, SourceRange range);
    // Truth of a compile-time value; nullopt for a symbolic value. `known` false: inert value.
    std::optional<bool> truth(const Value& v, bool* inert = nullptr);
    // A scalar kernel expression from a value (int literals become int32), or null after a diagnostic.
    ir::ExprPtr toExpr(const Value& v, SourceRange range, const char* what = "value");
    // Brings two operands to one dtype (TVM-style promotion; literals adopt the other side's dtype).
    bool promote(const Value& a, const Value& b, ir::ExprPtr& x, ir::ExprPtr& y, SourceRange range);
    ir::ExprPtr castTo(ir::ExprPtr e, ir::DType t);
    Value symbolicBinary(ir::BinaryOp op, const Value& a, const Value& b, SourceRange range);

    // --- builtins (Builtins.cpp; the primitive tables in PrimitiveTable.cpp) -----------------------
    Value callBuiltin(const Value& fn, CallArgs& args, SourceRange range);
    Value namespaceAttr(const std::string& path, const std::string& attr, SourceRange range,
                        const std::string& shownBase);
    bool bind(const char* signature, const CallArgs& args, BoundArgs& out);
    std::optional<int64_t> constInt(const Value& v, SourceRange range, const char* what, bool report = true);
    // The kernel's dynamic dim of that name (T.dynamic, a data-dependent jit parameter), made on first use.
    Value dynamicDimNamed(const std::string& name, ir::DType type, SourceRange range);
    std::optional<ir::DType> toDType(const Value& v, SourceRange range, bool report = true);
    Value callTileOp(const std::string& name, CallArgs& args, SourceRange range, bool& handled);
    Value callHostBuiltin(const std::string& name, const Value* self, CallArgs& args, SourceRange range,
                          bool& handled);

    // --- kernel code (TileLoops.cpp, TileBuffers.cpp) ------------------------------------------
    bool tracing() const { return m_trace != nullptr; }
    bool inKernel() const { return m_trace && !m_trace->kernels.empty(); }
    void emit(ir::StmtPtr s);
    bool requireKernel(const std::string& what, SourceRange range);
    std::string uniqueName(const std::string& base);
    Flow execWith(const ast::Stmt& s);
    // A T.ws(...) value as the scope it opens; nullopt for any other value.
    std::optional<WarpGroupScope> warpGroupScope(const Value& v, SourceRange range);
    Flow execWarpGroups(const ast::Stmt& s, const WarpGroupScope& scope);
    Flow execWarpGroups(const std::vector<ast::StmtPtr>& statements, SourceRange range,
                        const WarpGroupScope& scope);
    // `if tx < 128: ... else: ...` over T.get_thread_binding(): the branches as T.ws scopes.
    bool execThreadRangeIf(const ast::Stmt& s, const ir::ExprPtr& cond, Flow& flow);
    // One branch of an if/elif chain over the threads [lo, hi) that the branches before it left.
    bool execThreadRangeBranch(const ast::Stmt& s, const ir::ExprPtr& cond, int64_t lo, int64_t hi,
                               Flow& flow);
    Flow execKernelFor(const ast::Stmt& s, const Value& iter);
    void storeElement(const Value& base, const Value& index, const Value& value, SourceRange range);
    Value loadElement(ir::Buffer* buffer, const std::vector<Value>& indices, SourceRange range);
    Value bufferSubscript(ir::Buffer* buffer, const Value& index, SourceRange range);
    bool checkIndex(const ir::Buffer* buffer, size_t dim, const ir::ExprPtr& index, SourceRange range);
    Value makeTensorParam(const Value& type, const std::string& name, SourceRange range);
    Value allocate(ir::MemoryScope scope, const Value& shape, const Value& dtype, SourceRange range,
                   SourceRange shapeRange);
    std::optional<std::vector<ir::ExprPtr>> shapeOf(const Value& shape, SourceRange range,
                                                    bool allowSymbolic);

    // --- driver (Elaborator.cpp) ----------------------------------------------------------------
    std::optional<ir::PrimFunc> tracePrimFunc(const std::shared_ptr<FunctionData>& fn, const Value* outIdx);
    std::optional<ir::PrimFunc> traceEager(const std::shared_ptr<FunctionData>& fn, Env* env);
    Value constDims(const std::string& spec, SourceRange range); // T.const("M, N, K")

    // --- public state used across the files -------------------------------------------------
    const SourceManager& m_sources;
    DiagnosticEngine& m_diagnostics;
    ir::Module& m_out;
    FileId m_file;
    Env* m_globals = nullptr;
    Env* m_env = nullptr;
    int m_quiet = 0;
    bool m_hostMode = false;
    bool m_halt = false;    // host code: the first jit call was seen; stop running host code
    bool m_aborted = false; // the step cap was hit; unwind everything
    // Where host code hit the step or recursion limit (quietly: host code is lenient), for the diagnostic
    // that follows when that left no kernel defined.
    std::optional<DiagnosticNote> m_hostStop;
    int64_t m_steps = 0;
    int64_t m_stepLimit = 1000000;
    int m_depth = 0;     // C++ recursion guard over eval/exec/call
    int m_callDepth = 0; // Python call depth
    Value m_returnValue;
    std::string m_pendingName; // the name an allocation call is about to be bound to
    std::unique_ptr<TraceState> m_trace;
    std::optional<RecordedCall> m_recorded;
    std::optional<std::pair<std::shared_ptr<FunctionData>, Value>>
        m_compileOutIdx;                                         // tilelang.compile(f, out_idx=)
    std::vector<std::shared_ptr<FunctionData>> m_definedKernels; // jit / prim_func defs at module level
    std::vector<const ir::Var*> m_dynamicDims;
    std::map<std::string, Value> m_constValues; // eager T.const values by name
    std::vector<ir::SpecializationParam>* m_spec = nullptr;
    const ElaborateOptions* m_options = nullptr;
    std::map<std::string, Value> m_overrideValues;

private:
    std::vector<std::unique_ptr<Env>> m_envs;
    std::vector<bool> m_loopIsKernel; // innermost loop first: is it an IR loop (no break/continue)?
    int m_symbolicIfDepth = 0;        // inside a run-time `if` (no return/break there)
    std::vector<std::unique_ptr<ast::Module>> m_overrideAsts;
    Value evalImpl(const ast::Expr& e);
    Flow execImpl(const ast::Stmt& s);
    Value evalCall(const ast::Expr& e);
    Value evalCompare(const ast::Expr& e);
    Value evalBoolOp(const ast::Expr& e);
    Value evalListComp(const ast::Expr& e);
    Value evalFString(const ast::Expr& e);
    Value evalSlice(const ast::Expr& e);
    Flow execFor(const ast::Stmt& s);
    Flow execWhile(const ast::Stmt& s);
    Flow execIf(const ast::Stmt& s);
    Flow execAssign(const ast::Stmt& s);
    Flow execAugAssign(const ast::Stmt& s);
    Flow execAnnAssign(const ast::Stmt& s);
    Flow execFunctionDef(const ast::Stmt& s);
    Flow execClassDef(const ast::Stmt& s); // HostClasses.cpp
    Flow execImport(const ast::Stmt& s);
    Flow execAssert(const ast::Stmt& s);
    void compGenerators(const ast::Expr& e, size_t level, std::vector<Value>& out);
    bool bindParams(const std::shared_ptr<FunctionData>& fn, CallArgs& args, Env* env, SourceRange range);
    // The steps of elaborateModule (Elaborator.cpp).
    void runHostCode(const ast::Module& module);
    std::shared_ptr<FunctionData> chooseEntry(const ElaborateOptions& options, SourceRange fileStart);
    bool evaluateOverrides(const ElaborateOptions& options, SourceRange fileStart);
    std::shared_ptr<DictData> firstAutotuneConfig(const std::shared_ptr<FunctionData>& entry);
    bool isUnmodelledTensorSize(const Value& passed) const;
    Value dataDependentDim(const std::string& name, const std::string& function, const Value& passed,
                           SourceRange argumentRange);
    void reportUndetermined(const std::string& what, const std::string& name, SourceRange declared,
                            const Value& passed, SourceRange argumentRange);
    bool bindJitParameters(const std::shared_ptr<FunctionData>& entry,
                           const std::map<std::string, std::vector<std::string>>& annotated, Env* env,
                           std::set<std::string>& usedOverrides);
    bool elaborateJit(const std::shared_ptr<FunctionData>& entry, std::set<std::string>& usedOverrides,
                      size_t errorsBefore, std::optional<ir::PrimFunc>& func);
};

// Attribute names of `T` (tilelang.language) and of tilelang.layout that TileBench implements, and the
// TileLang names it knows but rejects with unsupported-construct.
const std::vector<std::string>& tileOpNames();
const std::vector<std::string>& layoutNames();
const std::vector<std::string>& unsupportedTileNames();

// Edit-distance suggestion among candidates ("did you mean 'A_shared'?"), empty if none is close.
std::string closestName(const std::string& name, const std::vector<std::string>& candidates);

} // namespace tb::elab
