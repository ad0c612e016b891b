// Thread maps of fragments and loop plans for the emitter; see ThreadMap.h.
#include "engine/codegen/ThreadMap.h"

#include "engine/layout/algebra/FragmentTable.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tb::codegen {

using layout::IndexExpr;

CompiledFragment::CompiledFragment(const layout::Fragment& fragment) {
    m_shape = fragment.inputShape();
    m_rank = m_shape.size();
    m_replicate = fragment.replicateExtent();
    m_indexShape = fragment.indexShape();
    m_registers = fragment.registersPerThread();
    std::vector<std::string> order;
    for (size_t d = 0; d < m_rank; ++d)
        order.push_back(layout::inputVarName(d));
    order.push_back(layout::Fragment::replicateVarName());
    m_thread = layout::CompiledIndexExpr(fragment.threadExpr(), order);
    m_valid = m_thread.valid();
    for (const IndexExpr& e : fragment.indexExprs()) {
        m_index.emplace_back(e, order);
        m_valid = m_valid && m_index.back().valid();
    }
    if (m_valid)
        if (auto table = layout::tabulateFragment(fragment))
            m_table = std::move(table.value());
}

std::optional<int64_t> CompiledFragment::linearOf(const std::vector<int64_t>& point) const {
    if (point.size() != m_rank)
        return std::nullopt;
    int64_t linear = 0;
    for (size_t d = 0; d < m_rank; ++d) {
        if (point[d] < 0 || point[d] >= m_shape[d])
            return std::nullopt;
        linear = linear * m_shape[d] + point[d];
    }
    return linear;
}

std::optional<int64_t> CompiledFragment::registerOf(const std::vector<int64_t>& point) const {
    if (!m_valid || point.size() != m_rank)
        return std::nullopt;
    if (m_table) {
        auto linear = linearOf(point);
        return linear ? std::optional<int64_t>(m_table->at(*linear).reg) : std::nullopt;
    }
    std::vector<int64_t> slots(point);
    slots.push_back(0);
    for (size_t d = 0; d < m_rank; ++d)
        if (point[d] < 0 || point[d] >= m_shape[d])
            return std::nullopt;
    int64_t linear = 0;
    for (size_t k = 0; k < m_index.size(); ++k) {
        auto v = m_index[k].evaluate(slots.data());
        if (!v)
            return std::nullopt;
        linear = linear * m_indexShape[k] + *v;
    }
    return linear;
}

std::optional<int64_t> CompiledFragment::threadOf(const std::vector<int64_t>& point, int64_t rep) const {
    if (!m_valid || point.size() != m_rank)
        return std::nullopt;
    if (m_table && rep >= 0 && rep < m_replicate) {
        // Outside the shape the expressions still give a thread (callers ask only inside it).
        if (auto linear = linearOf(point))
            return m_table->at(*linear, rep).thread;
    }
    std::vector<int64_t> slots(point);
    slots.push_back(rep);
    return m_thread.evaluate(slots.data());
}

bool CompiledFragment::heldBy(const std::vector<int64_t>& point, int64_t thread) const {
    for (int64_t rep = 0; rep < m_replicate; ++rep)
        if (threadOf(point, rep) == thread)
            return true;
    return false;
}

std::vector<int64_t> ThreadMap::point(int64_t t, int64_t r) const {
    int64_t e = element[size_t(t * regs + r)];
    if (e < 0)
        return {};
    std::vector<int64_t> p(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        p[d] = e % shape[d];
        e /= shape[d];
    }
    return p;
}

