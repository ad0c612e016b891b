// A T.copy between global and shared memory (or within one of them) as vector accesses: each thread moves
// V contiguous elements per access, as plain vector ld/st or as cp.async.cg of 16 bytes, with its
// addresses hoisted out of the per-vector loop and a guarded element-by-element path for partial tiles at
// the tensor's edges. Steps: vectorCopyMap (does the thread map allow it at all), the hoisted lane
// addresses, the per-vector pointers, the full-vector condition, the access itself.
#include "engine/codegen/KernelEmitter.h"
#include "engine/layout/algebra/LayoutTranslation.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::ExprPtr;
using ir::MemoryScope;
using ir::Stmt;

namespace {

// A zero of a CUDA storage type: `T()`, or a cast where the type is two words ("unsigned char", float8's
// storage), which a functional cast cannot name.
std::string zeroOfType(const std::string& type) {
    return type.find(' ') == std::string::npos ? type + "()" : "static_cast<" + type + ">(0)";
}

// The rows part of the full-vector condition (neither the vector-length nor, when asked, the alignment part).
std::string rowsCondition(const std::vector<std::string>& full, bool dropAlignment) {
    std::string rows;
    for (const auto& c : full)
        if (c.find(" <= ") == std::string::npos && (!dropAlignment || c.find("tb_u64") == std::string::npos))
            rows += (rows.empty() ? "" : " && ") + c;
    return rows;
}

} // namespace

// The thread map of the copy when every thread's V-element groups are contiguous and aligned on both
// sides, else nullptr. `async` is cleared for vectors other than 16 bytes (cp.async.cg copies 16).
const ThreadMap* KernelEmitter::vectorCopyMap(const Stmt& s, const layout::Fragment& frag,
                                              const std::vector<int64_t>& tile, int V, bool& async) {
    const ir::Region& src = s.src;
    const ir::Region& dst = s.dst;
    int64_t bytes = V * ir::dtypeBytes(src.buffer->dtype);
    if (bytes != 4 && bytes != 8 && bytes != 16)
        return nullptr;
    if (bytes != 16)
        async = false;
    // The tile's last dimension must be both buffers' contiguous dimension.
    auto lastNonUnit = [](const ir::Region& r) {
        auto c = ir::constantInt(r.extents.back());
        return !(c && *c == 1);
    };
    if (!lastNonUnit(src) || !lastNonUnit(dst) || tile.back() % V != 0)
        return nullptr;
    const ThreadMap* built = cachedThreadMap(frag);
    // A partition whose last round is partial works in whole vectors of its own width: a slot group is
    // empty or full, and the loop skips the empty ones (ThreadMap::partialRoundGuard).
    const bool partial = built && built->partialPartition && built->partitionVector == V;
    if (!built || !(built->fitted || partial) || built->replicate != 1 || built->regs % V != 0 ||
        built->threads > m_threads)
        return nullptr;
    const ThreadMap& tm = *built;
    size_t rank = tile.size();
    for (int64_t t = 0; t < tm.threads; ++t)
        for (int64_t g = 0; g < tm.regs; g += V) {
            std::vector<int64_t> p0 = tm.point(t, g);
            if (p0.empty() && partial)
                continue; // past the tile
            if (p0.empty() || p0[rank - 1] % V != 0)
                return nullptr;
            for (int64_t e = 1; e < V; ++e) {
                std::vector<int64_t> p = tm.point(t, g + e);
                std::vector<int64_t> want = p0;
                want[rank - 1] += e;
                if (p != want)
                    return nullptr;
            }
        }
    for (const ir::Region* r : {&src, &dst})
        if (r->buffer->scope == MemoryScope::Shared && !sharedSideVectorizes(*r, tm, V))
            return nullptr;
    return built;
}

