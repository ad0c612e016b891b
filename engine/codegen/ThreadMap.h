// The per-thread view of a fragment-shaped map (a fragment's layout, a T.Parallel loop plan, a copy's thread
// map): for every (thread, register) slot the logical element it holds, and, when the map is regular, each
// coordinate as C code in the thread index and the register number (BitFit.h). The kernel emitter walks a
// thread's registers with it, and evaluates other fragments' register slots at the same points to turn
// fragment accesses into constant register indices.
#pragma once

#include "engine/codegen/BitFit.h"
#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/LayoutResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

// A fragment's thread and register of any point: from its table (every element and replica, built once by
// column evaluation) when the fragment tabulates, else from its expressions flattened for fast evaluation.
class CompiledFragment {
public:
    CompiledFragment() = default;
    explicit CompiledFragment(const layout::Fragment& fragment);
    bool valid() const { return m_valid; }
    int64_t replicate() const { return m_replicate; }
    int64_t registers() const { return m_registers; }
    size_t rank() const { return m_rank; }
    // Row-major register slot of a logical point (nullopt outside the shape or on evaluation failure).
    std::optional<int64_t> registerOf(const std::vector<int64_t>& point) const;
    std::optional<int64_t> threadOf(const std::vector<int64_t>& point, int64_t rep) const;
    // True when some replica of `point` lives in thread t.
    bool heldBy(const std::vector<int64_t>& point, int64_t thread) const;

private:
    bool m_valid = false;
    size_t m_rank = 0;
    int64_t m_replicate = 1;
    int64_t m_registers = 0;
    std::vector<int64_t> m_shape;
    std::vector<int64_t> m_indexShape;
    layout::CompiledIndexExpr m_thread;
    std::vector<layout::CompiledIndexExpr> m_index;
    std::optional<layout::FragmentTable> m_table;
    // Row-major linear index of an in-shape point; nullopt outside the shape.
    std::optional<int64_t> linearOf(const std::vector<int64_t>& point) const;
};

struct ThreadMap {
    std::vector<int64_t> shape; // the logical domain
    int64_t threads = 0;        // thread extent of the map
    int64_t regs = 0;           // register slots per thread
    int64_t replicate = 1;
    std::vector<int64_t> element; // [t * regs + r] -> linear element, -1 for an unused slot
    std::vector<int64_t> rep;     // the replica that holds it
    bool hasHoles = false;
    bool fitted = false; // every coordinate (and rep) has a BitFit
    std::vector<BitFit> coords;
    BitFit repFit;
    // A PlanLoopPartition whose last round is partial (64 x 512 over 384 threads): not `fitted` (a slot may
    // be empty), but its coordinates are partition forms and partialRoundGuard says which slots hold one.
    bool partialPartition = false;
    int64_t partitionElements = 0, partitionVector = 1;

    // C for "slot (t, r) holds an element" of a partial partition: its flat index is inside the tile.
    std::string partialRoundGuard(const std::string& threadName, const std::string& regName) const;

    // The logical point of slot (t, r); empty when unused.
    std::vector<int64_t> point(int64_t t, int64_t r) const;
};

layout::LayoutResult<ThreadMap> buildThreadMap(const layout::Fragment& fragment);
// The same from the fragment's inverse table when the caller already has it.
ThreadMap buildThreadMap(const layout::Fragment& fragment, const layout::FragmentInverseTable& inverse);

// TileLang's PlanLoopPartition (reference §5.4) as a Fragment: flatten row-major, consecutive groups of
// `vector` elements go to consecutive threads, wrapping around `threads`.
layout::Fragment defaultPartition(const std::vector<int64_t>& shape, int64_t threads, int64_t vector);

} // namespace tb::codegen
