#include "engine/ir/Module.h"

#include <utility>

namespace tb::ir {

const char* paramOriginName(ParamOrigin origin) {
    switch (origin) {
    case ParamOrigin::Default:
        return "default";
    case ParamOrigin::ModuleCall:
        return "module-call";
    case ParamOrigin::Autotune:
        return "autotune";
    case ParamOrigin::Override:
        return "override";
    case ParamOrigin::DataDependent:
        return "data-dependent";
    case ParamOrigin::Required:
        return "required";
    }
    return "?";
}

Var* Module::newVar(std::string name, DType type, VarKind kind, SourceRange range) {
    Var& v = m_vars.emplace_back();
    v.name = std::move(name);
    v.dtype = type;
    v.kind = kind;
    v.id = static_cast<int>(m_vars.size() - 1);
    v.range = range;
    return &v;
}

Buffer* Module::newBuffer(std::string name, MemoryScope scope, DType type, std::vector<ExprPtr> shape,
                          SourceRange range) {
    Buffer& b = m_buffers.emplace_back();
    b.name = std::move(name);
    b.scope = scope;
    b.dtype = type;
    b.shape = std::move(shape);
    b.range = range;
    b.id = static_cast<int>(m_buffers.size() - 1);
    return &b;
}

} // namespace tb::ir
