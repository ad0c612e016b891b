// Fragment derivations of layout inference: loop partition, access-based loop layouts, projections.
#include "engine/passes/FragmentDerivation.h"

#include "engine/layout/algebra/FragmentTable.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace tb::passes {

using layout::Fragment;
using layout::IndexExpr;
using layout::LayoutResult;

namespace {

bool isPowerOfTwo(int64_t v) {
    return v > 0 && (v & (v - 1)) == 0;
}

int bitCount(int64_t extent) {
    int bits = 0;
    while ((int64_t(1) << bits) < extent)
        ++bits;
    return bits;
}

// Row-major iteration over a shape.
class Points {
public:
    explicit Points(std::vector<int64_t> shape) : m_shape(std::move(shape)), m_point(m_shape.size(), 0) {}
    const std::vector<int64_t>& point() const { return m_point; }
    bool next() {
        for (size_t d = m_shape.size(); d-- > 0;) {
            if (++m_point[d] < m_shape[d])
                return true;
            m_point[d] = 0;
        }
        return false;
    }

private:
    std::vector<int64_t> m_shape;
    std::vector<int64_t> m_point;
};

std::vector<std::string> placeholderNames(size_t rank) {
    std::vector<std::string> names;
    for (size_t d = 0; d < rank; ++d)
        names.push_back(layout::inputVarName(d));
    return names;
}

// The number formed by the bits `bits` of `value`: Σ_k 2^k * ((value // 2^bits[k]) % 2).
IndexExpr gatherBits(const IndexExpr& value, const std::vector<int>& bits) {
    IndexExpr out(0);
    for (size_t k = 0; k < bits.size(); ++k)
        out = out +
              IndexExpr(int64_t(1) << k) *
                  layout::floorMod(layout::floorDiv(value, IndexExpr(int64_t(1) << bits[k])), IndexExpr(2));
    return out;
}

// The inverse of gatherBits: Σ_k 2^bits[k] * ((digit // 2^k) % 2).
IndexExpr scatterBits(const IndexExpr& digit, const std::vector<int>& bits) {
    IndexExpr out(0);
    for (size_t k = 0; k < bits.size(); ++k)
        out = out + IndexExpr(int64_t(1) << bits[k]) *
                        layout::floorMod(layout::floorDiv(digit, IndexExpr(int64_t(1) << k)), IndexExpr(2));
    return out;
}

bool injective(const Fragment& f, FragmentTableCache* cache) {
    if (cache)
        return cache->injective(f);
    return layout::inverseFragment(f).ok();
}

} // namespace

namespace {

// An expression that is a sum of terms each using at most one variable (what simplify() gives for gemm and
// partition layouts) is evaluated as a sum of small per-variable tables: one lookup per term and point
// instead of interpreting the whole expression.
struct SeparableExpr {
    int64_t constant = 0;
    std::vector<std::pair<size_t, std::vector<int64_t>>> terms; // (variable slot, value per variable value)
};

void flattenSum(const IndexExpr& e, std::vector<IndexExpr>& out, int depth) {
    if (e.kind() == layout::IndexExprKind::Add && depth < 64) {
        flattenSum(e.lhs(), out, depth + 1);
        flattenSum(e.rhs(), out, depth + 1);
    } else {
        out.push_back(e);
    }
}

// Slots: the placeholders of `shape`, then `rep` (extent replicate).
std::optional<SeparableExpr> separate(const IndexExpr& expr, const std::vector<int64_t>& shape,
                                      int64_t replicate) {
    std::vector<std::string> names = placeholderNames(shape.size());
    names.push_back(Fragment::replicateVarName());
    std::vector<int64_t> extents = shape;
    extents.push_back(replicate);
    std::vector<IndexExpr> terms;
    flattenSum(expr, terms, 0);
    SeparableExpr out;
    for (const IndexExpr& term : terms) {
        std::vector<std::string> vars = layout::variablesOf(term);
        if (vars.empty()) {
            std::optional<int64_t> v = layout::evaluate(term, {});
            if (!v)
                return std::nullopt;
            out.constant += *v;
            continue;
        }
        if (vars.size() != 1)
            return std::nullopt;
        size_t slot = std::find(names.begin(), names.end(), vars[0]) - names.begin();
        if (slot == names.size())
            return std::nullopt;
        layout::CompiledIndexExpr compiled(term, {vars[0]});
        std::vector<int64_t> values;
        for (int64_t x = 0; x < extents[slot]; ++x) {
            std::optional<int64_t> v = compiled.evaluate(&x);
            if (!v)
                return std::nullopt;
            values.push_back(*v);
        }
        out.terms.push_back({slot, std::move(values)});
    }
    return out;
}

std::optional<layout::FragmentTable> fastTabulate(const Fragment& f) {
    const std::vector<int64_t>& shape = f.inputShape();
    const int64_t total = f.inputSize(), R = f.replicateExtent();
    if (total * R > layout::kMaxEnumerationPoints)
        return std::nullopt;
    std::optional<SeparableExpr> thread = separate(f.threadExpr(), shape, R);
    if (!thread)
        return std::nullopt;
    std::vector<SeparableExpr> index;
    for (const IndexExpr& e : f.indexExprs()) {
        std::optional<SeparableExpr> s = separate(e, shape, R);
        if (!s)
            return std::nullopt;
        index.push_back(std::move(*s));
    }
    layout::FragmentTable t;
    t.inputShape = shape;
    t.replicate = R;
    t.threadExtent = f.threadExtent();
    const std::vector<int64_t> indexShape = f.indexShape();
    t.registers = f.registersPerThread();
    t.cells.resize(size_t(total * R));
    std::vector<int64_t> slots(shape.size() + 1, 0);
    Points points(shape);
    int64_t element = 0;
    auto eval = [&](const SeparableExpr& s) {
        int64_t v = s.constant;
        for (const auto& [slot, values] : s.terms)
            v += values[size_t(slots[slot])];
        return v;
    };
    do {
        std::copy(points.point().begin(), points.point().end(), slots.begin());
        int64_t reg = 0;
        slots.back() = 0;
        for (size_t d = 0; d < index.size(); ++d) {
            int64_t v = eval(index[d]);
            if (v < 0 || v >= indexShape[d])
                return std::nullopt;
            reg = reg * indexShape[d] + v;
        }
        for (int64_t r = 0; r < R; ++r) {
            slots.back() = r;
            int64_t th = eval(*thread);
            if (th < 0 || th >= t.threadExtent)
                return std::nullopt;
            t.cells[size_t(element * R + r)] = {th, reg};
        }
        ++element;
    } while (points.next());
    return t;
}

} // namespace

