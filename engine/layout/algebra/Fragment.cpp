// Fragment construction, repeat, replicate and printing.
#include "engine/layout/algebra/Fragment.h"

#include "engine/layout/algebra/Enumeration.h"
#include "engine/layout/algebra/IndexMath.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tb::layout {

namespace {

std::map<std::string, IndexExpr> placeholderBindings(const std::vector<int64_t>& shape, int64_t replicate) {
    std::map<std::string, IndexExpr> vars;
    for (size_t d = 0; d < shape.size(); ++d)
        vars[inputVarName(d)] = IndexExpr::var(inputVarName(d), shape[d]);
    vars[Fragment::replicateVarName()] = IndexExpr::var(Fragment::replicateVarName(), replicate);
    return vars;
}

int64_t extentOf(const IndexExpr& e) {
    IndexBounds b = boundsOf(e);
    return b.hi >= kUnboundedIndex ? kUnboundedIndex : std::max<int64_t>(b.hi + 1, 1);
}

} // namespace

Fragment::Fragment(std::vector<int64_t> inputShape, IndexExpr thread, std::vector<IndexExpr> index,
                   int64_t replicate)
    : m_inputShape(std::move(inputShape)), m_replicate(std::max<int64_t>(replicate, 1)) {
    for (int64_t& s : m_inputShape)
        s = std::max<int64_t>(s, 1);
    std::map<std::string, IndexExpr> vars = placeholderBindings(m_inputShape, m_replicate);
    m_thread = simplify(substitute(thread, vars));
    for (const IndexExpr& e : index)
        m_index.push_back(simplify(substitute(e, vars)));
}

Fragment Fragment::fromFunctions(
    std::vector<int64_t> inputShape,
    const std::function<IndexExpr(const std::vector<IndexExpr>&, const IndexExpr& rep)>& threadFn,
    const std::function<std::vector<IndexExpr>(const std::vector<IndexExpr>&)>& indexFn, int64_t replicate) {
    for (int64_t& s : inputShape)
        s = std::max<int64_t>(s, 1);
    std::vector<IndexExpr> vars = inputVarsFor(inputShape);
    IndexExpr rep = IndexExpr::var(replicateVarName(), std::max<int64_t>(replicate, 1));
    return Fragment(inputShape, threadFn(vars, rep), indexFn(vars), replicate);
}

Fragment Fragment::fullyReplicated(std::vector<int64_t> shape, int64_t threads) {
    Layout flat = Layout::linear(shape);
    return Fragment(flat.inputShape(), IndexExpr::var(replicateVarName(), threads), flat.forwardIndex(),
                    threads);
}

int64_t Fragment::threadExtent() const {
    return extentOf(m_thread);
}

std::vector<int64_t> Fragment::indexShape() const {
    std::vector<int64_t> shape;
    for (const IndexExpr& e : m_index)
        shape.push_back(extentOf(e));
    return shape;
}

int64_t Fragment::registersPerThread() const {
    return shapeSize(indexShape());
}

std::optional<int64_t> Fragment::threadOf(const std::vector<int64_t>& point, int64_t rep) const {
    if (detail::linearIndex(point, m_inputShape) < 0 || rep < 0 || rep >= m_replicate)
        return std::nullopt;
    std::vector<std::string> names = detail::varNamesFor(m_inputShape.size());
    names.push_back(replicateVarName());
    std::vector<int64_t> slots = point;
    slots.push_back(rep);
    return CompiledIndexExpr(m_thread, names).evaluate(slots.data());
}

std::optional<int64_t> Fragment::registerOf(const std::vector<int64_t>& point) const {
    if (detail::linearIndex(point, m_inputShape) < 0)
        return std::nullopt;
    detail::CompiledExprs compiled(m_index, detail::varNamesFor(m_inputShape.size()));
    std::vector<int64_t> index;
    if (!compiled.evaluate(point.data(), index))
        return std::nullopt;
    int64_t flat = detail::linearIndex(index, indexShape());
    if (flat < 0)
        return std::nullopt;
    return flat;
}

