// Classes in host code. Real programs wrap their kernels in torch.autograd.Function subclasses whose
// forward() computes the jit arguments from the input tensors and calls the kernel; `attention =
// _attention.apply` then `attention(q, k, v)` must reach that call. A class is an Object of type "class"
// whose attributes are the names its body binds; apply(...) calls forward(ctx, ...) with a fresh context
// object. Instances and inheritance are not modelled (calling a class gives a host value).
#include "engine/elaborate/Primitives.h"

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

Flow Interpreter::execClassDef(const ast::Stmt& s) {
    if (tracing()) {
        error("unsupported-construct", s.range, "class definitions are not supported in kernel code",
              "move host-only code out of the jit function");
        return Flow::Normal;
    }
    Env* body = newEnv(m_env);
    body->captured = true; // methods defined in the body refer to it
    Env* saved = m_env;
    m_env = body;
    Flow flow = execBlock(s.body);
    m_env = saved;
    if (flow == Flow::Halt)
        return flow;
    Value cls = Value::hostObject("class");
    for (auto& [name, value] : body->vars)
        cls.object->attrs[name] = value;
    cls.object->attrs["__name__"] = Value::str(s.name);
    bindName(s.name, cls);
    return Flow::Normal;
}

Value Interpreter::classAttribute(const Value& cls, const std::string& attr) {
    auto it = cls.object->attrs.find(attr);
    if (it != cls.object->attrs.end())
        return it->second;
    if (attr == "apply")
        return Value::builtin("class.apply", std::make_shared<Value>(cls));
    return Value::opaque(cls.object->attrs["__name__"].s + "." + attr);
}

namespace {

// Function.apply(*args): forward(ctx, *args), the way torch.autograd runs it.
Value classApply(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Object)
        return Value::opaque(call.name + "(...)");
    auto forward = call.self->object->attrs.find("forward");
    if (forward == call.self->object->attrs.end() || forward->second.kind != ValueKind::Function)
        return Value::opaque(call.name + "(...)");
    Value ctx = Value::hostObject("FunctionCtx");
    CallArgs args = call.args;
    args.positional.insert(args.positional.begin(), ctx);
    args.positionalRanges.insert(args.positionalRanges.begin(), call.range);
    return in.callFunction(forward->second.fn, args, call.range);
}

// ctx.save_for_backward(...), ctx.mark_dirty(...): nothing to record for the forward pass.
Value contextMethod(Interpreter&, PrimitiveCall&) {
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> hostClasses() {
    static const PrimitiveRow rows[] = {
        {"class.apply", classApply},
        {"FunctionCtx.", contextMethod},
    };
    return rows;
}

} // namespace tb::elab
