// Vector accesses in per-thread loops, and the index ranges that make bounds guards provably redundant.
//
// docs/bank-analysis.md costs a fragment-side copy or a T.Parallel loop as one V*E-byte shared access per
// vector of V consecutive registers (V = the copy plan's or loop plan's vectorWidth). The emitter makes the
// same instructions: the loop over a thread's registers steps by V; each shared (or, for copies, global)
// access whose V elements are consecutive and V-aligned in memory becomes one vector load before the
// element code (or one vector store after it), and the element code reads (writes) a register array in
// its place. Accesses that do not qualify stay scalar inside the element loop, so the result is the same
// either way; only the instruction count (and the wavefronts the analysis predicts) depend on it.
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"
#include "engine/passes/IndexConversion.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::codegen {

using ir::Buffer;
using ir::ExprPtr;
using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;

// ------------------------------------------------------------------------------------ index ranges

void KernelEmitter::bindIndexRange(const ir::Var* var, const ExprPtr& min, const ExprPtr& extent) {
    auto lo = ir::constantInt(min);
    auto n = ir::constantInt(extent);
    if (!var || !lo || !n || *n < 1) {
        m_indexRanges.erase(var);
        return;
    }
    // Named by id as well: the elaborator may reuse a Python name for two loops.
    m_indexRanges[var] =
        layout::IndexExpr(*lo) + layout::IndexExpr::var(var->name + "@" + std::to_string(var->id), *n);
}

void KernelEmitter::unbindIndexRange(const ir::Var* var) {
    m_indexRanges.erase(var);
}

bool KernelEmitter::provablyWithin(const ExprPtr& min, int64_t extent, const ExprPtr& shape) const {
    auto size = ir::constantInt(shape);
    if (!size)
        return false;
    auto index = passes::toIndexExpr(min, m_indexRanges);
    if (!index)
        return false;
    layout::IndexBounds b = layout::boundsOf(*index);
    return b.lo >= 0 && b.hi < layout::kUnboundedIndex && b.hi + extent <= *size;
}

// ------------------------------------------------------------------------------- vector accesses

std::optional<int64_t> KernelEmitter::SharedSlot::layoutOffset(std::span<const int64_t> point) const {
    if (!offsetsReady) {
        offsetsReady = true;
        if (auto table = layout.offsetTable())
            offsets = std::move(*table);
    }
    const std::vector<int64_t>& shape = layout.inputShape();
    if (point.size() != shape.size() || offsets.empty())
        return layout.offset(std::vector<int64_t>(point.begin(), point.end()));
    int64_t linear = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (point[d] < 0 || point[d] >= shape[d])
            return std::nullopt;
        linear = linear * shape[d] + point[d];
    }
    if (size_t(linear) >= offsets.size() || offsets[size_t(linear)] < 0)
        return std::nullopt;
    return offsets[size_t(linear)];
}

namespace {

// The element offset of a shared buffer point under the buffer's layout (row-major without one), and the
// leading (non-layout) coordinates, which must not change inside a vector.
struct SharedPoint {
    std::vector<int64_t> leading;
    int64_t offset = 0;
};

} // namespace

std::optional<int64_t> KernelEmitter::sharedVectorStep(const ir::Region& region, const ThreadMap& map,
                                                       int V) const {
    std::vector<int64_t> mins;
    std::vector<int> tileDimOf;
    int tileDims = 0;
    for (size_t d = 0; d < region.mins.size(); ++d) {
        auto m = ir::constantInt(region.mins[d]);
        auto e = ir::constantInt(region.extents[d]);
        if (!m)
            return std::nullopt;
        mins.push_back(*m);
        tileDimOf.push_back(e && *e == 1 ? -1 : tileDims++);
    }
    const int64_t vectors = map.regs / V;
    if (vectors < 1)
        return std::nullopt;
    std::vector<int64_t> offsets(size_t(map.threads * vectors));
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t j = 0; j < vectors; ++j) {
            std::vector<int64_t> p = map.point(t, j * V);
            if (p.size() != size_t(tileDims))
                return std::nullopt;
            std::vector<int64_t> q = mins;
            for (size_t d = 0; d < q.size(); ++d)
                if (tileDimOf[d] >= 0)
                    q[d] += p[size_t(tileDimOf[d])];
            auto offset = sharedElementOffset(region.buffer, q);
            if (!offset)
                return std::nullopt;
            offsets[size_t(t * vectors + j)] = *offset;
        }
    const int64_t step = vectors > 1 ? offsets[1] - offsets[0] : 0;
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t j = 0; j < vectors; ++j)
            if (offsets[size_t(t * vectors + j)] != offsets[size_t(t * vectors)] + j * step)
                return std::nullopt;
    return step;
}

