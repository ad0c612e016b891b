#include "engine/layout/algebra/LayoutTranslation.h"

#include <vector>

namespace tb::layout {

std::optional<int64_t> translationStride(const Layout& layout, size_t dim, int64_t step) {
    const std::vector<int64_t>& shape = layout.inputShape();
    if (dim >= shape.size() || step < 1)
        return std::nullopt;
    if (step >= shape[dim])
        return int64_t(0); // no start but 0 fits
    std::optional<std::vector<int64_t>> table = layout.offsetTable();
    if (!table)
        return std::nullopt;
    // Row-major: `step` along `dim` is step * inner entries further on, inside blocks of shape[dim] * inner.
    int64_t inner = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d)
        inner *= shape[d];
    const int64_t block = shape[dim] * inner;
    const int64_t jump = step * inner;
    const int64_t stride = (*table)[size_t(jump)] - (*table)[0];
    for (int64_t i = 0; i < int64_t(table->size()); ++i) {
        if ((i % block) / inner + step >= shape[dim])
            continue; // no successor inside the shape
        if ((*table)[size_t(i + jump)] - (*table)[size_t(i)] != stride)
            return std::nullopt;
    }
    return stride;
}

bool vectorsSurviveRuntimeStart(const Layout& layout, size_t dim, int64_t step, int64_t vector) {
    std::optional<int64_t> stride = translationStride(layout, dim, step);
    return stride && vector > 0 && *stride % vector == 0;
}

} // namespace tb::layout