// A shared side keeps each thread's V elements contiguous and aligned under its layout. A start computed at
// run time in one of the layout's dims (a stage the program picks, a column block of an unrolled loop) is
// proved through the layout repeating itself along that dim every power of two the start is known to be a
// multiple of (layout::vectorsSurviveRuntimeStart, the bank model's rule too), and checked at 0.
bool KernelEmitter::sharedSideVectorizes(const ir::Region& r, const ThreadMap& tm, int V) const {
    auto it = m_shared.find(r.buffer);
    if (it == m_shared.end())
        return false;
    const SharedSlot& slot = it->second;
    if (!isMultipleOf(r.mins.back(), V))
        return false;
    if (!slot.hasLayout) {
        auto last = r.buffer->constantExtent(r.buffer->rank() - 1);
        return last && *last % V == 0;
    }
    const layout::Layout& l = slot.layout;
    size_t lr = l.inputShape().size();
    std::vector<int64_t> mins;
    for (size_t d = r.mins.size() - lr; d < r.mins.size(); ++d) {
        auto c = ir::constantInt(r.mins[d]);
        const size_t ld = d - (r.mins.size() - lr);
        if (!c && !layout::vectorsSurviveRuntimeStart(
                      l, ld, ir::knownPowerOfTwoFactor(r.mins[d], l.inputShape()[ld]), V))
            return false;
        mins.push_back(c ? *c : 0);
    }
    // Map tile points to the layout's dims (non-unit region dims in order).
    std::vector<int> tileDimOf(r.mins.size(), -1);
    int k = 0;
    for (size_t d = 0; d < r.mins.size(); ++d) {
        auto c = ir::constantInt(r.extents[d]);
        if (!(c && *c == 1))
            tileDimOf[d] = k++;
    }
    for (int64_t t = 0; t < tm.threads; ++t)
        for (int64_t g = 0; g < tm.regs; g += V) {
            std::vector<int64_t> p0 = tm.point(t, g);
            if (p0.empty())
                continue; // past the tile of a partial partition (vectorCopyMap)
            std::vector<int64_t> q;
            for (size_t d = r.mins.size() - lr; d < r.mins.size(); ++d)
                q.push_back(mins[d - (r.mins.size() - lr)] +
                            (tileDimOf[d] >= 0 ? p0[size_t(tileDimOf[d])] : 0));
            auto base = slot.layoutOffset(q);
            if (!base || *base % V != 0)
                return false;
            for (int64_t e = 1; e < V; ++e) {
                q.back() += 1;
                if (slot.layoutOffset(q) != *base + e)
                    return false;
            }
        }
    return true;
}

// Hoisted per-thread addresses, computed once at register 0 so that each vector only adds a constant:
// - a cp.async destination: lane offset + vector * step, when the layout allows (then the per-vector
//   addresses need no swizzle arithmetic in the loop);
// - a global source with several vectors per thread: the thread's first element, so that each vector
//   adds a constant (the register part of the thread map) to one 64-bit address instead of forming its
//   own from a 32-bit index with a 64-bit multiply (ncu showed those multiplies stalling the GEMM loop).
void KernelEmitter::emitVectorCopyLanes(VectorCopy& c) {
    const Stmt& s = *c.stmt;
    const ThreadMap& tm = *c.map;
    std::optional<int64_t> step;
    if (c.async && s.dst.buffer->scope == MemoryScope::Shared)
        step = sharedVectorStep(s.dst, tm, c.vector);
    if (step) {
        c.rowStepBytes = *step * c.elementBytes;
        c.rowOffsetName = unique(nameOf(s.dst.buffer) + "_lane");
        line("unsigned " + c.rowOffsetName + "; // this thread's first cp.async destination in " +
                 s.dst.buffer->name + " (bytes)",
             s.range);
    }
    // One hoisted source pointer per thread needs each coordinate's register part to be the same in every
    // thread (not so for a partition's division and remainder).
    const bool separable =
        std::all_of(tm.coords.begin(), tm.coords.end(), [](const BitFit& f) { return f.separable(); });
    if (s.src.buffer->scope == MemoryScope::Global && tm.regs > c.vector && separable) {
        c.srcLane = unique(nameOf(s.src.buffer) + "_lane");
        line("const " + c.sourceType + "* " + c.srcLane + "; // this thread's first element of " +
                 s.src.buffer->name,
             s.range);
    }
    if (c.rowOffsetName.empty() && c.srcLane.empty())
        return;
    openBlock("", s.range);
    for (size_t d = 0; d < c.rank; ++d)
        line("const int " + m_varNames[c.vars.vars[d]] + " = " + tm.coords[d].toC(m_tx, "0") + ";", s.range);
    if (!c.rowOffsetName.empty()) {
        std::vector<std::string> idx;
        for (const auto& i : c.dstIdx)
            idx.push_back(expr(i));
        line(c.rowOffsetName + " = " + std::to_string(c.elementBytes) + " * (" +
                 sharedOffset(s.dst.buffer, idx, false) + ");",
             s.range);
    }
    if (!c.srcLane.empty())
        line(c.srcLane + " = &" + lvalueText(s.src.buffer, c.srcIdx, 0) + ";", s.range);
    close();
}

