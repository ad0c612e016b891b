// Layout construction, evaluation, composition and printing.
#include "engine/layout/algebra/Layout.h"

#include "engine/layout/algebra/Enumeration.h"
#include "engine/layout/algebra/IndexMath.h"
#include "engine/layout/algebra/TableMemo.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tb::layout {

std::string inputVarName(size_t dim) {
    static const char* names[] = {"i", "j", "k", "l"};
    if (dim < 4)
        return names[dim];
    return "i" + std::to_string(dim);
}

std::vector<IndexExpr> inputVarsFor(const std::vector<int64_t>& shape) {
    std::vector<IndexExpr> vars;
    for (size_t d = 0; d < shape.size(); ++d)
        vars.push_back(IndexExpr::var(inputVarName(d), shape[d]));
    return vars;
}

int64_t shapeSize(const std::vector<int64_t>& shape) {
    int64_t size = 1;
    for (int64_t s : shape)
        size = saturatingMul(size, s);
    return size;
}

std::string shapeToString(const std::vector<int64_t>& shape) {
    std::string out = "[";
    for (size_t d = 0; d < shape.size(); ++d)
        out += (d ? ", " : "") + std::to_string(shape[d]);
    return out + "]";
}

namespace {

// Re-binds the placeholders to the shape's extents, so that bounds and simplification see the right ranges.
std::vector<IndexExpr> bindAndSimplify(const std::vector<int64_t>& shape, const std::vector<IndexExpr>& exprs,
                                       const std::map<std::string, IndexExpr>& extra = {}) {
    std::map<std::string, IndexExpr> vars = extra;
    for (size_t d = 0; d < shape.size(); ++d)
        vars[inputVarName(d)] = IndexExpr::var(inputVarName(d), shape[d]);
    std::vector<IndexExpr> out;
    for (const IndexExpr& e : exprs)
        out.push_back(simplify(substitute(e, vars)));
    return out;
}

std::vector<int64_t> sanitizeShape(std::vector<int64_t> shape) {
    for (int64_t& s : shape)
        s = std::max<int64_t>(s, 1);
    return shape;
}

} // namespace

Layout::Layout(std::vector<int64_t> inputShape, std::vector<IndexExpr> forward)
    : m_inputShape(sanitizeShape(std::move(inputShape))) {
    m_forward = bindAndSimplify(m_inputShape, forward);
}

Layout Layout::fromFunction(std::vector<int64_t> inputShape,
                            const std::function<std::vector<IndexExpr>(const std::vector<IndexExpr>&)>& fn) {
    inputShape = sanitizeShape(std::move(inputShape));
    std::vector<IndexExpr> vars = inputVarsFor(inputShape);
    return Layout(std::move(inputShape), fn(vars));
}

Layout Layout::linear(std::vector<int64_t> shape) {
    shape = sanitizeShape(std::move(shape));
    std::vector<IndexExpr> vars = inputVarsFor(shape);
    IndexExpr flat;
    for (size_t d = 0; d < shape.size(); ++d)
        flat = flat * IndexExpr(shape[d]) + vars[d];
    return Layout(std::move(shape), {flat});
}

std::vector<int64_t> Layout::outputShape() const {
    std::vector<int64_t> shape;
    for (const IndexExpr& e : m_forward) {
        IndexBounds b = boundsOf(e);
        shape.push_back(b.hi >= kUnboundedIndex ? kUnboundedIndex : std::max<int64_t>(b.hi + 1, 1));
    }
    return shape;
}

std::optional<std::vector<int64_t>> Layout::apply(const std::vector<int64_t>& point) const {
    if (detail::linearIndex(point, m_inputShape) < 0)
        return std::nullopt;
    detail::CompiledExprs compiled(m_forward, detail::varNamesFor(m_inputShape.size()));
    std::vector<int64_t> out;
    if (!compiled.evaluate(point.data(), out))
        return std::nullopt;
    return out;
}

std::optional<int64_t> Layout::offset(const std::vector<int64_t>& point) const {
    std::optional<std::vector<int64_t>> physical = apply(point);
    if (!physical)
        return std::nullopt;
    int64_t flat = detail::linearIndex(*physical, outputShape());
    if (flat < 0)
        return std::nullopt;
    return flat;
}

std::optional<std::vector<int64_t>> Layout::offsetTable() const {
    using Table = std::optional<std::vector<int64_t>>;
    static TableMemo<Table> memo(size_t(64) << 20);
    return *memo.get(
        toString(), [this] { return computeOffsetTable(); },
        [](const Table& t) { return t ? t->size() * sizeof(int64_t) : 0; });
}

std::optional<std::vector<int64_t>> Layout::computeOffsetTable() const {
    std::vector<std::string> names = detail::varNamesFor(m_inputShape.size());
    int64_t count = std::max<int64_t>(inputSize(), 0);
    // One column per input variable over every point in row-major order.
    std::vector<std::vector<int64_t>> columns(m_inputShape.size(), std::vector<int64_t>(size_t(count)));
    int64_t stride = 1;
    for (size_t d = m_inputShape.size(); d-- > 0;) {
        for (int64_t n = 0; n < count; ++n)
            columns[d][size_t(n)] = (n / stride) % m_inputShape[d];
        stride *= m_inputShape[d];
    }
    std::vector<int64_t> outShape = outputShape();
    if (outShape.size() != m_forward.size())
        return std::nullopt;
    std::vector<int64_t> table(size_t(count), 0);
    std::vector<int64_t> values;
    for (size_t k = 0; k < m_forward.size(); ++k) {
        CompiledIndexExpr compiled(m_forward[k], names);
        if (!compiled.evaluateColumns(columns, size_t(count), values))
            return std::nullopt;
        for (int64_t n = 0; n < count; ++n) {
            int64_t v = values[size_t(n)];
            if (v < 0 || v >= outShape[k])
                return std::nullopt;
            table[size_t(n)] = table[size_t(n)] * outShape[k] + v;
        }
    }
    return table;
}

