// Enumeration of fragments into tables, their inverse, and the table printer.
#include "engine/layout/algebra/FragmentTable.h"

#include "engine/layout/algebra/Enumeration.h"
#include "engine/layout/algebra/IndexMath.h"
#include "engine/layout/algebra/TableMemo.h"

#include <algorithm>

namespace tb::layout {

namespace {

// One point at a time: slow, but it names the point where evaluation fails.
LayoutResult<FragmentTable> tabulateFragmentPointwise(const Fragment& fragment) {
    int64_t points = saturatingMul(fragment.inputSize(), fragment.replicateExtent());
    if (auto error = detail::checkDomain(points, "the fragment (elements x replicas)"))
        return *error;
    FragmentTable table;
    table.inputShape = fragment.inputShape();
    table.replicate = fragment.replicateExtent();
    table.threadExtent = fragment.threadExtent();
    table.registers = fragment.registersPerThread();
    std::vector<int64_t> indexShape = fragment.indexShape();
    std::vector<std::string> names = detail::varNamesFor(table.inputShape.size());
    names.push_back(Fragment::replicateVarName());
    CompiledIndexExpr thread(fragment.threadExpr(), names);
    detail::CompiledExprs index(fragment.indexExprs(), names);
    table.cells.reserve(size_t(points));
    detail::PointCounter counter(table.inputShape);
    std::vector<int64_t> slots(names.size(), 0), reg;
    do {
        std::copy(counter.point().begin(), counter.point().end(), slots.begin());
        slots.back() = 0;
        if (!index.evaluate(slots.data(), reg))
            return detail::evaluationFailed("the fragment's register index", counter.point());
        int64_t flatReg = detail::linearIndex(reg, indexShape);
        for (int64_t r = 0; r < table.replicate; ++r) {
            slots.back() = r;
            std::optional<int64_t> t = thread.evaluate(slots.data());
            if (!t)
                return detail::evaluationFailed("the fragment's thread", counter.point());
            if (*t < 0 || *t >= table.threadExtent || flatReg < 0)
                return layoutError("fragment-out-of-range", "element " + detail::pointText(counter.point()) +
                                                                " maps to thread " + std::to_string(*t) +
                                                                " register " + std::to_string(flatReg) +
                                                                ", outside the fragment's bounds");
            table.cells.push_back({*t, flatReg});
        }
    } while (counter.next());
    return table;
}

} // namespace

LayoutResult<FragmentTable> tabulateFragment(const Fragment& fragment) {
    static TableMemo<LayoutResult<FragmentTable>> memo(size_t(128) << 20);
    return *memo.get(
        fragment.toString(), [&] { return tabulateFragmentUncached(fragment); },
        [](const LayoutResult<FragmentTable>& t) { return t ? t->cells.size() * sizeof(FragmentCell) : 0; });
}

LayoutResult<FragmentTable> tabulateFragmentUncached(const Fragment& fragment) {
    int64_t points = saturatingMul(fragment.inputSize(), fragment.replicateExtent());
    if (auto error = detail::checkDomain(points, "the fragment (elements x replicas)"))
        return *error;
    FragmentTable table;
    table.inputShape = fragment.inputShape();
    table.replicate = fragment.replicateExtent();
    table.threadExtent = fragment.threadExtent();
    table.registers = fragment.registersPerThread();
    std::vector<int64_t> indexShape = fragment.indexShape();
    std::vector<std::string> names = detail::varNamesFor(table.inputShape.size());
    names.push_back(Fragment::replicateVarName());
    // Columns over (element, replica) in the table's order, the replica fastest; every expression is
    // then evaluated one operation at a time over all points.
    size_t count = size_t(points);
    std::vector<std::vector<int64_t>> columns(names.size(), std::vector<int64_t>(count));
    for (size_t n = 0; n < count; ++n)
        columns.back()[n] = int64_t(n) % table.replicate;
    int64_t stride = table.replicate;
    for (size_t d = table.inputShape.size(); d-- > 0;) {
        for (size_t n = 0; n < count; ++n)
            columns[d][n] = (int64_t(n) / stride) % table.inputShape[d];
        stride *= table.inputShape[d];
    }
    std::vector<int64_t> threads;
    std::vector<int64_t> flatRegs(count, 0), values;
    bool ok = CompiledIndexExpr(fragment.threadExpr(), names).evaluateColumns(columns, count, threads);
    for (size_t k = 0; ok && k < fragment.indexExprs().size(); ++k) {
        ok = CompiledIndexExpr(fragment.indexExprs()[k], names).evaluateColumns(columns, count, values);
        for (size_t n = 0; ok && n < count; ++n) {
            if (values[n] < 0 || values[n] >= indexShape[k])
                ok = false;
            else
                flatRegs[n] = flatRegs[n] * indexShape[k] + values[n];
        }
    }
    for (size_t n = 0; ok && n < count; ++n)
        ok = threads[n] >= 0 && threads[n] < table.threadExtent;
    if (!ok)
        return tabulateFragmentPointwise(fragment); // reports the first failing point precisely
    table.cells.resize(count);
    for (size_t n = 0; n < count; ++n)
        table.cells[n] = {threads[n], flatRegs[n]};
    return table;
}

std::optional<std::pair<std::vector<int64_t>, int64_t>> FragmentInverseTable::logicalOf(int64_t thread,
                                                                                        int64_t reg) const {
    if (thread < 0 || thread >= threads || reg < 0 || reg >= registers)
        return std::nullopt;
    size_t slot = size_t(thread * registers + reg);
    if (element[slot] < 0)
        return std::nullopt;
    return std::make_pair(detail::unflatten(element[slot], inputShape), rep[slot]);
}

int64_t FragmentInverseTable::unusedSlots() const {
    return std::count(element.begin(), element.end(), -1);
}

LayoutResult<FragmentInverseTable> inverseFragment(const Fragment& fragment) {
    LayoutResult<FragmentTable> table = tabulateFragment(fragment);
    if (!table)
        return table.error();
    FragmentInverseTable inverse;
    inverse.inputShape = table->inputShape;
    inverse.threads = table->threadExtent;
    inverse.registers = table->registers;
    int64_t slots = saturatingMul(inverse.threads, inverse.registers);
    if (auto error = detail::checkDomain(slots, "the fragment's (thread, register) space"))
        return *error;
    inverse.element.assign(size_t(slots), -1);
    inverse.rep.assign(size_t(slots), -1);
    int64_t elements = fragment.inputSize();
    for (int64_t e = 0; e < elements; ++e) {
        for (int64_t r = 0; r < table->replicate; ++r) {
            const FragmentCell& cell = table->at(e, r);
            size_t slot = size_t(cell.thread * inverse.registers + cell.reg);
            if (inverse.element[slot] >= 0)
                return layoutError(
                    "fragment-not-injective",
                    "elements " +
                        detail::pointText(detail::unflatten(inverse.element[slot], inverse.inputShape)) +
                        " and " + detail::pointText(detail::unflatten(e, inverse.inputShape)) +
                        " share thread " + std::to_string(cell.thread) + " register " +
                        std::to_string(cell.reg),
                    "a fragment must give each (thread, register) slot at most one element");
            inverse.element[slot] = e;
            inverse.rep[slot] = r;
        }
    }
    return inverse;
}

std::string printFragmentTable(const Fragment& fragment) {
    std::string out = "fragment " + shapeToString(fragment.inputShape()) + ": " +
                      std::to_string(fragment.threadExtent()) + " threads, " +
                      std::to_string(fragment.registersPerThread()) + " registers/thread, replicate " +
                      std::to_string(fragment.replicateExtent()) + "\n";
    LayoutResult<FragmentTable> table = tabulateFragment(fragment);
    if (!table)
        return out + "<" + table.error().message + ">\n";
    int64_t columns = fragment.inputShape().empty() ? 1 : fragment.inputShape().back();
    std::vector<std::string> cells;
    size_t width = 1;
    for (int64_t e = 0; e < fragment.inputSize(); ++e) {
        const FragmentCell& cell = table->at(e, 0);
        cells.push_back("T" + std::to_string(cell.thread) + ":" + std::to_string(cell.reg));
        width = std::max(width, cells.back().size());
    }
    for (size_t c = 0; c < cells.size(); ++c) {
        out += std::string(width - cells[c].size() + (c % columns ? 1 : 0), ' ') + cells[c];
        if ((int64_t(c) + 1) % columns == 0)
            out += '\n';
    }
    return out;
}

} // namespace tb::layout