const layout::FragmentTable* FragmentTableCache::table(const Fragment& fragment) {
    std::string key = fragment.toString();
    auto it = m_tables.find(key);
    if (it != m_tables.end())
        return it->second.get();
    std::unique_ptr<layout::FragmentTable> stored;
    if (std::optional<layout::FragmentTable> fast = fastTabulate(fragment))
        stored = std::make_unique<layout::FragmentTable>(std::move(*fast));
    else if (auto t = layout::tabulateFragment(fragment))
        stored = std::make_unique<layout::FragmentTable>(std::move(t.value()));
    const layout::FragmentTable* out = stored.get();
    m_tables.emplace(std::move(key), std::move(stored));
    return out;
}

std::optional<bool> FragmentTableCache::contains(const Fragment& small, const Fragment& large,
                                                 const std::optional<layout::Layout>& access,
                                                 bool checkRegisterIndex) {
    // The same fragment (identity access) trivially contains itself.
    const bool identity = !access || (access->inputShape() == large.inputShape() && [&] {
        for (size_t d = 0; d < access->forwardIndex().size(); ++d) {
            const IndexExpr& e = access->forwardIndex()[d];
            if (e.kind() != layout::IndexExprKind::Var || e.varName() != layout::inputVarName(d))
                return false;
        }
        return access->forwardIndex().size() == large.inputShape().size();
    }());
    if (identity && small.toString() == large.toString())
        return true;
    const layout::FragmentTable* s = table(small);
    const layout::FragmentTable* l = table(large);
    if (!s || !l)
        return std::nullopt;
    const int64_t sBegin = small.threadRange() ? small.threadRange()->begin : 0;
    const int64_t lBegin = large.threadRange() ? large.threadRange()->begin : 0;
    const int64_t elements = small.inputSize();
    std::vector<int64_t> targets;
    if (access) {
        if (access->inputShape() != small.inputShape() ||
            access->forwardIndex().size() != large.inputShape().size())
            return std::nullopt;
        std::vector<layout::CompiledIndexExpr> exprs;
        for (const IndexExpr& e : access->forwardIndex())
            exprs.emplace_back(e, placeholderNames(small.inputShape().size()));
        const std::vector<int64_t>& ls = large.inputShape();
        targets.reserve(size_t(elements));
        Points points(small.inputShape());
        do {
            int64_t linear = 0;
            for (size_t d = 0; d < exprs.size(); ++d) {
                std::optional<int64_t> v = exprs[d].evaluate(points.point().data());
                if (!v || *v < 0 || *v >= ls[d])
                    return std::nullopt;
                linear = linear * ls[d] + *v;
            }
            targets.push_back(linear);
        } while (points.next());
    } else if (small.inputShape() != large.inputShape()) {
        return std::nullopt;
    }
    for (int64_t e = 0; e < elements; ++e) {
        const int64_t target = access ? targets[size_t(e)] : e;
        for (int64_t r = 0; r < s->replicate; ++r) {
            const int64_t thread = sBegin + s->at(e, r).thread;
            bool held = false;
            for (int64_t q = 0; q < l->replicate && !held; ++q)
                held = lBegin + l->at(target, q).thread == thread &&
                       (!checkRegisterIndex || l->at(target, q).reg == s->at(e, r).reg);
            if (!held)
                return false;
        }
    }
    return true;
}