// Inside the per-vector loop: the tile coordinates of register `reg` and the source pointer.
void KernelEmitter::emitVectorCopyPointers(VectorCopy& c) {
    const Stmt& s = *c.stmt;
    const ThreadMap& tm = *c.map;
    const std::string& reg = m_regName;
    for (size_t d = 0; d < c.rank; ++d)
        line("const int " + m_varNames[c.vars.vars[d]] + " = " + tm.coords[d].toC(m_tx, reg) + ";", s.range);
    c.srcPtr = internalName("src_ptr");
    c.dstPtr = internalName("dst_ptr");
    if (c.srcLane.empty()) {
        line("const " + c.sourceType + "* " + c.srcPtr + " = &" + lvalueText(s.src.buffer, c.srcIdx, 0) + ";",
             s.range);
        return;
    }
    std::vector<std::string> registerIdx;
    for (size_t d = 0, k = 0; d < s.src.mins.size(); ++d) {
        auto e = ir::constantInt(s.src.extents[d]);
        registerIdx.push_back(e && *e == 1 ? "0" : tm.coords[k++].registerPart().toC(m_tx, reg));
    }
    std::string offset = globalOffset(s.src.buffer, registerIdx, /*dropZeroTerms=*/true);
    line("const " + c.sourceType + "* " + c.srcPtr + " = " + c.srcLane +
             (offset == "0" ? "" : " + " + offset) + ";",
         s.range);
}

// The full-vector condition on the global side: rows in range, the whole vector in range, aligned address.
void KernelEmitter::vectorCopyFullCondition(VectorCopy& c) {
    const Stmt& s = *c.stmt;
    const ir::Region& src = s.src;
    const ir::Region& gside = src.buffer->scope == MemoryScope::Global ? src : s.dst;
    if (src.buffer->scope != MemoryScope::Global && s.dst.buffer->scope != MemoryScope::Global)
        return;
    const std::vector<ExprPtr>& gIdx = &gside == &src ? c.srcIdx : c.dstIdx;
    for (size_t d = 0; d < gside.mins.size(); ++d) {
        auto e = ir::constantInt(gside.extents[d]);
        int64_t ext = e ? *e : 1;
        if (provablyWithin(gside.mins[d], ext, gside.buffer->shape[d]))
            continue;
        std::string idx = expr(gIdx[d]);
        if (d + 1 == gside.mins.size()) {
            c.lastProvable = false;
            c.lastIdx = idx;
            c.lastShape = shapeText(gside.buffer, d);
            c.full.push_back(idx + " + " + std::to_string(c.vector) + " <= " + c.lastShape);
        } else {
            c.full.push_back(idx + " < " + shapeText(gside.buffer, d));
        }
    }
    bool aligned = isMultipleOf(gside.mins.back(), c.vector);
    for (size_t d = 0; d + 1 < gside.buffer->rank(); ++d) {
        auto e = gside.buffer->constantExtent(gside.buffer->rank() - 1);
        aligned = aligned && e && *e % c.vector == 0;
    }
    if (!aligned)
        c.full.push_back("((tb_u64)" + (&gside == &src ? c.srcPtr : c.dstPtr) + " % " +
                         std::to_string(c.bytes) + " == 0)");
}

