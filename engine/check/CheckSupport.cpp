// Helpers shared by the check families (see CheckSupport.h).
#include "engine/check/CheckSupport.h"

#include "engine/ir/Printer.h"

#include <algorithm>
#include <cstdint>

namespace tb::check {

using namespace tb::ir;

std::string shapeText(const std::vector<ExprPtr>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i)
            out += ", ";
        out += dims[i] ? printExpr(simplify(dims[i])) : "?";
    }
    return out + "]";
}

bool extentsDiffer(const ExprPtr& a, const ExprPtr& b) {
    auto x = constantInt(a);
    auto y = constantInt(b);
    return x && y && *x != *y;
}

bool extentsEqual(const ExprPtr& a, const ExprPtr& b) {
    if (!a || !b)
        return false;
    auto x = constantInt(a);
    auto y = constantInt(b);
    if (x && y)
        return *x == *y;
    return printExpr(simplify(a)) == printExpr(simplify(b));
}

bool isConstant(const ExprPtr& e, int64_t value) {
    return constantInt(e) == value;
}

DiagnosticNote allocationNote(const Buffer& buffer) {
    if (buffer.paramIndex >= 0)
        return {buffer.range, "'" + buffer.name + "' is parameter " + std::to_string(buffer.paramIndex) +
                                  ": " + printBufferType(buffer)};
    if (buffer.viewOf)
        return {buffer.range, "'" + buffer.name + "' is declared here as a view of '" + buffer.viewOf->name +
                                  "': " + printBufferType(buffer)};
    return {buffer.range, "'" + buffer.name + "' is allocated here as " + printBufferType(buffer)};
}

void addAllocationNotes(Diagnostic& diagnostic, std::vector<const Buffer*> buffers) {
    std::vector<const Buffer*> seen;
    for (const Buffer* b : buffers) {
        if (!b || std::find(seen.begin(), seen.end(), b) != seen.end())
            continue;
        seen.push_back(b);
        diagnostic.notes.push_back(allocationNote(*b));
    }
}

} // namespace tb::check