bool KernelEmitter::sharedRunContiguous(
    const Buffer* buffer, const ThreadMap& map, int V,
    const std::function<std::optional<std::vector<int64_t>>(int64_t, int64_t)>& pointOf) const {
    auto it = m_shared.find(buffer);
    if (it == m_shared.end())
        return false;
    const SharedSlot& slot = it->second;
    if (slot.stages > 1 && slot.stageElements % V != 0)
        return false;
    auto shape = ir::constantShape(*buffer);
    if (!shape)
        return false;
    auto locate = [&](const std::vector<int64_t>& q) -> std::optional<SharedPoint> {
        if (q.size() != shape->size())
            return std::nullopt;
        SharedPoint p;
        if (!slot.hasLayout) {
            for (size_t d = 0; d < q.size(); ++d)
                p.offset = p.offset * (*shape)[d] + q[d];
            return p;
        }
        size_t r = slot.layout.inputShape().size();
        if (r > q.size())
            return std::nullopt;
        size_t lead = q.size() - r;
        p.leading.assign(q.begin(), q.begin() + long(lead));
        auto offset = slot.layoutOffset(std::span<const int64_t>(q).subspan(lead));
        if (!offset)
            return std::nullopt;
        p.offset = *offset;
        return p;
    };
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t g = 0; g < map.regs; g += V) {
            auto q0 = pointOf(t, g);
            if (!q0)
                return false;
            auto p0 = locate(*q0);
            if (!p0 || p0->offset % V != 0)
                return false;
            for (int64_t e = 1; e < V; ++e) {
                auto q = pointOf(t, g + e);
                if (!q)
                    return false;
                auto p = locate(*q);
                if (!p || p->leading != p0->leading || p->offset != p0->offset + e)
                    return false;
            }
        }
    return true;
}

// A copy's global side moves V consecutive, V-aligned elements per vector when the thread map keeps each
// vector on one row of the tile's last dimension, the region starts at a multiple of V on a row whose length
// is a multiple of V, and every dimension is provably in bounds (no per-element guard is needed).
bool KernelEmitter::globalCopyRunContiguous(const ir::Region& region, const ThreadMap& map, int V) const {
    const Buffer* buffer = region.buffer;
    size_t rank = region.mins.size();
    if (rank == 0 || buffer->rank() != rank)
        return false;
    auto lastExtent = ir::constantInt(region.extents.back());
    if (!lastExtent || *lastExtent == 1 || *lastExtent % V != 0)
        return false;
    if (rank > 1) {
        auto row = buffer->constantExtent(rank - 1);
        if (!row || *row % V != 0)
            return false;
    }
    if (!isMultipleOf(region.mins.back(), V))
        return false;
    for (size_t d = 0; d < rank; ++d) {
        auto ext = ir::constantInt(region.extents[d]);
        if (!ext || !provablyWithin(region.mins[d], *ext, buffer->shape[d]))
            return false;
    }
    size_t tileRank = map.shape.size();
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t g = 0; g < map.regs; g += V) {
            std::vector<int64_t> p0 = map.point(t, g);
            if (p0.size() != tileRank || p0.back() % V != 0)
                return false;
            for (int64_t e = 1; e < V; ++e) {
                std::vector<int64_t> want = p0;
                want.back() += e;
                if (map.point(t, g + e) != want)
                    return false;
            }
        }
    return true;
}

