// Enumeration-based equality of layouts and fragments.
#include "engine/layout/algebra/LayoutEquality.h"

#include "engine/layout/algebra/Enumeration.h"
#include "engine/layout/algebra/FragmentTable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::layout {

LayoutResult<bool> layoutsEqual(const Layout& a, const Layout& b) {
    if (a.inputShape() != b.inputShape() || a.forwardIndex().size() != b.forwardIndex().size())
        return false;
    if (auto error = detail::checkDomain(a.inputSize(), "the layout"))
        return *error;
    std::vector<std::string> names = detail::varNamesFor(a.inputShape().size());
    detail::CompiledExprs ca(a.forwardIndex(), names), cb(b.forwardIndex(), names);
    detail::PointCounter counter(a.inputShape());
    std::vector<int64_t> va, vb;
    do {
        bool okA = ca.evaluate(counter.point().data(), va);
        bool okB = cb.evaluate(counter.point().data(), vb);
        if (!okA || !okB)
            return detail::evaluationFailed(okA ? "the second layout" : "the first layout", counter.point());
        if (va != vb)
            return false;
    } while (counter.next());
    return true;
}

LayoutResult<bool> fragmentsEqual(const Fragment& a, const Fragment& b) {
    if (a.inputShape() != b.inputShape() || a.replicateExtent() != b.replicateExtent() ||
        a.threadExtent() != b.threadExtent() || a.indexShape() != b.indexShape())
        return false;
    LayoutResult<FragmentTable> ta = tabulateFragment(a);
    if (!ta)
        return ta.error();
    LayoutResult<FragmentTable> tb = tabulateFragment(b);
    if (!tb)
        return tb.error();
    for (size_t c = 0; c < ta->cells.size(); ++c)
        if (ta->cells[c].thread != tb->cells[c].thread || ta->cells[c].reg != tb->cells[c].reg)
            return false;
    return true;
}

} // namespace tb::layout