// The access of one vector: unguarded, as a byte-count-predicated cp.async, or guarded with an
// element-by-element path for the partial tile.
void KernelEmitter::emitVectorCopyAccess(VectorCopy& c) {
    const Stmt& s = *c.stmt;
    const ir::Region& src = s.src;
    const ir::Region& dst = s.dst;
    const std::string& reg = m_regName;
    bool alignedStatically = std::none_of(c.full.begin(), c.full.end(), [](const std::string& x) {
        return x.find("tb_u64") != std::string::npos;
    });
    // cp.async writes a 32-bit shared-window address: the thread's offset (hoisted) plus a constant per
    // vector.
    bool addressOnly = c.async && !c.rowOffsetName.empty() &&
                       (c.full.empty() || (src.buffer->scope == MemoryScope::Global && alignedStatically));
    std::string dstAddr;
    if (!addressOnly)
        line(c.sourceType + "* " + c.dstPtr + " = &" + lvalueText(dst.buffer, c.dstIdx, 0) + ";", s.range);
    if (c.async && !c.rowOffsetName.empty()) {
        const SharedSlot& slot = m_shared.at(dst.buffer);
        dstAddr = "tb_smem_s + " + std::to_string(slot.offset);
        auto stage = m_stageExpr.find(dst.buffer);
        if (slot.stages > 1 && stage != m_stageExpr.end())
            dstAddr += " + " + stage->second + " * " + std::to_string(slot.stageElements * c.elementBytes);
        dstAddr += " + " + c.rowOffsetName + " + (" + reg + " / " + std::to_string(c.vector) + ") * " +
                   std::to_string(c.rowStepBytes);
    } else if (c.async) {
        dstAddr = "tb_smem_addr(" + c.dstPtr + ")";
    }
    std::string vecType = c.bytes == 16 ? "tb_vec16" : c.bytes == 8 ? "tb_vec8" : "tb_vec4";
    // With an eviction policy the global side's access carries it as an L2 cache hint.
    const std::string policy = l2PolicyOf(s);
    const std::string hint = policy.empty() ? "" : ", " + policy;
    const std::string op =
        c.async ? (policy.empty() ? "tb_cp_async_16(" : "tb_cp_async_16_hint(") + dstAddr + ", " + c.srcPtr +
                      hint + ");"
                : vectorStore(vecType, c.dstPtr,
                              vectorLoad(vecType, c.srcPtr,
                                         src.buffer->scope == MemoryScope::Global ? policy : std::string()),
                              dst.buffer->scope == MemoryScope::Global ? policy : std::string());
    if (c.full.empty()) {
        line(op, s.range);
    } else if (c.async && src.buffer->scope == MemoryScope::Global && alignedStatically) {
        // Partial tile: the same cp.async, predicated by its byte count (rows out of range copy nothing and
        // read from the tensor's start, the row's tail copies what is in range); the rest is zero-filled.
        std::string rows = rowsCondition(c.full, /*dropAlignment=*/false);
        std::string inRange = c.lastProvable
                                  ? std::to_string(c.bytes)
                                  : "tb_min(" + std::to_string(c.bytes) + ", tb_max(0, (" + c.lastShape +
                                        " - (" + c.lastIdx + ")) * " + std::to_string(c.elementBytes) + "))";
        std::string count = internalName("bytes");
        line("const int " + count + " = " +
                 (rows.empty() ? inRange : "(" + rows + ") ? " + inRange + " : 0") + ";",
             s.range);
        line((policy.empty() ? "tb_cp_async_16_fill(" : "tb_cp_async_16_fill_hint(") + dstAddr + ", " +
                 count + " > 0 ? " + c.srcPtr + " : " + nameOf(src.buffer) + ", " + count + hint + ");",
             s.range);
    } else {
        std::string cond;
        for (const auto& x : c.full)
            cond += (cond.empty() ? "" : " && ") + x;
        open("if (" + cond + ")", s.range);
        line(op, s.range);
        close(" else {");
        ++m_indent;
        comment("partial tile: element by element, out-of-range loads read 0 and stores are dropped",
                s.range);
        std::string rows = rowsCondition(c.full, /*dropAlignment=*/true);
        std::string e = internalName("e");
        line("#pragma unroll");
        open("for (int " + e + " = 0; " + e + " < " + std::to_string(c.vector) + "; ++" + e + ")", s.range);
        std::string inb = rows;
        if (!c.lastProvable)
            inb += (inb.empty() ? "" : " && ") + c.lastIdx + " + " + e + " < " + c.lastShape;
        if (inb.empty())
            inb = "true";
        if (src.buffer->scope == MemoryScope::Global)
            line(c.dstPtr + "[" + e + "] = (" + inb + ") ? " + c.srcPtr + "[" + e +
                     "] : " + zeroOfType(c.sourceType) + ";",
                 s.range);
        else
            line("if (" + inb + ") " + c.dstPtr + "[" + e + "] = " + c.srcPtr + "[" + e + "];", s.range);
        close();
        close();
    }
}

