// Fragment: how a block tile is distributed over the registers of a thread block. Logical element x (over
// the placeholders i, j, ...) is held by the R threads thread(x, rep) for rep in [0, R) (R = replicate
// extent; the variable `rep` may appear in the thread expression only), each at register slot index(x).
// R > 1 means the same value lives in R threads (the A operand of an MMA across the N warps, a row statistic
// in the 4 lanes that share a row). This is TileLang's Fragment (reference §2.2).
//
// Repeat and replicate are the two ways a fragment grows; the GEMM fragments (GemmFragments.h) are built
// from one instruction atom with them. Enumeration-based operations (tables, inverse, equality, containment)
// live in FragmentTable.h, LayoutEquality.h and FragmentContains.h.
#pragma once

#include "engine/layout/algebra/IndexExpr.h"
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tb::layout {

// The threadIdx range a fragment lives in (warp-specialised branches start at e.g. 128).
struct ThreadRange {
    int64_t begin = 0;
    int64_t extent = 0;
};

class Fragment {
public:
    Fragment() = default;
    // Pre: extents >= 1, replicate >= 1; `thread` uses the placeholders of inputShape and `rep`; `index` uses
    // the placeholders only. Post: expressions re-bound to the shape's extents and simplified.
    Fragment(std::vector<int64_t> inputShape, IndexExpr thread, std::vector<IndexExpr> index,
             int64_t replicate = 1);
    // Example (mma m16n8 fp32 accumulator):
    //   Fragment::fromFunctions({16, 8}, [](auto v, auto) { return 4 * floorMod(v[0], 8) + floorDiv(v[1], 2);
    //   },
    //                           [](auto v) { return std::vector<IndexExpr>{floorMod(v[1], 2) + 2 *
    //                           floorDiv(v[0], 8)}; });
    static Fragment fromFunctions(
        std::vector<int64_t> inputShape,
        const std::function<IndexExpr(const std::vector<IndexExpr>&, const IndexExpr& rep)>& threadFn,
        const std::function<std::vector<IndexExpr>(const std::vector<IndexExpr>&)>& indexFn,
        int64_t replicate = 1);
    // Every one of `threads` threads holds every element: thread = rep, R = threads, index = flat index.
    static Fragment fullyReplicated(std::vector<int64_t> shape, int64_t threads);
    static std::string replicateVarName() { return "rep"; }

    const std::vector<int64_t>& inputShape() const { return m_inputShape; }
    const IndexExpr& threadExpr() const { return m_thread; }
    const std::vector<IndexExpr>& indexExprs() const { return m_index; }
    int64_t replicateExtent() const { return m_replicate; }
    const std::optional<ThreadRange>& threadRange() const { return m_threadRange; }
    IndexExpr replicateVar() const { return IndexExpr::var(replicateVarName(), m_replicate); }
    std::vector<IndexExpr> inputVars() const { return inputVarsFor(m_inputShape); }

    int64_t threadExtent() const;            // max(thread)+1 by interval bounds
    std::vector<int64_t> indexShape() const; // max+1 of each index expression
    int64_t registersPerThread() const;      // product of indexShape()
    int64_t inputSize() const { return shapeSize(m_inputShape); }
    // The index map alone as a Layout (x -> register index tuple).
    Layout indexLayout() const { return Layout(m_inputShape, m_index); }

    // Owner of `point` for replica `rep` (relative to the thread range), nullopt when outside the domain.
    std::optional<int64_t> threadOf(const std::vector<int64_t>& point, int64_t rep = 0) const;
    // Row-major linear register slot of `point`.
    std::optional<int64_t> registerOf(const std::vector<int64_t>& point) const;

    // TileLang's Repeat: the new shape is s_d * r_d; the old maps apply to x_d % s_d and the block coordinate
    // q = mixed-radix number of (x_d // s_d) — the LAST dimension varies fastest when lowerDimFirst, else the
    // FIRST. repeatOnThread: thread += threadExtent * q (more threads); otherwise index += registers * q
    // (more registers per thread; pre: 1-D index, error "fragment-repeat-index-rank"). Example: the 16x8 mma
    // accumulator repeated {1, 2} on registers is the 16x16 atom with 8 registers, index = j%2 + 2*(i//8) +
    // 4*(j//8).
    LayoutResult<Fragment> repeat(const std::vector<int64_t>& repeats, bool repeatOnThread,
                                  bool lowerDimFirst) const;
    // R' = R * r; thread' = thread(x, rep % R) + threadExtent * (rep // R): new threads hold copies.
    Fragment replicate(int64_t factor) const;
    Fragment bindThreadRange(int64_t begin, int64_t extent) const;
    // New dimension d is old dimension order[d] (a transpose for order {1, 0}). Pre: order is a permutation.
    Fragment permuteInputs(const std::vector<size_t>& order) const;

    // Canonical text: "Fragment(shape=[16, 8], thread=4*(i%8) + (j%8)//2, index=[j%2 + 2*(i//8)],
    // replicate=1)" with ", threads=[128, 256)" appended when a thread range is bound.
    std::string toString() const;

private:
    std::vector<int64_t> m_inputShape;
    IndexExpr m_thread;
    std::vector<IndexExpr> m_index;
    int64_t m_replicate = 1;
    std::optional<ThreadRange> m_threadRange;
};

} // namespace tb::layout