// The shared accesses of a T.Parallel body (and the memory side of a copy) that can move as vectors:
// loads and stores at the top level of the body (not under a condition or an inner loop), whose buffer is
// not both read and written by the body, with indices that are functions of the loop variables only.
std::vector<KernelEmitter::VectorAccess>
KernelEmitter::vectorizableAccesses(const Stmt& body, const ThreadMap& map,
                                    const std::vector<const ir::Var*>& vars,
                                    const std::vector<int64_t>& extents, int V) {
    struct Candidate {
        const Buffer* buffer;
        const std::vector<ExprPtr>* indices;
        bool store;
        SourceRange range;
    };
    std::vector<Candidate> candidates;
    std::function<void(const ExprPtr&, int)> collect = [&](const ExprPtr& e, int depth) {
        if (!e || depth > kMaxDepth || e->kind == ir::ExprKind::Select)
            return;
        // One load node reached twice (a Python variable used twice: `v / (1 + T.exp(-v))`) is one
        // access: one vector load, as the compiler would make of two (the bank analysis counts it once).
        bool seen = std::any_of(candidates.begin(), candidates.end(),
                                [&](const Candidate& c) { return c.indices == &e->operands; });
        if (e->kind == ir::ExprKind::BufferLoad && e->buffer && e->buffer->scope == MemoryScope::Shared &&
            !seen)
            candidates.push_back({e->buffer, &e->operands, false, e->range});
        for (const ExprPtr& operand : e->operands)
            collect(operand, depth + 1);
    };
    if (!ir::isPlainStoreList(body))
        return {}; // control flow in the body: keep every access scalar
    std::vector<const Stmt*> stmts;
    if (body.kind == StmtKind::Seq) {
        for (const auto& c : body.stmts)
            if (c)
                stmts.push_back(c.get());
    } else {
        stmts.push_back(&body);
    }
    for (const Stmt* s : stmts) {
        collect(s->value, 0);
        for (const ExprPtr& i : s->indices)
            collect(i, 0);
        if (s->buffer && s->buffer->scope == MemoryScope::Shared)
            candidates.push_back({s->buffer, &s->indices, true, s->range});
    }
    std::map<const Buffer*, int> loadsOf, storesOf;
    for (const Candidate& c : candidates)
        ++(c.store ? storesOf : loadsOf)[c.buffer];

    std::map<const ir::Var*, layout::IndexExpr> tileVars;
    std::vector<std::string> order;
    for (size_t d = 0; d < vars.size(); ++d) {
        tileVars[vars[d]] = layout::IndexExpr::var(layout::inputVarName(d), extents[d]);
        order.push_back(layout::inputVarName(d));
    }
    std::vector<VectorAccess> out;
    for (const Candidate& c : candidates) {
        if (loadsOf[c.buffer] && storesOf[c.buffer])
            continue;
        int64_t bytes = int64_t(V) * ir::dtypeBytes(c.buffer->dtype);
        if (bytes != 4 && bytes != 8 && bytes != 16)
            continue;
        if (c.store && map.replicate > 1)
            continue; // replicas other than 0 do not store: no whole-vector store
        std::vector<layout::CompiledIndexExpr> compiled;
        bool ok = c.indices->size() == c.buffer->rank();
        for (const ExprPtr& i : *c.indices) {
            auto ie = ok ? passes::toIndexExpr(i, tileVars) : std::nullopt;
            if (!ie) {
                ok = false;
                break;
            }
            compiled.emplace_back(*ie, order);
            ok = ok && compiled.back().valid();
        }
        if (!ok)
            continue;
        auto pointOf = [&](int64_t t, int64_t r) -> std::optional<std::vector<int64_t>> {
            std::vector<int64_t> p = map.point(t, r);
            if (p.empty())
                return std::nullopt;
            std::vector<int64_t> q;
            for (const auto& ci : compiled) {
                auto v = ci.evaluate(p.data());
                if (!v)
                    return std::nullopt;
                q.push_back(*v);
            }
            return q;
        };
        if (!sharedRunContiguous(c.buffer, map, V, pointOf))
            continue;
        VectorAccess access;
        access.buffer = c.buffer;
        access.indices = c.indices;
        access.store = c.store;
        access.temp = internalName(std::string(c.store ? "st" : "ld") + std::to_string(out.size()));
        access.range = c.range.valid ? c.range : SourceRange();
        out.push_back(std::move(access));
    }
    return out;
}