bool FragmentTableCache::injective(const Fragment& fragment) {
    const layout::FragmentTable* t = table(fragment);
    if (!t || t->threadExtent <= 0 || t->registers <= 0 ||
        t->threadExtent > layout::kMaxEnumerationPoints / std::max<int64_t>(t->registers, 1))
        return false;
    std::vector<char> used(size_t(t->threadExtent * t->registers), 0);
    for (const layout::FragmentCell& c : t->cells) {
        char& slot = used[size_t(c.thread * t->registers + c.reg)];
        if (slot)
            return false;
        slot = 1;
    }
    return true;
}

Fragment planLoopPartition(const std::vector<int64_t>& extents, int64_t vector, int64_t threads,
                           bool replicateToBlock) {
    std::vector<IndexExpr> vars = layout::inputVarsFor(extents);
    IndexExpr flat(0);
    for (size_t d = 0; d < extents.size(); ++d)
        flat = flat * IndexExpr(extents[d]) + vars[d];
    vector = std::max<int64_t>(vector, 1);
    threads = std::max<int64_t>(threads, 1);
    IndexExpr group = layout::floorDiv(flat, IndexExpr(vector));
    IndexExpr thread = layout::floorMod(group, IndexExpr(threads));
    IndexExpr index = layout::floorDiv(group, IndexExpr(threads)) * IndexExpr(vector) +
                      layout::floorMod(flat, IndexExpr(vector));
    Fragment plan(extents, thread, {index}, 1);
    int64_t used = plan.threadExtent();
    if (replicateToBlock && used < threads && threads % used == 0)
        plan = plan.replicate(threads / used);
    return plan;
}

int64_t fragmentLoopVector(const std::vector<int64_t>& extents, int64_t maxVector, int64_t threads) {
    int64_t total = 1;
    for (int64_t e : extents)
        total *= e;
    int64_t v = std::max<int64_t>(maxVector, 1);
    while (v > 1 && total % (threads * v) != 0)
        v /= 2;
    return v;
}

int64_t contiguousRegisterRun(const Fragment& loop, int64_t limit, FragmentTableCache* cache) {
    FragmentTableCache local;
    const layout::FragmentTable* table = (cache ? cache : &local)->table(loop);
    if (!table || loop.inputShape().empty())
        return 1;
    const int64_t inner = loop.inputShape().back();
    int64_t v = std::min(limit, inner);
    while (v > 1) {
        bool ok = inner % v == 0;
        for (int64_t e = 0; ok && e < loop.inputSize(); e += v)
            for (int64_t c = 1; ok && c < v; ++c)
                ok = table->at(e + c).thread == table->at(e).thread &&
                     table->at(e + c).reg == table->at(e).reg + c;
        if (ok)
            return v;
        v /= 2;
    }
    return 1;
}

IndexExpr compactIndex(const IndexExpr& index, const std::vector<int64_t>& shape) {
    if (index.isConstant() || layout::shapeSize(shape) > layout::kMaxEnumerationPoints)
        return index;
    layout::CompiledIndexExpr compiled(index, placeholderNames(shape.size()));
    if (!compiled.valid())
        return index;
    std::set<int64_t> values;
    int64_t orBits = 0;
    Points points(shape);
    do {
        std::optional<int64_t> v = compiled.evaluate(points.point().data());
        if (!v || *v < 0)
            return index;
        values.insert(*v);
        orBits |= *v;
    } while (points.next());
    if (int64_t(values.size()) == *values.rbegin() + 1)
        return index;
    std::vector<int> bits;
    for (int b = 0; b < 62; ++b)
        if (orBits & (int64_t(1) << b))
            bits.push_back(b);
    if ((int64_t(1) << bits.size()) != int64_t(values.size()))
        return index;
    return layout::simplify(gatherBits(index, bits));
}

