// Layout: a pure function from an n-D logical index to an m-D physical index, written as IndexExprs over the
// placeholder variables i, j, k, l, i4, i5, ... (placeholder d ranges over [0, inputShape[d])). The physical
// side's shape is max+1 of each output expression (interval bounds), and the linear offset is the
// row-major linearisation of the output tuple over that shape, as in TileLang's Layout.
//
// Layouts are values; every operation returns a new one with simplified expressions. Enumeration-based
// operations (inverse, equality) live in LayoutInverse.h and LayoutEquality.h.
#pragma once

#include "engine/layout/algebra/IndexExpr.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tb::layout {

// Name of placeholder d: i, j, k, l for the first four dimensions, then i4, i5, ...
std::string inputVarName(size_t dim);
// The placeholder variables of a shape, each with its extent.
std::vector<IndexExpr> inputVarsFor(const std::vector<int64_t>& shape);
int64_t shapeSize(const std::vector<int64_t>& shape); // product; saturates at kUnboundedIndex
std::string shapeToString(const std::vector<int64_t>& shape);

class Layout {
public:
    Layout() = default;
    // Pre: every extent >= 1; `forward` uses only the placeholders of `inputShape` (their extents are
    // re-bound from the shape). Post: forward expressions are simplified.
    Layout(std::vector<int64_t> inputShape, std::vector<IndexExpr> forward);
    // Example: Layout::fromFunction({8, 8}, [](auto v) { return {v[0] * 8 + v[1]}; }) is the 8x8 row-major
    // layout, printed "Layout(shape=[8, 8], forward=[8*i + j])".
    static Layout
    fromFunction(std::vector<int64_t> inputShape,
                 const std::function<std::vector<IndexExpr>(const std::vector<IndexExpr>&)>& fn);
    // forward = [row-major flat index]. Example: linear({4, 8}) maps (i, j) to 8*i + j.
    static Layout linear(std::vector<int64_t> shape);

    const std::vector<int64_t>& inputShape() const { return m_inputShape; }
    const std::vector<IndexExpr>& forwardIndex() const { return m_forward; }
    std::vector<IndexExpr> inputVars() const { return inputVarsFor(m_inputShape); }
    // max+1 of each output expression by interval analysis.
    std::vector<int64_t> outputShape() const;
    int64_t inputSize() const { return shapeSize(m_inputShape); }
    int64_t outputSize() const { return shapeSize(outputShape()); }

    // The physical index of a logical point; nullopt when the point is outside the input shape or
    // evaluation fails (division by zero, overflow).
    std::optional<std::vector<int64_t>> apply(const std::vector<int64_t>& point) const;
    // Row-major linearisation of apply(point) over outputShape().
    std::optional<int64_t> offset(const std::vector<int64_t>& point) const;
    // offset(point) for every point of the input shape in row-major order, with the expressions compiled
    // once (offset() recompiles per call: use this for whole tables). nullopt when any point fails. Kept
    // by canonical text in a process-wide memo (TableMemo.h).
    std::optional<std::vector<int64_t>> offsetTable() const;
    // Substitutes actual index expressions. When more indices than input dimensions are given, the extra
    // leading ones pass through unchanged (a pipeline stage prefixed to a 2-D swizzle).
    std::vector<IndexExpr> forward(const std::vector<IndexExpr>& indices) const;

    // Tiles dimension `dim` `factor` times: new extent s*factor, the old map applies to i % s and a new
    // leading output dimension i // s is added. Pre: dim < rank, factor >= 1.
    Layout repeat(size_t dim, int64_t factor) const;
    // Prepends pass-through dimensions: (a, b, i, j) -> (a, b, f(i, j)...).
    Layout expand(const std::vector<int64_t>& leadingShape) const;
    // The same map followed by a row-major flattening of the output into one offset.
    Layout linearized() const;

    // Canonical text: "Layout(shape=[8, 8], forward=[8*i + j])".
    std::string toString() const;

private:
    std::vector<int64_t> m_inputShape;
    std::optional<std::vector<int64_t>> computeOffsetTable() const; // offsetTable() without the memo
    std::vector<IndexExpr> m_forward;
};

// compose(inner, outer) = outer ∘ inner: x -> outer(inner(x)). Pre: outer's rank equals inner's output rank
// and inner's output shape fits in outer's input shape (checked by bounds; error "layout-compose-shape").
// Post: input shape is inner's. Example: compose(linear({4, 8}) as 1-D offsets, a 1-D XOR swizzle) swizzles
// the offsets of a row-major tile.
LayoutResult<Layout> compose(const Layout& inner, const Layout& outer);

// A 2-D table of linear offsets, one text row per logical row (leading dimensions are flattened into rows;
// a 1-D layout prints as one row). Cells are right-aligned. Refuses domains over kMaxEnumerationPoints.
std::string printLayoutTable(const Layout& layout);

} // namespace tb::layout
