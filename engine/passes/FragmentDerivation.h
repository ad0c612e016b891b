// The ways layout inference derives one fragment from another (reference §5.3, §5.4, §5.8):
//  * planLoopPartition: TileLang's PlanLoopPartition, the default thread map of a loop nest (free level);
//  * loopFromAccess: a T.Parallel nest that accesses a known fragment through index expressions adopts
//    the fragment's owners (thread(L) = frag.thread(indices(L))), with loop variables the access does not
//    use becoming extra register dimensions;
//  * projectFragment: drop dimensions of a fragment and replicate each element over every thread that
//    held any element of the dropped dimensions (ComputeReducerLayout, and the row vector `m[i]` read in
//    a loop over (i, j)). The replication is condensed to the bits of the dropped index that change the
//    owner, so the FA row max gets replicate 4, not 64.
// Register indices are compacted (the used bits of a sparse index are packed) so that registers per
// thread match what TileLang allocates.
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb::passes {

// Tables of the fragments a pass looks at, keyed by their canonical text: inference asks the same
// containment questions about the same few fragments (a 64x512 accumulator, its loops, its copies) many
// times, and tabulating is what costs. Containment and injectivity are answered from the tables.
class FragmentTableCache {
public:
    // Null when the fragment cannot be tabulated (too large, out of range).
    const layout::FragmentTable* table(const layout::Fragment& fragment);
    // fragmentContains(small, large[, access]) over cached tables; nullopt when either cannot be tabulated
    // or the access leaves large's domain.
    std::optional<bool> contains(const layout::Fragment& small, const layout::Fragment& large,
                                 const std::optional<layout::Layout>& access = std::nullopt,
                                 bool checkRegisterIndex = false);
    // No two (element, replica) pairs share a (thread, register) slot.
    bool injective(const layout::Fragment& fragment);

private:
    std::map<std::string, std::unique_ptr<layout::FragmentTable>> m_tables;
};

// Row-major flattening f of the loop, a = f // V: thread = a % T, register = (a // T) * V + f % V. When the
// loop has fewer than T groups of V and `replicateToBlock`, the layout is replicated over the idle threads.
// Pre: extents >= 1, vector >= 1, threads >= 1.
layout::Fragment planLoopPartition(const std::vector<int64_t>& extents, int64_t vector, int64_t threads,
                                   bool replicateToBlock);

// TileLang's vector size for a fragment-touching loop: start at `maxVector` and halve until
// (product of extents) % (threads * V) == 0.
int64_t fragmentLoopVector(const std::vector<int64_t>& extents, int64_t maxVector, int64_t threads);

// Loop layout over `loopShape` from a fragment `source` read or written at `access` (one expression per
// dimension of source, over the loop placeholders i, j, ...). Error "loop-layout-not-injective" when two
// iterations would land in one (thread, register) slot.
layout::LayoutResult<layout::Fragment> loopFromAccess(const layout::Fragment& source,
                                                      const std::vector<int64_t>& loopShape,
                                                      const std::vector<layout::IndexExpr>& access,
                                                      FragmentTableCache* cache = nullptr);

// The fragment over source's dimensions `kept` (in that order), each element replicated over the owners
// of the dropped dimensions. Example: the FullRow mma accumulator of acc_s[64, 64] projected on {0} is the
// 64-row vector with replicate 4 (the four lanes of a quad).
layout::LayoutResult<layout::Fragment> projectFragment(const layout::Fragment& source,
                                                       const std::vector<size_t>& kept,
                                                       FragmentTableCache* cache = nullptr);

// TileLang's automatic register index for a fragment given only its thread map (T.Fragment without
// forward_index_fn): the bits of the row-major element number that do not change the owner, packed.
// Falls back to the element number itself (every thread indexes the whole tile) when that is not
// injective or the shape is not a power of two. Pre: thread uses the placeholders of shape and `rep`.
layout::LayoutResult<layout::Fragment> fragmentWithAutomaticIndex(const std::vector<int64_t>& shape,
                                                                  const layout::IndexExpr& thread,
                                                                  int64_t replicate);

// The largest power of two V <= limit dividing the innermost extent such that every aligned run of V
// consecutive innermost elements lives in one thread at consecutive registers (the vector width a
// fragment allows). 1 when the fragment cannot be tabulated.
int64_t contiguousRegisterRun(const layout::Fragment& fragment, int64_t limit,
                              FragmentTableCache* cache = nullptr);

// Packs a sparse register index: when its values over `shape` use only some bits (0, 2, 8, 10), the index
// becomes the number formed by those bits (0, 1, 2, 3). Other expressions are returned unchanged.
layout::IndexExpr compactIndex(const layout::IndexExpr& index, const std::vector<int64_t>& shape);

} // namespace tb::passes
