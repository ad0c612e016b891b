// Concrete tables of a fragment, for views and checks: element -> (thread, register) for every replica, and
// the inverse (thread, register) -> (element, replica) that loop partitioning needs. Built by exact
// enumeration; domains over kMaxEnumerationPoints are refused with "layout-domain-too-large".
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::layout {

struct FragmentCell {
    int64_t thread = 0; // relative to the fragment's thread range
    int64_t reg = 0;    // row-major linear register slot
};

struct FragmentTable {
    std::vector<int64_t> inputShape;
    int64_t replicate = 1;
    int64_t threadExtent = 0;
    int64_t registers = 0;           // per thread
    std::vector<FragmentCell> cells; // [linearElement * replicate + rep]

    const FragmentCell& at(int64_t linearElement, int64_t rep = 0) const {
        return cells[size_t(linearElement * replicate + rep)];
    }
};

// Post: every thread in [0, threadExtent) and register in [0, registers) — otherwise error
// "fragment-out-of-range". Example: the m16n8 accumulator's element (9, 3) is thread 5, register 3.
// Kept by canonical text in a process-wide memo (TableMemo.h); tabulateFragmentUncached builds it anew.
LayoutResult<FragmentTable> tabulateFragment(const Fragment& fragment);
LayoutResult<FragmentTable> tabulateFragmentUncached(const Fragment& fragment);

struct FragmentInverseTable {
    std::vector<int64_t> inputShape;
    int64_t threads = 0;
    int64_t registers = 0;
    std::vector<int64_t> element; // [thread * registers + reg] -> linear element, -1 when the slot is unused
    std::vector<int64_t> rep;     // the replica that put the element there

    std::optional<std::pair<std::vector<int64_t>, int64_t>> logicalOf(int64_t thread, int64_t reg) const;
    // Slots that hold no element (idle registers).
    int64_t unusedSlots() const;
};

// Inverse of [x..., rep] -> [register, thread]. Pre: no two (element, replica) pairs share a (thread,
// register) slot; error "fragment-not-injective" names both.
LayoutResult<FragmentInverseTable> inverseFragment(const Fragment& fragment);

// A 2-D grid (leading dimensions flattened into rows) with "T<thread>:<register>" in each cell for replica 0;
// a header line gives the shape, thread extent, registers per thread and replicate extent.
std::string printFragmentTable(const Fragment& fragment);

} // namespace tb::layout