LayoutResult<Fragment> loopFromAccess(const Fragment& source, const std::vector<int64_t>& loopShape,
                                      const std::vector<IndexExpr>& access, FragmentTableCache* cache) {
    if (access.size() != source.inputShape().size())
        return layout::layoutError("loop-access-rank",
                                   "the access has " + std::to_string(access.size()) + " indices for a " +
                                       std::to_string(source.inputShape().size()) + "-d fragment");
    std::map<std::string, IndexExpr> subst;
    for (size_t d = 0; d < access.size(); ++d)
        subst[layout::inputVarName(d)] = access[d];
    // Bind the loop placeholders to the loop's extents before substituting (the names overlap with the
    // source's placeholders, and substitute is simultaneous).
    IndexExpr thread = layout::substitute(source.threadExpr(), subst);
    std::vector<IndexExpr> index;
    for (const IndexExpr& e : source.indexExprs())
        index.push_back(layout::substitute(e, subst));
    std::set<std::string> used;
    for (const IndexExpr& a : access)
        for (const std::string& name : layout::variablesOf(a))
            used.insert(name);
    std::vector<IndexExpr> loopVars = layout::inputVarsFor(loopShape);
    for (size_t d = 0; d < loopShape.size(); ++d)
        if (!used.count(layout::inputVarName(d)) && loopShape[d] > 1)
            index.push_back(loopVars[d]);
    for (IndexExpr& e : index)
        e = compactIndex(layout::simplify(e), loopShape);
    Fragment loop(loopShape, thread, index, source.replicateExtent());
    if (source.threadRange())
        loop = loop.bindThreadRange(source.threadRange()->begin, source.threadRange()->extent);
    if (!injective(loop, cache))
        return layout::layoutError("loop-layout-not-injective",
                                   "the loop layout derived from the access is not injective",
                                   "index the fragment with the loop variables directly");
    return loop;
}

LayoutResult<Fragment> fragmentWithAutomaticIndex(const std::vector<int64_t>& shape, const IndexExpr& thread,
                                                  int64_t replicate) {
    std::vector<IndexExpr> vars = layout::inputVarsFor(shape);
    IndexExpr flat(0);
    int64_t total = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        flat = flat * IndexExpr(shape[d]) + vars[d];
        total *= shape[d];
    }
    if (total > layout::kMaxEnumerationPoints)
        return layout::layoutError("layout-domain-too-large",
                                   "the fragment has " + std::to_string(total) + " elements");
    Fragment dense(shape, thread, {flat}, replicate);
    if (isPowerOfTwo(total)) {
        LayoutResult<layout::FragmentTable> table = layout::tabulateFragment(dense);
        if (!table)
            return table.error();
        std::vector<int> unused;
        for (int b = 0; b < bitCount(total); ++b) {
            bool matters = false;
            for (int64_t e = 0; e < total && !matters; ++e)
                if (!(e & (int64_t(1) << b)))
                    for (int64_t r = 0; r < replicate && !matters; ++r)
                        matters = table->at(e, r).thread != table->at(e + (int64_t(1) << b), r).thread;
            if (!matters)
                unused.push_back(b);
        }
        Fragment packed(shape, thread, {layout::simplify(gatherBits(flat, unused))}, replicate);
        if (injective(packed, nullptr))
            return packed;
    }
    if (injective(dense, nullptr))
        return dense;
    return layout::layoutError("fragment-not-injective",
                               "two elements of the fragment share an owner and a register",
                               "give forward_index_fn explicitly");
}

namespace {

// The largest power of two P dividing shape[d] such that the owner of every element equals the owner of
// the element with index[d] mod P, or 0 when there is none above 1.
int64_t ownerPeriod(const layout::FragmentTable& table, const std::vector<int64_t>& shape, size_t d,
                    int64_t replicate) {
    const int64_t period = shape[d] & -shape[d];
    if (period == 1)
        return 0;
    int64_t stride = 1;
    for (size_t k = d + 1; k < shape.size(); ++k)
        stride *= shape[k];
    Points points(shape);
    int64_t linear = 0;
    do {
        const int64_t index = points.point()[d];
        const int64_t folded = linear - (index - index % period) * stride;
        for (int64_t r = 0; r < replicate; ++r)
            if (table.at(linear, r).thread != table.at(folded, r).thread)
                return 0;
        ++linear;
    } while (points.next());
    return period;
}

} // namespace

