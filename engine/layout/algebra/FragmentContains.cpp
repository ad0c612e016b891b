// Containment of fragments by enumeration over small's elements and replicas.
#include "engine/layout/algebra/FragmentContains.h"

#include "engine/layout/algebra/Enumeration.h"
#include "engine/layout/algebra/FragmentTable.h"

#include <algorithm>

namespace tb::layout {

LayoutResult<ContainmentResult> fragmentContains(const Fragment& small, const Fragment& large,
                                                 bool checkRegisterIndex) {
    return fragmentContains(small, large, Layout(small.inputShape(), small.inputVars()), checkRegisterIndex);
}

LayoutResult<ContainmentResult> fragmentContains(const Fragment& small, const Fragment& large,
                                                 const Layout& access, bool checkRegisterIndex) {
    if (access.inputShape() != small.inputShape() ||
        access.forwardIndex().size() != large.inputShape().size())
        return layoutError(
            "fragment-access-shape",
            "the access map takes " + shapeToString(access.inputShape()) + " to " +
                std::to_string(access.forwardIndex().size()) + " indices, but the fragments have shapes " +
                shapeToString(small.inputShape()) + " and " + shapeToString(large.inputShape()),
            "the access map goes from the small fragment's shape to the large fragment's shape");
    LayoutResult<FragmentTable> smallTable = tabulateFragment(small);
    if (!smallTable)
        return smallTable.error();
    LayoutResult<FragmentTable> largeTable = tabulateFragment(large);
    if (!largeTable)
        return largeTable.error();
    int64_t smallBegin = small.threadRange() ? small.threadRange()->begin : 0;
    int64_t largeBegin = large.threadRange() ? large.threadRange()->begin : 0;
    // Resolve the access map first, so that an out-of-range access is reported even when an earlier
    // element would already fail containment.
    detail::CompiledExprs accessExprs(access.forwardIndex(), detail::varNamesFor(access.inputShape().size()));
    std::vector<int64_t> targets;
    targets.reserve(size_t(small.inputSize()));
    detail::PointCounter counter(small.inputShape());
    std::vector<int64_t> target;
    do {
        if (!accessExprs.evaluate(counter.point().data(), target))
            return detail::evaluationFailed("the access map", counter.point());
        int64_t largeElement = detail::linearIndex(target, large.inputShape());
        if (largeElement < 0)
            return layoutError("fragment-access-out-of-range",
                               "the access map sends an element outside the large fragment's shape " +
                                   shapeToString(large.inputShape()));
        targets.push_back(largeElement);
    } while (counter.next());
    detail::PointCounter walk(small.inputShape());
    int64_t element = 0;
    std::vector<int64_t> holders;
    do {
        int64_t largeElement = targets[size_t(element)];
        holders.clear();
        for (int64_t r = 0; r < largeTable->replicate; ++r)
            holders.push_back(largeBegin + largeTable->at(largeElement, r).thread);
        std::sort(holders.begin(), holders.end());
        for (int64_t r = 0; r < smallTable->replicate; ++r) {
            const FragmentCell& cell = smallTable->at(element, r);
            int64_t thread = smallBegin + cell.thread;
            ContainmentResult failure;
            failure.contains = false;
            failure.element = walk.point();
            failure.thread = thread;
            if (!std::binary_search(holders.begin(), holders.end(), thread)) {
                failure.reason =
                    "thread " + std::to_string(thread) + " reads the element but does not hold it";
                return failure;
            }
            if (checkRegisterIndex && cell.reg != largeTable->at(largeElement, 0).reg) {
                failure.reason = "register " + std::to_string(cell.reg) +
                                 " differs from the holder's register " +
                                 std::to_string(largeTable->at(largeElement, 0).reg);
                return failure;
            }
        }
        ++element;
    } while (walk.next());
    return ContainmentResult{};
}

} // namespace tb::layout
