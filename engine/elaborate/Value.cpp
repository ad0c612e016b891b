// Constructors and the Python-level printing and equality of interpreter values.
#include "engine/elaborate/Value.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

namespace tb::elab {

Value Value::boolean(bool b) {
    Value v;
    v.kind = ValueKind::Bool;
    v.i = b ? 1 : 0;
    return v;
}

Value Value::integer(int64_t x) {
    Value v;
    v.kind = ValueKind::Int;
    v.i = x;
    return v;
}

Value Value::real(double x) {
    Value v;
    v.kind = ValueKind::Float;
    v.f = x;
    return v;
}

Value Value::str(std::string x) {
    Value v;
    v.kind = ValueKind::Str;
    v.s = std::move(x);
    return v;
}

Value Value::tuple(std::vector<Value> x) {
    Value v;
    v.kind = ValueKind::Tuple;
    v.items = std::make_shared<std::vector<Value>>(std::move(x));
    return v;
}

Value Value::list(std::vector<Value> x) {
    Value v;
    v.kind = ValueKind::List;
    v.items = std::make_shared<std::vector<Value>>(std::move(x));
    return v;
}

Value Value::hostObject(std::string type) {
    Value v;
    v.kind = ValueKind::Object;
    v.object = std::make_shared<ObjectData>();
    v.object->type = std::move(type);
    return v;
}

Value Value::dictionary() {
    Value v;
    v.kind = ValueKind::Dict;
    v.dict = std::make_shared<DictData>();
    return v;
}

Value Value::builtin(std::string name, std::shared_ptr<Value> self) {
    Value v;
    v.kind = ValueKind::Builtin;
    v.s = std::move(name);
    v.self = std::move(self);
    return v;
}

Value Value::ns(std::string path) {
    Value v;
    v.kind = ValueKind::Namespace;
    v.s = std::move(path);
    return v;
}

Value Value::dtypeOf(ir::DType t) {
    Value v;
    v.kind = ValueKind::DType;
    v.dtype = t;
    return v;
}

Value Value::enumeration(std::string name) {
    Value v;
    v.kind = ValueKind::Enum;
    v.s = std::move(name);
    return v;
}

Value Value::symbolic(ir::ExprPtr e) {
    Value v;
    v.kind = ValueKind::Expr;
    v.expr = std::move(e);
    return v;
}

Value Value::bufferOf(ir::Buffer* b) {
    Value v;
    v.kind = ValueKind::Buffer;
    v.buffer = b;
    return v;
}

Value Value::opaque(std::string what) {
    Value v;
    v.kind = ValueKind::Opaque;
    v.s = std::move(what);
    return v;
}

Value Value::poison() {
    Value v;
    v.kind = ValueKind::Poison;
    return v;
}

std::string typeName(const Value& v) {
    switch (v.kind) {
    case ValueKind::None:
        return "NoneType";
    case ValueKind::Bool:
        return "bool";
    case ValueKind::Int:
        return "int";
    case ValueKind::Float:
        return "float";
    case ValueKind::Str:
        return "str";
    case ValueKind::Tuple:
        return "tuple";
    case ValueKind::List:
        return "list";
    case ValueKind::Dict:
        return "dict";
    case ValueKind::Range:
        return "range";
    case ValueKind::Slice:
        return "slice";
    case ValueKind::Ellipsis:
        return "ellipsis";
    case ValueKind::Function:
        return "function";
    case ValueKind::Builtin:
        return "builtin_function";
    case ValueKind::Namespace:
        return "module";
    case ValueKind::DType:
        return "dtype";
    case ValueKind::Enum:
        return "GemmWarpPolicy";
    case ValueKind::Expr:
        return "PrimExpr";
    case ValueKind::Buffer:
        return "Buffer";
    case ValueKind::Region:
        return "BufferRegion";
    case ValueKind::TensorType:
        return "Tensor";
    case ValueKind::LoopSpec:
        return "loop";
    case ValueKind::KernelSpec:
        return "Kernel";
    case ValueKind::Layout:
        return "Layout";
    case ValueKind::Object:
        return v.object ? v.object->type : "object";
    case ValueKind::Opaque:
        return "host object";
    case ValueKind::Poison:
        return "<error>";
    }
    return "?";
}

namespace {

// Python's repr of a float: the shortest digits that read back the same, in fixed notation for
// exponents in [-4, 16) and scientific notation otherwise ("1e+16", "1.5e-05").
std::string floatText(double x) {
    if (std::isinf(x))
        return x > 0 ? "inf" : "-inf";
    if (std::isnan(x))
        return "nan";
    char buf[64];
    int precision = 1;
    for (; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision - 1, x);
        if (std::strtod(buf, nullptr) == x)
            break;
    }
    std::string s = buf;
    bool negative = s[0] == '-';
    if (negative)
        s.erase(0, 1);
    size_t ePos = s.find('e');
    int exponent = std::atoi(s.c_str() + ePos + 1);
    std::string digits;
    for (size_t k = 0; k < ePos; ++k)
        if (s[k] != '.')
            digits += s[k];
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    std::string out;
    if (exponent >= -4 && exponent < 16) {
        if (exponent >= 0) {
            std::string intPart = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
            intPart.append(
                exponent + 1 > static_cast<int>(intPart.size()) ? exponent + 1 - intPart.size() : 0, '0');
            std::string frac =
                digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
            out = intPart + "." + frac;
        } else {
            out = "0." + std::string(-exponent - 1, '0') + digits;
        }
    } else {
        out = digits.substr(0, 1);
        if (digits.size() > 1)
            out += "." + digits.substr(1);
        char e[16];
        std::snprintf(e, sizeof e, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
        out += e;
    }
    return negative ? "-" + out : out;
}

std::string joinItems(const std::vector<Value>& items, bool tupleForm) {
    std::string out;
    for (size_t k = 0; k < items.size(); ++k) {
        if (k)
            out += ", ";
        out += toRepr(items[k]);
    }
    if (tupleForm && items.size() == 1)
        out += ",";
    return out;
}

} // namespace

std::string toStr(const Value& v) {
    switch (v.kind) {
    case ValueKind::None:
        return "None";
    case ValueKind::Bool:
        return v.i ? "True" : "False";
    case ValueKind::Int:
        return std::to_string(v.i);
    case ValueKind::Float:
        return floatText(v.f);
    case ValueKind::Str:
        return v.s;
    case ValueKind::Tuple:
        return "(" + joinItems(*v.items, true) + ")";
    case ValueKind::List:
        return "[" + joinItems(*v.items, false) + "]";
    case ValueKind::Dict: {
        std::string out = "{";
        for (size_t k = 0; k < v.dict->entries.size(); ++k) {
            if (k)
                out += ", ";
            out += toRepr(v.dict->entries[k].first) + ": " + toRepr(v.dict->entries[k].second);
        }
        return out + "}";
    }
    case ValueKind::Range:
        return "range(" + std::to_string(v.range[0]) + ", " + std::to_string(v.range[1]) +
               (v.range[2] != 1 ? ", " + std::to_string(v.range[2]) : std::string()) + ")";
    case ValueKind::Slice:
        return "slice(...)";
    case ValueKind::Ellipsis:
        return "Ellipsis";
    case ValueKind::Function:
        return "<function " + (v.fn ? v.fn->name : std::string("?")) + ">";
    case ValueKind::Builtin:
        return "<built-in function " + v.s + ">";
    case ValueKind::Namespace:
        return "<module '" + v.s + "'>";
    case ValueKind::DType:
        return ir::dtypeName(v.dtype);
    case ValueKind::Enum:
        return v.s;
    case ValueKind::Expr:
        return ir::printExpr(v.expr);
    case ValueKind::Buffer:
        return v.buffer ? v.buffer->name : "?";
    case ValueKind::Region:
        return v.region && v.region->buffer ? v.region->buffer->name + "[...]" : "?";
    case ValueKind::TensorType:
        return "T.Tensor(...)";
    case ValueKind::LoopSpec:
        return "<loop>";
    case ValueKind::KernelSpec:
        return "<T.Kernel>";
    case ValueKind::Layout:
        return "<layout>";
    case ValueKind::Object:
        return "<" + typeName(v) + ">";
    case ValueKind::Opaque:
        return "<" + v.s + ">";
    case ValueKind::Poison:
        return "<error>";
    }
    return "?";
}

std::string toRepr(const Value& v) {
    if (v.kind == ValueKind::Str) {
        std::string out = "'";
        for (char c : v.s) {
            if (c == '\'' || c == '\\')
                out += '\\';
            if (c == '\n') {
                out += "\\n";
                continue;
            }
            out += c;
        }
        return out + "'";
    }
    if (v.kind == ValueKind::DType)
        return std::string("'") + ir::dtypeName(v.dtype) + "'";
    return toStr(v);
}

bool valuesEqual(const Value& a, const Value& b) {
    if (a.isNumber() && b.isNumber()) {
        if (a.kind == ValueKind::Float || b.kind == ValueKind::Float) {
            double x = a.kind == ValueKind::Float ? a.f : static_cast<double>(a.i);
            double y = b.kind == ValueKind::Float ? b.f : static_cast<double>(b.i);
            return x == y;
        }
        return a.i == b.i;
    }
    // A dtype equals the strings that name it ("float" == T.float32 is how TileLang code compares).
    if (a.kind == ValueKind::DType && b.kind == ValueKind::Str) {
        auto t = ir::parseDType(b.s);
        return t && *t == a.dtype;
    }
    if (a.kind == ValueKind::Str && b.kind == ValueKind::DType)
        return valuesEqual(b, a);
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case ValueKind::None:
    case ValueKind::Ellipsis:
        return true;
    case ValueKind::Str:
    case ValueKind::Enum:
    case ValueKind::Namespace:
        return a.s == b.s;
    case ValueKind::Builtin:
        return a.s == b.s && a.self == b.self;
    case ValueKind::DType:
        return a.dtype == b.dtype;
    case ValueKind::Tuple:
    case ValueKind::List: {
        if (a.items->size() != b.items->size())
            return false;
        for (size_t k = 0; k < a.items->size(); ++k)
            if (!valuesEqual((*a.items)[k], (*b.items)[k]))
                return false;
        return true;
    }
    case ValueKind::Range:
        return a.range == b.range;
    case ValueKind::Buffer:
        return a.buffer == b.buffer;
    case ValueKind::Function:
        return a.fn == b.fn;
    case ValueKind::Dict: {
        if (a.dict == b.dict)
            return true;
        if (a.dict->entries.size() != b.dict->entries.size())
            return false;
        for (auto& [k, v] : a.dict->entries) {
            Value* other = dictFind(*b.dict, k);
            if (!other || !valuesEqual(v, *other))
                return false;
        }
        return true;
    }
    case ValueKind::Object:
        return a.object == b.object;
    case ValueKind::Expr:
        return a.expr == b.expr;
    default:
        return false;
    }
}