LayoutResult<Fragment> Fragment::repeat(const std::vector<int64_t>& repeats, bool repeatOnThread,
                                        bool lowerDimFirst) const {
    if (repeats.size() != m_inputShape.size())
        return layoutError("fragment-repeat-rank",
                           "repeat has " + std::to_string(repeats.size()) +
                               " factors for a fragment of rank " + std::to_string(m_inputShape.size()),
                           "give one repeat factor per dimension");
    for (int64_t r : repeats)
        if (r < 1)
            return layoutError("fragment-repeat-rank", "repeat factor " + std::to_string(r) + " is below 1");
    if (!repeatOnThread && m_index.size() != 1)
        return layoutError("fragment-repeat-index-rank",
                           "repeating on registers needs a 1-d register index, this fragment has " +
                               std::to_string(m_index.size()),
                           "flatten the register index first");
    std::vector<int64_t> shape(m_inputShape.size());
    for (size_t d = 0; d < shape.size(); ++d)
        shape[d] = m_inputShape[d] * repeats[d];
    std::vector<IndexExpr> vars = inputVarsFor(shape);
    std::map<std::string, IndexExpr> inner;
    for (size_t d = 0; d < shape.size(); ++d)
        inner[inputVarName(d)] = floorMod(vars[d], m_inputShape[d]);
    // q: mixed-radix number of the block coordinates.
    IndexExpr q;
    int64_t stride = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
        size_t d = lowerDimFirst ? shape.size() - 1 - k : k;
        q = q + IndexExpr(stride) * floorDiv(vars[d], m_inputShape[d]);
        stride *= repeats[d];
    }
    IndexExpr thread = substitute(m_thread, inner);
    std::vector<IndexExpr> index;
    for (const IndexExpr& e : m_index)
        index.push_back(substitute(e, inner));
    if (repeatOnThread)
        thread = thread + IndexExpr(threadExtent()) * q;
    else
        index[0] = index[0] + IndexExpr(registersPerThread()) * q;
    Fragment result(shape, thread, index, m_replicate);
    result.m_threadRange = std::nullopt;
    return result;
}

Fragment Fragment::replicate(int64_t factor) const {
    factor = std::max<int64_t>(factor, 1);
    int64_t total = m_replicate * factor;
    IndexExpr rep = IndexExpr::var(replicateVarName(), total);
    std::map<std::string, IndexExpr> replacements{{replicateVarName(), floorMod(rep, m_replicate)}};
    IndexExpr thread =
        substitute(m_thread, replacements) + IndexExpr(threadExtent()) * floorDiv(rep, m_replicate);
    return Fragment(m_inputShape, thread, m_index, total);
}

Fragment Fragment::bindThreadRange(int64_t begin, int64_t extent) const {
    Fragment result = *this;
    result.m_threadRange = ThreadRange{begin, extent};
    return result;
}

Fragment Fragment::permuteInputs(const std::vector<size_t>& order) const {
    if (order.size() != m_inputShape.size())
        return *this;
    std::vector<int64_t> shape(order.size());
    for (size_t d = 0; d < order.size(); ++d) {
        if (order[d] >= order.size())
            return *this;
        shape[d] = m_inputShape[order[d]];
    }
    std::map<std::string, IndexExpr> replacements;
    for (size_t d = 0; d < order.size(); ++d)
        replacements[inputVarName(order[d])] = IndexExpr::var(inputVarName(d), shape[d]);
    std::vector<IndexExpr> index;
    for (const IndexExpr& e : m_index)
        index.push_back(substitute(e, replacements));
    Fragment result(shape, substitute(m_thread, replacements), index, m_replicate);
    result.m_threadRange = m_threadRange;
    return result;
}

std::string Fragment::toString() const {
    std::string out =
        "Fragment(shape=" + shapeToString(m_inputShape) + ", thread=" + m_thread.toString() + ", index=[";
    for (size_t k = 0; k < m_index.size(); ++k)
        out += (k ? ", " : "") + m_index[k].toString();
    out += "], replicate=" + std::to_string(m_replicate);
    if (m_threadRange)
        out += ", threads=[" + std::to_string(m_threadRange->begin) + ", " +
               std::to_string(m_threadRange->begin + m_threadRange->extent) + ")";
    return out + ")";
}

} // namespace tb::layout
