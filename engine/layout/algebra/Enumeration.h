// Internal helpers for exact enumeration over a layout's logical domain: a mixed-radix point counter and
// compiled forms of a list of expressions. Not part of the public API.
#pragma once

#include "engine/layout/algebra/IndexExpr.h"
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::layout::detail {

// Iterates the points of `shape` in row-major order (last dimension fastest).
class PointCounter {
public:
    explicit PointCounter(std::vector<int64_t> shape)
        : m_shape(std::move(shape)), m_point(m_shape.size(), 0) {}
    const std::vector<int64_t>& point() const { return m_point; }
    bool next() {
        for (size_t d = m_shape.size(); d-- > 0;) {
            if (++m_point[d] < m_shape[d])
                return true;
            m_point[d] = 0;
        }
        return false;
    }

private:
    std::vector<int64_t> m_shape;
    std::vector<int64_t> m_point;
};

class CompiledExprs {
public:
    CompiledExprs(const std::vector<IndexExpr>& exprs, const std::vector<std::string>& varOrder) {
        for (const IndexExpr& e : exprs)
            m_exprs.emplace_back(e, varOrder);
    }
    bool valid() const {
        for (const auto& e : m_exprs)
            if (!e.valid())
                return false;
        return true;
    }
    // Writes one value per expression; false when any evaluation fails.
    bool evaluate(const int64_t* slots, std::vector<int64_t>& out) const {
        out.resize(m_exprs.size());
        for (size_t k = 0; k < m_exprs.size(); ++k) {
            std::optional<int64_t> v = m_exprs[k].evaluate(slots);
            if (!v)
                return false;
            out[k] = *v;
        }
        return true;
    }

private:
    std::vector<CompiledIndexExpr> m_exprs;
};

inline std::vector<std::string> varNamesFor(size_t rank) {
    std::vector<std::string> names;
    for (size_t d = 0; d < rank; ++d)
        names.push_back(inputVarName(d));
    return names;
}

// Row-major linear index of `point` in `shape`, or -1 when outside.
inline int64_t linearIndex(const std::vector<int64_t>& point, const std::vector<int64_t>& shape) {
    if (point.size() != shape.size())
        return -1;
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (point[d] < 0 || point[d] >= shape[d])
            return -1;
        flat = flat * shape[d] + point[d];
    }
    return flat;
}

inline std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& shape) {
    std::vector<int64_t> point(shape.size(), 0);
    for (size_t d = shape.size(); d-- > 0;) {
        point[d] = flat % shape[d];
        flat /= shape[d];
    }
    return point;
}

// "(1, 2, 3)" for messages.
inline std::string pointText(const std::vector<int64_t>& point) {
    std::string text = "(";
    for (size_t d = 0; d < point.size(); ++d)
        text += (d ? ", " : "") + std::to_string(point[d]);
    return text + ")";
}

inline std::optional<LayoutError> checkDomain(int64_t points, const char* what) {
    if (points > kMaxEnumerationPoints || points < 0)
        return layoutError("layout-domain-too-large",
                           std::string(what) + " has " + std::to_string(points) +
                               " points; exact enumeration is " + "limited to " +
                               std::to_string(kMaxEnumerationPoints),
                           "check a smaller tile, or split the layout into independent parts");
    return std::nullopt;
}

inline LayoutError evaluationFailed(const std::string& what, const std::vector<int64_t>& point) {
    std::string text;
    for (size_t d = 0; d < point.size(); ++d)
        text += (d ? ", " : "") + std::to_string(point[d]);
    return layoutError("layout-eval-failed",
                       what + " cannot be evaluated at (" + text + "): division by zero or integer overflow");
}

} // namespace tb::layout::detail