void takeJitOption(FunctionData& fn, const std::string& keyword, const Value& value) {
    if (keyword == "out_idx")
        fn.outIdx = std::make_shared<Value>(value);
    else if (keyword == "pass_configs")
        fn.passConfigs = std::make_shared<Value>(value);
}

void applyAutotune(FunctionData& fn, const Value& decorator) {
    if (!decorator.object)
        return;
    auto it = decorator.object->attrs.find("configs");
    if (it != decorator.object->attrs.end() && !it->second.isInert())
        fn.autotuneConfigs = std::make_shared<Value>(it->second);
}

bool passConfigEnabled(const Value* passConfigs, const std::string& key, const std::string& enumName) {
    if (!passConfigs || passConfigs->kind != ValueKind::Dict || !passConfigs->dict)
        return false;
    for (const auto& [k, v] : passConfigs->dict->entries) {
        bool named = (k.kind == ValueKind::Str && k.s == key) ||
                     (k.kind == ValueKind::Opaque && k.s == "tilelang.PassConfigKey." + enumName);
        if (named)
            return (v.kind == ValueKind::Bool || v.kind == ValueKind::Int) && v.i != 0;
    }
    return false;
}

Value* dictFind(DictData& dict, const Value& key) {
    for (auto& [k, v] : dict.entries)
        if (valuesEqual(k, key))
            return &v;
    return nullptr;
}

} // namespace tb::elab
