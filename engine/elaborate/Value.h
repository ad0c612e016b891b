// The values of the elaborator's Python interpreter. Compile-time Python values (int, float, str, tuples,
// lists, dicts, functions, modules) live next to the symbolic run-time values of kernel code (ir::Expr),
// the kernel objects that TileLang calls return (buffers, regions, loop and kernel specs, layouts), an
// Opaque value for host-side things the elaborator deliberately skips (torch tensors, profilers), and a
// Poison value that stands for "an error was already reported" so that one mistake never cascades.
#pragma once

#include "engine/frontend/Ast.h"
#include "engine/ir/Module.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

enum class ValueKind {
    None,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    List,
    Dict,
    Range,
    Slice,
    Ellipsis,
    Function,   // a user def or lambda (also @T.macro, @T.prim_func, @tilelang.jit functions)
    Builtin,    // a native function, optionally bound to `self` (methods)
    Namespace,  // a module: tilelang, T, torch, math, ...
    DType,      // T.float16, "float16" once used as a dtype
    Enum,       // T.GemmWarpPolicy.FullRow
    Expr,       // a symbolic run-time scalar
    Buffer,     // a tensor parameter or an allocation
    Region,     // a sliced buffer, A[b, k*64:(k+1)*64, :]
    TensorType, // T.Tensor((M, K), dtype): a parameter annotation
    LoopSpec,   // T.Parallel / T.Pipelined / T.serial / ... waiting for a for statement
    KernelSpec, // T.Kernel(...) waiting for a with statement
    Layout,     // make_swizzled_layout(buf), T.Layout(...), T.Fragment(...)
    Object,     // a small native object with attributes (argparse parser and namespace, jit decorator)
    Opaque,     // a host-side value the elaborator does not model
    Poison,     // an error was reported while computing this value
};

struct Value;
struct Env;

struct DictData;
struct RegionData;
struct LoopData;
struct KernelData;
struct LayoutData;
struct ObjectData;
struct FunctionData;

struct Value {
    ValueKind kind = ValueKind::None;
    int64_t i = 0; // Int, Bool
    double f = 0;  // Float
    std::string s; // Str; Builtin/Namespace/Enum name; Opaque description
    ir::DType dtype = ir::DType::Float32;
    ir::ExprPtr expr;
    ir::Buffer* buffer = nullptr;
    std::array<int64_t, 3> range{0, 0, 1};     // Range: start, stop, step
    std::shared_ptr<std::vector<Value>> items; // Tuple, List, Slice (lower, upper, step), TensorType shape
    std::shared_ptr<DictData> dict;
    std::shared_ptr<FunctionData> fn;
    std::shared_ptr<Value> self; // Builtin: bound receiver
    std::shared_ptr<RegionData> region;
    std::shared_ptr<LoopData> loop;
    std::shared_ptr<KernelData> kernel;
    std::shared_ptr<LayoutData> layout;
    std::shared_ptr<ObjectData> object;
    // Opaque: the host code where the value stopped being known (an unmodelled call, an import, tensor
    // data), so that a parameter computed from it can be reported precisely.
    SourceRange origin;

    bool is(ValueKind k) const { return kind == k; }
    bool isPoison() const { return kind == ValueKind::Poison; }
    bool isOpaque() const { return kind == ValueKind::Opaque; }
    // Poison or Opaque: operations on them propagate them without new diagnostics.
    bool isInert() const { return kind == ValueKind::Poison || kind == ValueKind::Opaque; }
    bool isNumber() const {
        return kind == ValueKind::Int || kind == ValueKind::Bool || kind == ValueKind::Float;
    }
    bool isIntLike() const { return kind == ValueKind::Int || kind == ValueKind::Bool; }
    bool isSequence() const { return kind == ValueKind::Tuple || kind == ValueKind::List; }

    static Value none() { return {}; }
    static Value boolean(bool b);
    static Value integer(int64_t v);
    static Value real(double v);
    static Value str(std::string v);
    static Value tuple(std::vector<Value> v);
    static Value list(std::vector<Value> v);
    static Value dictionary();
    static Value hostObject(std::string type); // a host object with no attributes yet
    static Value builtin(std::string name, std::shared_ptr<Value> self = nullptr);
    static Value ns(std::string path);
    static Value dtypeOf(ir::DType t);
    static Value enumeration(std::string name);
    static Value symbolic(ir::ExprPtr e);
    static Value bufferOf(ir::Buffer* b);
    static Value opaque(std::string what);
    static Value poison();
};

struct DictData {
    std::vector<std::pair<Value, Value>> entries;
};

struct RegionData {
    ir::Buffer* buffer = nullptr;
    std::vector<ir::ExprPtr> mins;
    std::vector<ir::ExprPtr> extents;
};

struct LoopData {
    ir::LoopKind kind = ir::LoopKind::Serial;
    std::vector<ir::ExprPtr> mins;
    std::vector<ir::ExprPtr> extents;
    int64_t step = 1;
    ir::PipelineInfo pipeline;
    int coalescedWidth = 0;
};

struct KernelData {
    std::vector<ir::ExprPtr> grid;
    std::vector<int64_t> threads;
};

struct LayoutData {
    ir::LayoutAnnotation annotation; // annotation.buffer: the buffer a make_*(buf) call named, if any
};

struct ObjectData {
    std::string type;
    std::map<std::string, Value> attrs;
    std::vector<std::pair<std::string, Value>> entries; // argparse: dest -> default, in declaration order
};

struct FunctionData {
    std::string name;
    const ast::Stmt* def = nullptr;    // a def statement
    const ast::Expr* lambda = nullptr; // or a lambda
    const std::vector<ast::Param>* params = nullptr;
    Env* closure = nullptr;                     // owned by the interpreter
    std::vector<std::optional<Value>> defaults; // one per param
    bool isJit = false;
    bool isPrimFunc = false;
    bool isMacro = false;
    std::shared_ptr<Value> outIdx;          // @tilelang.jit(out_idx=...)
    std::shared_ptr<Value> passConfigs;     // @tilelang.jit(pass_configs={...})
    std::shared_ptr<Value> autotuneConfigs; // @autotune(configs=...): a list of dicts or a function
    SourceRange range;
};

// Python's type name of a value, for messages ("int", "str", "Buffer", ...).
std::string typeName(const Value& v);
// str() of a compile-time value; symbolic values print as their IR text.
std::string toStr(const Value& v);
// repr(): strings quoted.
std::string toRepr(const Value& v);
// == for compile-time values (numbers across int/float/bool, strings, sequences, dtypes, identity otherwise).
bool valuesEqual(const Value& a, const Value& b);
// Dict lookup by Python equality; returns null when absent.
Value* dictFind(DictData& dict, const Value& key);

// A keyword of @tilelang.jit(...) that changes what is compiled (out_idx, pass_configs) onto the function;
// other keywords are ignored.
void takeJitOption(FunctionData& fn, const std::string& keyword, const Value& value);
// @autotune(configs=...) / @tilelang.autotune(...) (an "autotune-decorator" object) onto the function.
void applyAutotune(FunctionData& fn, const Value& decorator);
// Whether pass_configs (a dict, or null) turns on TileLang's `key` ("tl.enable_fast_math"), given as that
// string or as tilelang.PassConfigKey.<enumName> ("TL_ENABLE_FAST_MATH").
bool passConfigEnabled(const Value* passConfigs, const std::string& key, const std::string& enumName);

} // namespace tb::elab
