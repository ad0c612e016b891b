// Enumeration-based inverse, injectivity and bijectivity of layouts.
#include "engine/layout/algebra/LayoutInverse.h"

#include "engine/layout/algebra/Enumeration.h"

#include <algorithm>
#include <string>
#include <utility>

namespace tb::layout {

std::optional<std::vector<int64_t>> InverseTable::logicalOf(const std::vector<int64_t>& physical) const {
    int64_t flat = detail::linearIndex(physical, outputShape);
    if (flat < 0 || preimage[size_t(flat)] < 0)
        return std::nullopt;
    return detail::unflatten(preimage[size_t(flat)], inputShape);
}

bool InverseTable::surjective() const {
    return std::all_of(preimage.begin(), preimage.end(), [](int64_t p) { return p >= 0; });
}

namespace {

// Builds the table; `collision` receives the first pair of logical points sharing a physical point.
LayoutResult<InverseTable> buildTable(const Layout& layout,
                                      std::optional<std::pair<int64_t, int64_t>>& collision) {
    if (auto error = detail::checkDomain(layout.inputSize(), "the layout's logical domain"))
        return *error;
    InverseTable table;
    table.inputShape = layout.inputShape();
    table.outputShape = layout.outputShape();
    if (auto error = detail::checkDomain(shapeSize(table.outputShape), "the layout's physical domain"))
        return *error;
    table.preimage.assign(size_t(shapeSize(table.outputShape)), -1);
    detail::CompiledExprs compiled(layout.forwardIndex(), detail::varNamesFor(table.inputShape.size()));
    detail::PointCounter counter(table.inputShape);
    std::vector<int64_t> physical;
    int64_t logical = 0;
    do {
        if (!compiled.evaluate(counter.point().data(), physical))
            return detail::evaluationFailed("the layout", counter.point());
        int64_t flat = detail::linearIndex(physical, table.outputShape);
        if (flat < 0)
            return layoutError("layout-out-of-range",
                               "the layout maps " + detail::pointText(counter.point()) + " to " +
                                   detail::pointText(physical) + ", outside its output shape " +
                                   shapeToString(table.outputShape));
        int64_t& slot = table.preimage[size_t(flat)];
        if (slot >= 0 && !collision)
            collision = std::make_pair(slot, logical);
        if (slot < 0)
            slot = logical;
        ++logical;
    } while (counter.next());
    return table;
}

} // namespace

LayoutResult<InverseTable> inverseLayout(const Layout& layout) {
    std::optional<std::pair<int64_t, int64_t>> collision;
    LayoutResult<InverseTable> table = buildTable(layout, collision);
    if (table && collision) {
        std::vector<int64_t> a = detail::unflatten(collision->first, layout.inputShape());
        std::vector<int64_t> b = detail::unflatten(collision->second, layout.inputShape());
        return layoutError("layout-not-injective",
                           "the layout is not invertible: " + detail::pointText(a) + " and " +
                               detail::pointText(b) + " map to the same physical index " +
                               detail::pointText(*layout.apply(a)),
                           "only injective layouts have an inverse");
    }
    return table;
}

LayoutResult<bool> isInjective(const Layout& layout) {
    std::optional<std::pair<int64_t, int64_t>> collision;
    LayoutResult<InverseTable> table = buildTable(layout, collision);
    if (!table)
        return table.error();
    return !collision.has_value();
}

LayoutResult<bool> isBijective(const Layout& layout) {
    std::optional<std::pair<int64_t, int64_t>> collision;
    LayoutResult<InverseTable> table = buildTable(layout, collision);
    if (!table)
        return table.error();
    return !collision && table->surjective();
}

} // namespace tb::layout