namespace {

// The vector of the PlanLoopPartition whose element every slot of the map holds (see BitFit::Partition); with
// `partialRound`, slots past the tile are empty. nullopt when the map is no such partition.
std::optional<int64_t> partitionVector(const ThreadMap& map, int64_t total, bool partialRound) {
    for (int64_t vector : {1, 2, 4, 8, 16}) {
        if (map.regs % vector != 0)
            continue;
        bool all = true;
        for (int64_t t = 0; t < map.threads && all; ++t)
            for (int64_t r = 0; r < map.regs && all; ++r) {
                int64_t flat = ((r / vector) * map.threads + t) * vector + r % vector;
                int64_t held = partialRound && flat >= total ? -1 : flat;
                all = map.element[size_t(t * map.regs + r)] == held;
            }
        if (all)
            return vector;
    }
    return std::nullopt;
}

int64_t elementCount(const std::vector<int64_t>& shape) {
    int64_t total = 1;
    for (int64_t e : shape)
        total *= e;
    return total;
}

// The partition form of coordinate d (BitFit::Partition).
BitFit partitionCoordinate(const ThreadMap& map, int64_t vector, size_t d) {
    int64_t stride = 1;
    for (size_t k = d + 1; k < map.shape.size(); ++k)
        stride *= map.shape[k];
    BitFit fit;
    fit.ok = true;
    fit.partition = BitFit::Partition{map.threads, vector, stride, map.shape[d]};
    return fit;
}

// Gives the coordinates bit fields could not express their partition form, when the map is a partition.
void fitPartition(ThreadMap& map) {
    std::optional<int64_t> vector = partitionVector(map, elementCount(map.shape), /*partialRound=*/false);
    if (!vector)
        return;
    for (size_t d = 0; d < map.shape.size(); ++d)
        if (!map.coords[d].ok)
            map.coords[d] = partitionCoordinate(map, *vector, d);
    map.fitted = true;
}

// A partition whose last round leaves some slots empty: every coordinate in its partition form, and the
// guard of the slots that hold an element (partialRoundGuard).
void fitPartialPartition(ThreadMap& map) {
    const int64_t total = elementCount(map.shape);
    std::optional<int64_t> vector = partitionVector(map, total, /*partialRound=*/true);
    if (!vector)
        return;
    map.coords.clear();
    for (size_t d = 0; d < map.shape.size(); ++d)
        map.coords.push_back(partitionCoordinate(map, *vector, d));
    map.partialPartition = true;
    map.partitionElements = total;
    map.partitionVector = *vector;
}

} // namespace

std::string ThreadMap::partialRoundGuard(const std::string& threadName, const std::string& regName) const {
    return BitFit::Partition::flatC(threads, partitionVector, threadName, regName) + " < " +
           std::to_string(partitionElements);
}

layout::LayoutResult<ThreadMap> buildThreadMap(const layout::Fragment& fragment) {
    auto inverse = layout::inverseFragment(fragment);
    if (!inverse)
        return inverse.error();
    return buildThreadMap(fragment, inverse.value());
}

ThreadMap buildThreadMap(const layout::Fragment& fragment, const layout::FragmentInverseTable& table) {
    ThreadMap map;
    map.shape = fragment.inputShape();
    map.threads = table.threads;
    map.regs = table.registers;
    map.replicate = fragment.replicateExtent();
    map.element = table.element;
    map.rep = table.rep;
    for (int64_t e : map.element)
        map.hasHoles = map.hasHoles || e < 0;
    if (map.hasHoles && map.replicate == 1 && map.threads >= 1 && map.regs >= 1)
        fitPartialPartition(map);
    if (map.hasHoles || map.threads < 1 || map.regs < 1)
        return map;
    size_t rank = map.shape.size();
    std::vector<std::vector<std::optional<int64_t>>> values(rank + 1);
    for (auto& v : values)
        v.resize(size_t(map.threads * map.regs));
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t r = 0; r < map.regs; ++r) {
            std::vector<int64_t> p = map.point(t, r);
            for (size_t d = 0; d < rank; ++d)
                values[d][size_t(t * map.regs + r)] = p[d];
            values[rank][size_t(t * map.regs + r)] = map.rep[size_t(t * map.regs + r)];
        }
    map.fitted = true;
    for (size_t d = 0; d < rank; ++d) {
        map.coords.push_back(fitOverBits(values[d], map.threads, map.regs));
        map.fitted = map.fitted && map.coords.back().ok;
    }
    map.repFit = fitOverBits(values[rank], map.threads, map.regs);
    map.fitted = map.fitted && map.repFit.ok;
    if (!map.fitted && map.replicate == 1 && map.repFit.ok)
        fitPartition(map);
    return map;
}

layout::Fragment defaultPartition(const std::vector<int64_t>& shape, int64_t threads, int64_t vector) {
    std::vector<IndexExpr> vars = layout::inputVarsFor(shape);
    IndexExpr flat = 0;
    for (size_t d = 0; d < shape.size(); ++d)
        flat = flat * shape[d] + vars[d];
    if (vector < 1)
        vector = 1;
    int64_t total = layout::shapeSize(shape);
    if (threads < 1)
        threads = 1;
    // Fewer elements than threads: the map only covers the threads it needs.
    int64_t groups = (total + vector - 1) / vector;
    int64_t used = std::min(threads, groups);
    IndexExpr thread = layout::floorMod(layout::floorDiv(flat, vector), used);
    IndexExpr index = layout::floorDiv(flat, vector * used) * vector + layout::floorMod(flat, vector);
    return layout::Fragment(shape, thread, {index});
}

} // namespace tb::codegen
