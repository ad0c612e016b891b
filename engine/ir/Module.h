// A whole elaborated tile program: the PrimFuncs it defines (usually one; a prim_func that calls several
// @T.macro kernels holds several Kernel statements), the buffers and vars they use, and the compile-time
// parameters that specialized it, with where each value came from.
#pragma once

#include "engine/ir/Stmt.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tb::ir {

struct PrimFunc {
    std::string name;
    std::vector<const Buffer*> params; // tensor parameters in order (scalar dynamic dims are in dynamicDims)
    std::vector<const Var*> dynamicDims;
    // T.alloc_global workspaces, in allocation order, wherever the program wrote them (in the prim_func
    // before its kernels, or inside one): global memory that lives for one run of the whole function,
    // zero-filled at its start, shared by every kernel and block (a split kernel writes it, a combine
    // kernel reads it). Not parameters: the executor and the GPU run allocate them; generated kernels take
    // them after the tensors.
    std::vector<const Buffer*> workspaces;
    StmtPtr body; // a Seq of Kernel statements
    SourceRange range;
    // @tilelang.jit(pass_configs={"tl.enable_fast_math": True}): approximate exp, division and square roots
    // (NVRTC --use_fast_math).
    bool fastMath = false;
};

enum class ParamOrigin {
    Default,       // the jit function's own default
    ModuleCall,    // the first call of the jit function in the module or in main()
    Autotune,      // the first config of the jit function's @autotune(configs=...)
    Override,      // given by the user (tilec -p, the app's parameters panel)
    DataDependent, // a size host code computes from data: compiled as a dynamic dim of the same name
    Required,      // no value anywhere: elaboration reports it
};

const char* paramOriginName(ParamOrigin origin);

// One compile-time parameter of the jit function. The value is kept as the Python literal text it would
// be written as ("1024", "'float16'", "True", "T.GemmWarpPolicy.FullCol") and as a typed value.
struct SpecializationParam {
    std::string name;
    std::variant<std::monostate, int64_t, double, bool, std::string> value;
    std::string text;
    ParamOrigin origin = ParamOrigin::Default;
    SourceRange range; // the parameter in the def
};

class Module {
public:
    std::string sourceName;  // the file
    std::string jitFunction; // the @tilelang.jit function, empty for a bare prim_func
    std::vector<SpecializationParam> specialization;
    std::vector<PrimFunc> funcs;

    Var* newVar(std::string name, DType type, VarKind kind, SourceRange range = {});
    Buffer* newBuffer(std::string name, MemoryScope scope, DType type, std::vector<ExprPtr> shape,
                      SourceRange range = {});
    const std::deque<Var>& vars() const { return m_vars; }
    const std::deque<Buffer>& buffers() const { return m_buffers; }

    Module() = default;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;
    Module(Module&&) = default;
    Module& operator=(Module&&) = default;

private:
    // Deques keep element addresses stable as they grow; IR nodes hold raw pointers into them.
    std::deque<Var> m_vars;
    std::deque<Buffer> m_buffers;
};

} // namespace tb::ir