bool KernelEmitter::lowerVectorCopy(const Stmt& s, const layout::Fragment& frag,
                                    const std::vector<int64_t>& tile, int V, bool async) {
    const ThreadMap* map = vectorCopyMap(s, frag, tile, V, async);
    if (!map)
        return false;
    VectorCopy c;
    c.stmt = &s;
    c.map = map;
    c.vector = V;
    c.async = async;
    c.elementBytes = ir::dtypeBytes(s.src.buffer->dtype);
    c.bytes = V * c.elementBytes;
    c.rank = tile.size();
    c.vars = makeTileVars(c.rank);
    c.srcIdx = regionIndices(s.src, c.vars);
    c.dstIdx = regionIndices(s.dst, c.vars);
    c.sourceType = cudaStorageType(s.src.buffer->dtype);
    std::string what = async ? "cp.async.cg 16 B" : std::to_string(c.bytes) + "-byte vector ld/st";
    comment("T.copy(" + describeRegion(s.src) + " -> " + describeRegion(s.dst) + "): " + what + ", " +
                std::to_string(map->regs / V) + " per thread",
            s.range);
    bool guardT = map->threads < m_threads;
    if (guardT)
        open("if (" + m_tx + " < " + std::to_string(map->threads) + ")", s.range);
    emitVectorCopyLanes(c);
    const std::string& reg = m_regName;
    line("#pragma unroll");
    open("for (int " + reg + " = 0; " + reg + " < " + std::to_string(map->regs) + "; " + reg +
             " += " + std::to_string(V) + ")",
         s.range);
    if (!map->fitted && map->partialPartition)
        line("if (!(" + map->partialRoundGuard(m_tx, reg) + ")) continue; // past the tile", s.range);
    const size_t declarations = m_out->size();
    emitVectorCopyPointers(c);
    vectorCopyFullCondition(c);
    emitVectorCopyAccess(c);
    close();
    dropUnusedIndexLines(declarations, c.rank);
    if (guardT)
        close();
    if (async && !m_inPipelineIssue) {
        line("tb_cp_async_commit();", s.range);
        m_asyncInFlight.insert(s.dst.buffer); // waited for by the first statement that touches it
    }
    return true;
}

} // namespace tb::codegen