std::vector<IndexExpr> Layout::forward(const std::vector<IndexExpr>& indices) const {
    size_t rank = m_inputShape.size();
    size_t leading = indices.size() > rank ? indices.size() - rank : 0;
    std::map<std::string, IndexExpr> replacements;
    for (size_t d = 0; d < rank && leading + d < indices.size(); ++d)
        replacements[inputVarName(d)] = indices[leading + d];
    std::vector<IndexExpr> out(indices.begin(), indices.begin() + leading);
    for (const IndexExpr& e : m_forward)
        out.push_back(simplify(substitute(e, replacements)));
    return out;
}

Layout Layout::repeat(size_t dim, int64_t factor) const {
    if (dim >= m_inputShape.size() || factor < 1)
        return *this;
    std::vector<int64_t> shape = m_inputShape;
    shape[dim] *= factor;
    IndexExpr v = IndexExpr::var(inputVarName(dim), shape[dim]);
    std::map<std::string, IndexExpr> replacements{{inputVarName(dim), floorMod(v, m_inputShape[dim])}};
    std::vector<IndexExpr> forward{floorDiv(v, m_inputShape[dim])};
    for (const IndexExpr& e : m_forward)
        forward.push_back(substitute(e, replacements));
    return Layout(std::move(shape), forward);
}

Layout Layout::expand(const std::vector<int64_t>& leadingShape) const {
    size_t lead = leadingShape.size();
    std::vector<int64_t> shape = leadingShape;
    shape.insert(shape.end(), m_inputShape.begin(), m_inputShape.end());
    std::map<std::string, IndexExpr> replacements;
    for (size_t d = 0; d < m_inputShape.size(); ++d)
        replacements[inputVarName(d)] = IndexExpr::var(inputVarName(lead + d), m_inputShape[d]);
    std::vector<IndexExpr> forward;
    for (size_t d = 0; d < lead; ++d)
        forward.push_back(IndexExpr::var(inputVarName(d), shape[d]));
    for (const IndexExpr& e : m_forward)
        forward.push_back(substitute(e, replacements));
    return Layout(std::move(shape), forward);
}

Layout Layout::linearized() const {
    std::vector<int64_t> out = outputShape();
    IndexExpr flat;
    for (size_t d = 0; d < m_forward.size(); ++d)
        flat = flat * IndexExpr(out[d]) + m_forward[d];
    return Layout(m_inputShape, {flat});
}

std::string Layout::toString() const {
    std::string out = "Layout(shape=" + shapeToString(m_inputShape) + ", forward=[";
    for (size_t k = 0; k < m_forward.size(); ++k)
        out += (k ? ", " : "") + m_forward[k].toString();
    return out + "])";
}

LayoutResult<Layout> compose(const Layout& inner, const Layout& outer) {
    const std::vector<int64_t>& outerShape = outer.inputShape();
    if (inner.forwardIndex().size() != outerShape.size())
        return layoutError("layout-compose-shape",
                           "cannot compose: inner layout has " + std::to_string(inner.forwardIndex().size()) +
                               " outputs but outer layout takes " + std::to_string(outerShape.size()) +
                               " inputs",
                           "the outer layout must take one input per output of the inner layout");
    std::vector<int64_t> innerOut = inner.outputShape();
    for (size_t d = 0; d < outerShape.size(); ++d) {
        IndexBounds b = boundsOf(inner.forwardIndex()[d]);
        if (b.lo < 0 || innerOut[d] > outerShape[d])
            return layoutError("layout-compose-shape",
                               "cannot compose: inner output " + std::to_string(d) + " ranges over [" +
                                   std::to_string(b.lo) + ", " + std::to_string(innerOut[d]) +
                                   ") but the outer layout's input extent is " +
                                   std::to_string(outerShape[d]),
                               "the inner layout's output shape must fit the outer layout's input shape");
    }
    std::map<std::string, IndexExpr> replacements;
    for (size_t d = 0; d < outerShape.size(); ++d)
        replacements[inputVarName(d)] = inner.forwardIndex()[d];
    std::vector<IndexExpr> forward;
    for (const IndexExpr& e : outer.forwardIndex())
        forward.push_back(substitute(e, replacements));
    return Layout(inner.inputShape(), forward);
}

std::string printLayoutTable(const Layout& layout) {
    const std::vector<int64_t>& shape = layout.inputShape();
    if (auto error = detail::checkDomain(layout.inputSize(), "the layout"))
        return "<" + error->message + ">\n";
    int64_t columns = shape.empty() ? 1 : shape.back();
    std::vector<int64_t> outShape = layout.outputShape();
    detail::CompiledExprs compiled(layout.forwardIndex(), detail::varNamesFor(shape.size()));
    std::vector<std::string> cells;
    size_t width = 1;
    detail::PointCounter counter(shape);
    std::vector<int64_t> physical;
    do {
        std::string cell = "?";
        if (compiled.evaluate(counter.point().data(), physical)) {
            int64_t flat = detail::linearIndex(physical, outShape);
            cell = flat < 0 ? "?" : std::to_string(flat);
        }
        width = std::max(width, cell.size());
        cells.push_back(std::move(cell));
    } while (counter.next());
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
        out += std::string(width - cells[c].size() + (c % columns ? 1 : 0), ' ') + cells[c];
        if ((int64_t(c) + 1) % columns == 0)
            out += '\n';
    }
    return out;
}

} // namespace tb::layout
