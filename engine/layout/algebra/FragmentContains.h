// Fragment containment, TileLang's ProveFragmentContains (reference §2.3): "every thread that accesses an
// element through `small` also holds that element under `large`". Layout inference uses it to decide
// whether a buffer's fragment can serve a loop or another op's fragment. TileBench decides it by exact
// enumeration, and on failure returns the first counterexample so that a diagnostic can name it.
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::layout {

struct ContainmentResult {
    bool contains = true;
    // The first failing case (empty when contains): the element of `small`, the thread that reads it
    // (absolute when a thread range is bound), and why.
    std::vector<int64_t> element;
    int64_t thread = -1;
    std::string reason;
};

// Same logical shape on both sides. With checkRegisterIndex the register index of each element must also
// agree. Threads are compared as absolute thread ids (thread range begin + thread).
// Example: a 4-lane row-replicated row statistic is contained in the mma accumulator fragment of its rows.
LayoutResult<ContainmentResult> fragmentContains(const Fragment& small, const Fragment& large,
                                                 bool checkRegisterIndex = false);

// `access` maps small's logical index to large's logical index (the loop index -> buffer index of a
// T.Parallel body). Pre: access's input shape is small's shape and it has one output per dimension of
// large; errors "fragment-access-shape" and "fragment-access-out-of-range".
LayoutResult<ContainmentResult> fragmentContains(const Fragment& small, const Fragment& large,
                                                 const Layout& access, bool checkRegisterIndex = false);

} // namespace tb::layout