// ------------------------------------------------------------------------------------- emission

void KernelEmitter::emitVectorSimtLoop(const ThreadMap& map, SimtScope& scope, const Stmt& body,
                                       SourceRange range, int V, const std::vector<VectorAccess>& accesses) {
    std::string r = scope.reg;
    std::string e = internalName("e");
    line("#pragma unroll");
    open("for (int " + r + " = 0; " + r + " < " + std::to_string(map.regs) + "; " + r +
             " += " + std::to_string(V) + ")",
         range);
    // Coordinates of the vector's first element: the vector addresses are taken there.
    const size_t outerDeclarations = m_out->size();
    for (size_t d = 0; d < scope.vars.size(); ++d)
        line("const int " + nameOf(scope.vars[d]) + " = " + map.coords[d].toC(m_tx, r) + ";", range);
    auto vecType = [&](const VectorAccess& a) {
        int64_t bytes = int64_t(V) * ir::dtypeBytes(a.buffer->dtype);
        return std::string(bytes == 16 ? "tb_vec16" : bytes == 8 ? "tb_vec8" : bytes == 4 ? "tb_vec4" : "");
    };
    m_simt = &scope;
    for (const VectorAccess& a : accesses) {
        std::string sType = cudaStorageType(a.buffer->dtype);
        std::string address = "&" + lvalueText(a.buffer, *a.indices, 0);
        SourceRange at = a.range.valid ? a.range : range;
        if (a.store) {
            line("__align__(16) " + sType + " " + a.temp + "[" + std::to_string(V) + "];", at);
        } else {
            line("const " + vecType(a) + " " + a.temp +
                     "_v = " + vectorLoad(vecType(a), address, a.l2Policy) + ";",
                 at);
            line("const " + sType + "* " + a.temp + " = reinterpret_cast<const " + sType + "*>(&" + a.temp +
                     "_v);",
                 at);
        }
    }
    m_simt = nullptr;
    // The element code, once per vector element, with the vector accesses redirected to the arrays.
    SimtScope inner = scope;
    inner.reg = "(" + r + " + " + e + ")";
    line("#pragma unroll");
    open("for (int " + e + " = 0; " + e + " < " + std::to_string(V) + "; ++" + e + ")", range);
    const size_t innerDeclarations = m_out->size();
    for (size_t d = 0; d < scope.vars.size(); ++d)
        line("const int " + nameOf(scope.vars[d]) + " = " + map.coords[d].toC(m_tx, inner.reg) + ";", range);
    size_t innerDeclared = scope.vars.size();
    if (map.replicate > 1) {
        inner.rep = m_repName;
        line("const int " + inner.rep + " = " + map.repFit.toC(m_tx, inner.reg) + "; // replica", range);
        ++innerDeclared;
    }
    for (const VectorAccess& a : accesses)
        m_vectorTemps[a.indices] = a.temp + "[" + e + "]";
    m_simt = &inner;
    emitElementStmt(body, 0);
    m_simt = nullptr;
    for (const VectorAccess& a : accesses)
        m_vectorTemps.erase(a.indices);
    close();
    dropUnusedIndexLines(innerDeclarations, innerDeclared);
    m_simt = &scope;
    for (const VectorAccess& a : accesses) {
        if (!a.store)
            continue;
        std::string address = "&" + lvalueText(a.buffer, *a.indices, 0);
        std::string store = vectorStore(vecType(a), address, vectorLoad(vecType(a), a.temp, ""), a.l2Policy);
        line(store, a.range.valid ? a.range : range);
    }
    m_simt = nullptr;
    close();
    dropUnusedIndexLines(outerDeclarations, scope.vars.size());
}

} // namespace tb::codegen