LayoutResult<Fragment> projectFragment(const Fragment& source, const std::vector<size_t>& kept,
                                       FragmentTableCache* cache) {
    const std::vector<int64_t>& shape = source.inputShape();
    std::vector<bool> keep(shape.size(), false);
    std::vector<int64_t> newShape;
    for (size_t d : kept) {
        if (d >= shape.size() || keep[d])
            return layout::layoutError("fragment-projection",
                                       "bad projection dimension " + std::to_string(d));
        keep[d] = true;
        newShape.push_back(shape[d]);
    }
    if (newShape.empty())
        newShape.push_back(1);
    FragmentTableCache local;
    const layout::FragmentTable* table = (cache ? cache : &local)->table(source);
    if (!table)
        return layout::layoutError("layout-domain-too-large", "cannot tabulate " + source.toString());
    const int64_t srcR = source.replicateExtent();
    // For each dropped dimension: which bits of its index change the owner (power-of-two extents), or
    // every value (other extents).
    struct Dropped {
        size_t dim;
        bool allValues;
        std::vector<int> bits;
        int64_t count;
    };
    std::vector<Dropped> dropped;
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    for (size_t d = 0; d < shape.size(); ++d) {
        if (keep[d] || shape[d] == 1)
            continue;
        // An extent that is not a power of two still projects by bits when the owner repeats with the
        // largest power of two dividing it (a row of 96 over 4 threads by 8-element vectors repeats every
        // 32).
        const int64_t period = isPowerOfTwo(shape[d]) ? shape[d] : ownerPeriod(*table, shape, d, srcR);
        Dropped info{d, period == 0, {}, shape[d]};
        if (!info.allValues) {
            for (int b = 0; b < bitCount(period); ++b) {
                bool matters = false;
                Points points(shape);
                int64_t linear = 0;
                do {
                    const std::vector<int64_t>& p = points.point();
                    if (!(p[d] & (int64_t(1) << b))) {
                        int64_t other = linear + (int64_t(1) << b) * strides[d];
                        for (int64_t r = 0; r < srcR && !matters; ++r)
                            matters = table->at(linear, r).thread != table->at(other, r).thread;
                    }
                    ++linear;
                } while (!matters && points.next());
                if (matters)
                    info.bits.push_back(b);
            }
            info.count = int64_t(1) << info.bits.size();
        }
        dropped.push_back(info);
    }
    int64_t newR = srcR;
    for (const Dropped& info : dropped)
        newR *= info.count;
    IndexExpr rep = IndexExpr::var(Fragment::replicateVarName(), newR);
    std::map<std::string, IndexExpr> threadSubst, indexSubst;
    std::vector<IndexExpr> newVars = layout::inputVarsFor(newShape);
    for (size_t k = 0; k < kept.size(); ++k) {
        threadSubst[layout::inputVarName(kept[k])] = newVars[k];
        indexSubst[layout::inputVarName(kept[k])] = newVars[k];
    }
    threadSubst[Fragment::replicateVarName()] = layout::floorMod(rep, IndexExpr(srcR));
    IndexExpr rest = layout::floorDiv(rep, IndexExpr(srcR));
    for (const Dropped& info : dropped) {
        IndexExpr digit = layout::floorMod(rest, IndexExpr(info.count));
        threadSubst[layout::inputVarName(info.dim)] = info.allValues ? digit : scatterBits(digit, info.bits);
        indexSubst[layout::inputVarName(info.dim)] = IndexExpr(0);
        rest = layout::floorDiv(rest, IndexExpr(info.count));
    }
    for (size_t d = 0; d < shape.size(); ++d)
        if (!keep[d] && shape[d] == 1)
            threadSubst[layout::inputVarName(d)] = indexSubst[layout::inputVarName(d)] = IndexExpr(0);
    IndexExpr thread = layout::simplify(layout::substitute(source.threadExpr(), threadSubst));
    std::vector<IndexExpr> index;
    for (const IndexExpr& e : source.indexExprs())
        index.push_back(compactIndex(layout::simplify(layout::substitute(e, indexSubst)), newShape));
    Fragment out(newShape, thread, index, newR);
    if (source.threadRange())
        out = out.bindThreadRange(source.threadRange()->begin, source.threadRange()->extent);
    if (injective(out, cache))
        return out;
    // Fallback: every holder stores the element at its flat position (always injective per thread).
    IndexExpr flat(0);
    for (size_t k = 0; k < newShape.size(); ++k)
        flat = flat * IndexExpr(newShape[k]) + newVars[k];
    out = Fragment(newShape, thread, {flat}, newR);
    if (source.threadRange())
        out = out.bindThreadRange(source.threadRange()->begin, source.threadRange()->extent);
    if (injective(out, cache))
        return out;
    return layout::layoutError("fragment-projection",
                               "the projection of " + source.toString() + " is not injective");
}

} // namespace tb::passes
