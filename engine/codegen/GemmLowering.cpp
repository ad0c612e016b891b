// Lowering of T.gemm to ldmatrix + mma.sync.m16n8k16 per warp tile (m16n8k32 for float8 operands, read
// K-major as 16-bit pairs; docs/bank-analysis.md's instruction
// rules): ldmatrix.x4 operands (x2 for 8-column B atoms, .trans for MN-major operands), double-buffered
// across k steps, and, inside a T.Pipelined loop that only copies and multiplies, woven with the pipeline
// so the next tile's first fragments load while the current tile's last k step computes.
//
// Operand addresses are strength-reduced: every lane computes its ldmatrix row offset once; each (atom,
// k step) then differs by a compile-time XOR (a swizzle moving a k step flips chunk bits) and add, which the
// emitter finds by evaluating the shared layout for every thread. The main loop is left with one add per load
// and immediate offsets, which is what keeps the tensor cores fed (and NVRTC quick).
#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/KernelEmitter.h"
#include "engine/codegen/LdmatrixLanes.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::codegen {

using ir::Buffer;
using ir::DType;
using ir::MemoryScope;
using ir::Stmt;

namespace {

std::optional<std::vector<int64_t>> constantMins(const ir::Region& r) {
    std::vector<int64_t> mins;
    for (const auto& m : r.mins) {
        auto v = ir::constantInt(m);
        if (!v)
            return std::nullopt;
        mins.push_back(*v);
    }
    return mins;
}

// A warp's first row (or column) of an operand as C text, "warp_m * 64", and that of one of its atoms,
// "warp_m * 64 + 16".
CText warpOrigin(const std::string& warpVar, int64_t warpExtent) {
    return {warpVar + " * " + std::to_string(warpExtent), true};
}
CText warpOrigin(const std::string& warpVar, int64_t warpExtent, int64_t atomOffset) {
    return warpOrigin(warpVar, warpExtent) + CText::var(std::to_string(atomOffset));
}

// The index list of an operand element: the region's starts, with `row` and `col` added in its last two
// dimensions.
std::vector<std::string> operandIndices(const std::vector<std::string>& mins, const std::string& row,
                                        const std::string& col) {
    std::vector<std::string> idx;
    size_t n = mins.size();
    for (size_t d = 0; d < n; ++d) {
        const std::string& m = mins[d];
        if (d + 2 == n)
            idx.push_back(m == "0" ? row : m + " + " + row);
        else if (d + 1 == n)
            idx.push_back(m == "0" ? col : m + " + " + col);
        else
            idx.push_back(m);
    }
    return idx;
}

} // namespace

std::optional<int64_t> KernelEmitter::sharedElementOffset(const Buffer* buffer,
                                                          const std::vector<int64_t>& point) const {
    auto it = m_shared.find(buffer);
    if (it == m_shared.end())
        return std::nullopt;
    const SharedSlot& slot = it->second;
    const std::vector<int64_t>& shape = slot.shape;
    if (shape.empty() || point.size() != shape.size())
        return std::nullopt;
    if (!slot.hasLayout) {
        int64_t offset = 0;
        for (size_t d = 0; d < point.size(); ++d) {
            if (point[d] < 0 || point[d] >= shape[d])
                return std::nullopt;
            offset = offset * shape[d] + point[d];
        }
        return offset;
    }
    size_t r = slot.layout.inputShape().size();
    if (r > point.size())
        return std::nullopt;
    size_t lead = point.size() - r;
    int64_t leading = 0;
    for (size_t d = 0; d < lead; ++d)
        leading = leading * shape[d] + point[d];
    auto inner = slot.layoutOffset(std::span<const int64_t>(point).subspan(lead));
    if (!inner)
        return std::nullopt;
    return leading * slot.layoutOutputSize + *inner;
}

std::string KernelEmitter::gemmHeadline(const GemmLowering& g, const std::string& operands) {
    const Stmt& s = *g.stmt;
    return "T.gemm(" + describeRegion(s.a) + (s.transposeA ? "^T" : "") + ", " + describeRegion(s.b) +
           (s.transposeB ? "^T" : "") + " -> " + g.c->name + "): " + g.plan->instruction.name + ", " +
           g.plan->grid.toString() + ", " + operands;
}

std::optional<KernelEmitter::GemmLowering> KernelEmitter::prepareGemm(const Stmt& s) {
    const layout::GemmPlan* gp = nullptr;
    if (m_plan)
        for (const auto& g : m_plan->gemms)
            if (g.gemm == &s)
                gp = &g;
    auto fail = [&](const std::string& why) {
        error("codegen-gemm-unsupported", s.range, "T.gemm cannot be lowered to mma.sync: " + why,
              "use float16/bfloat16 operands (or float8 ones stored K-major, from shared memory) with a "
              "float32 "
              "accumulator and tiles that are multiples of the instruction's k (16; 32 for float8)");
        return std::nullopt;
    };
    if (!gp)
        return fail("no gemm plan");
    if (gp->instruction.kind == layout::GemmInstructionKind::Wgmma) {
        error("codegen-wgmma-unsupported", s.range,
              "the plan uses wgmma for this T.gemm; the portable CUDA backend emits mma.sync",
              "plan the program for sm_80 (tilec --arch sm_80); the sm_80 code also runs on Hopper");
        return std::nullopt;
    }
    GemmLowering g;
    g.stmt = &s;
    g.plan = gp;
    g.a = s.a.buffer;
    g.b = s.b.buffer;
    g.c = s.c.buffer;
    if (!g.a || !g.b || !g.c)
        return std::nullopt;
    DType at = g.a->dtype;
    // 16-bit pairs (m16n8k16) or float8 pairs, mixed e4m3/e5m2 included (m16n8k32, sm_89 and up: the warp
    // partition checked the target).
    const bool float8 = ir::isFloat8(at) && ir::isFloat8(g.b->dtype);
    const bool sixteen = (at == DType::Float16 || at == DType::BFloat16) && g.b->dtype == at;
    if (!(sixteen || float8) || g.c->dtype != DType::Float32 || g.c->scope != MemoryScope::Fragment ||
        g.b->scope != MemoryScope::Shared ||
        !(g.a->scope == MemoryScope::Shared || g.a->scope == MemoryScope::Fragment) ||
        gp->instruction.k != (float8 ? 32 : 16)) {
        return fail("operands are " + std::string(ir::dtypeName(at)) + " x " + ir::dtypeName(g.b->dtype) +
                    " -> " + ir::dtypeName(g.c->dtype) + " (" + ir::scopeName(g.a->scope) + ", " +
                    ir::scopeName(g.b->scope) + ", " + ir::scopeName(g.c->scope) + ")");
    }
    if (float8 && g.a->scope == MemoryScope::Fragment)
        return fail(
            "a float8 A operand in registers is not lowered (ldmatrix loads float8 operands from shared "
            "memory)");
    if (float8 && (s.transposeA || !s.transposeB))
        return fail("float8 operands are loaded K-major only (A [M][K], B [N][K] with transpose_B=True)");
    g.kStep = gp->instruction.k;
    g.chunk = 16 / ir::dtypeBytes(at);
    auto last2 = [](const ir::Region& r, int64_t& x, int64_t& y) {
        size_t n = r.extents.size();
        if (n < 2)
            return false;
        auto a = ir::constantInt(r.extents[n - 2]), b = ir::constantInt(r.extents[n - 1]);
        if (!a || !b)
            return false;
        x = *a;
        y = *b;
        return true;
    };
    int64_t a0, a1, b0, b1, c0, c1;
    if (!last2(s.a, a0, a1) || !last2(s.b, b0, b1) || !last2(s.c, c0, c1))
        return fail("operand tiles must have constant 2-D shapes");
    g.m = s.transposeA ? a1 : a0;
    g.k = s.transposeA ? a0 : a1;
    g.n = s.transposeB ? b0 : b1;
    int64_t kb = s.transposeB ? b1 : b0;
    const layout::WarpGrid& grid = gp->grid;
    if (kb != g.k || c0 != g.m || c1 != g.n || g.k % g.kStep != 0 ||
        grid.mWarp * grid.nWarp * 32 != m_threads) {
        return fail("shapes " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
                    " with " + std::to_string(grid.mWarp) + "x" + std::to_string(grid.nWarp) +
                    " warps over " + std::to_string(m_threads) + " threads");
    }
    g.warpM = g.m / grid.mWarp;
    g.warpN = g.n / grid.nWarp;
    if (g.warpM % 16 != 0 || g.warpN % 8 != 0)
        return fail("warp tile " + std::to_string(g.warpM) + "x" + std::to_string(g.warpN));
    g.atomsM = g.warpM / 16;
    g.atomsN = g.warpN / 8;
    g.bX4 = g.warpN % 16 == 0;
    g.loadsB = g.bX4 ? g.warpN / 16 : g.atomsN;
    g.steps = g.k / g.kStep;
    // Shared operands: 16-byte rows for ldmatrix (g.chunk elements).
    for (const ir::Region* r : {&s.a, &s.b}) {
        if (r->buffer->scope != MemoryScope::Shared)
            continue;
        auto it = m_shared.find(r->buffer);
        if (it == m_shared.end())
            return fail("shared operand without storage");
        bool ok = isMultipleOf(r->mins.back(), g.chunk);
        if (!it->second.hasLayout) {
            auto last = r->buffer->constantExtent(r->buffer->rank() - 1);
            ok = ok && last && *last % g.chunk == 0;
        } else if (it->second.layout.inputShape().back() % g.chunk != 0) {
            ok = false;
        }
        if (!ok)
            return fail("shared operand '" + r->buffer->name + "' rows are not 16-byte aligned for ldmatrix");
    }
    // Accumulator register of every (mi, nj, v), checked for every thread against C's fragment layout.
    const layout::FragmentPlan* cp = m_plan->fragmentOf(g.c);
    if (!cp)
        return fail("the accumulator has no fragment layout");
    auto cMins = constantMins(s.c);
    if (!cMins)
        return fail("the accumulator region must start at constant indices");
    CompiledFragment cf(cp->fragment);
    g.cSlot.assign(size_t(g.atomsM * g.atomsN * 4), -1);
    for (int64_t t = 0; t < m_threads; ++t) {
        int64_t w = t / 32, lane = t % 32, wm = w % grid.mWarp, wn = w / grid.mWarp, row = lane / 4,
                quad = lane % 4;
        for (int64_t mi = 0; mi < g.atomsM; ++mi)
            for (int64_t nj = 0; nj < g.atomsN; ++nj)
                for (int64_t v = 0; v < 4; ++v) {
                    std::vector<int64_t> p = *cMins;
                    p[p.size() - 2] += wm * g.warpM + mi * 16 + row + 8 * (v / 2);
                    p[p.size() - 1] += wn * g.warpN + nj * 8 + 2 * quad + v % 2;
                    auto slot = cf.registerOf(p);
                    int64_t& want = g.cSlot[size_t((mi * g.atomsN + nj) * 4 + v)];
                    if (!slot || !cf.heldBy(p, t) || (t > 0 && want != *slot))
                        return fail(
                            "the accumulator's fragment layout is not the mma.sync m16n8 layout of this "
                            "warp grid");
                    want = *slot;
                }
    }
    // Register operand A (RS gemm): slot of each (mi, kk, v) of the mma A atom.
    g.registerA = g.a->scope == MemoryScope::Fragment;
    if (g.registerA) {
        const layout::FragmentPlan* ap = m_plan->fragmentOf(g.a);
        auto aMins = constantMins(s.a);
        if (!aMins || !ap)
            return fail("the register operand needs a fragment layout and constant region starts");
        CompiledFragment af(ap->fragment);
        g.aSlot.assign(size_t(g.atomsM * g.steps * 8), -1);
        for (int64_t t = 0; t < m_threads; ++t) {
            int64_t w = t / 32, lane = t % 32, wm = w % grid.mWarp, row = lane / 4, quad = lane % 4;
            for (int64_t mi = 0; mi < g.atomsM; ++mi)
                for (int64_t kk = 0; kk < g.steps; ++kk)
                    for (int64_t v = 0; v < 8; ++v) {
                        int64_t r = wm * g.warpM + mi * 16 + row + 8 * ((v / 2) % 2);
                        int64_t c = kk * 16 + 2 * quad + v % 2 + 8 * (v / 4);
                        std::vector<int64_t> p = *aMins;
                        p[p.size() - 2] += s.transposeA ? c : r;
                        p[p.size() - 1] += s.transposeA ? r : c;
                        auto slot = af.registerOf(p);
                        int64_t& want = g.aSlot[size_t((mi * g.steps + kk) * 8 + v)];
                        if (!slot || !af.heldBy(p, t) || (t > 0 && want != *slot))
                            return fail(
                                "the register operand's fragment layout is not the mma.sync A layout");
                        want = *slot;
                    }
        }
    }
    g.lane = internalName("lane");
    g.warpMVar = internalName("warp_m");
    g.warpNVar = internalName("warp_n");
    g.aFrag = internalName("a_frag");
    g.bFrag = internalName("b_frag");
    g.mma = float8 ? float8MmaFunction(at, g.b->dtype) : at == DType::Float16 ? "tb_mma_f16" : "tb_mma_bf16";
    g.cName = nameOf(g.c);
    if (!g.registerA)
        g.aAddr = solveOperandAddressing(g, true);
    g.bAddr = solveOperandAddressing(g, false);
    return g;
}

KernelEmitter::OperandAddressing KernelEmitter::solveOperandAddressing(const GemmLowering& g, bool operandA) {
    OperandAddressing out;
    const Stmt& s = *g.stmt;
    const ir::Region& region = operandA ? s.a : s.b;
    const bool transposed = operandA ? s.transposeA : s.transposeB;
    const int64_t atoms = operandA ? g.atomsM : g.loadsB;
    const int64_t atomStride = operandA ? 16 : (g.bX4 ? 16 : 8);
    auto mins = constantMins(region);
    if (!mins)
        return out; // a region that moves at run time keeps the per-load expressions
    const layout::WarpGrid& grid = g.plan->grid;
    // Lanes whose address ldmatrix reads: all 32 for x4, the first 16 for x2.
    const int64_t lanesUsed = operandA || g.bX4 ? 32 : 16;
    auto offsetOf = [&](int64_t t, int64_t atom, int64_t step) -> std::optional<int64_t> {
        int64_t lane = t % 32, w = t / 32, wm = w % grid.mWarp, wn = w / grid.mWarp;
        auto [row, col] = operandA
                              ? ldmatrixLaneA<int64_t>(transposed, wm * g.warpM + atom * atomStride,
                                                       step * g.kStep, lane, g.chunk)
                              : ldmatrixLaneB<int64_t>(transposed, g.bX4, wn * g.warpN + atom * atomStride,
                                                       step * g.kStep, lane, g.chunk);
        std::vector<int64_t> q = *mins;
        q[q.size() - 2] += row;
        q[q.size() - 1] += col;
        return sharedElementOffset(region.buffer, q);
    };
    std::vector<int64_t> base(static_cast<size_t>(m_threads));
    for (int64_t t = 0; t < m_threads; ++t) {
        auto o = offsetOf(t, 0, 0);
        if (!o)
            return out;
        base[size_t(t)] = *o;
    }
    auto fits = [&](int64_t atom, int64_t step, int64_t x, int64_t add) {
        for (int64_t t = 0; t < m_threads; ++t) {
            if (t % 32 >= lanesUsed)
                continue;
            auto o = offsetOf(t, atom, step);
            if (!o || *o != (base[size_t(t)] ^ x) + add)
                return false;
        }
        return true;
    };
    const int64_t bytes = ir::dtypeBytes(region.buffer->dtype);
    if (bytes != 1 && bytes != 2 && bytes != 4)
        return out;
    std::vector<int64_t> xorOfStep(size_t(g.steps), 0), xorOfAtom(size_t(atoms), 0);
    std::vector<int64_t> xorElems(size_t(atoms * g.steps), 0), addElems(size_t(atoms * g.steps), 0);
    for (int64_t atom = 0; atom < atoms; ++atom)
        for (int64_t step = 0; step < g.steps; ++step) {
            auto o0 = offsetOf(0, atom, step);
            if (!o0)
                return out;
            // Candidates, fewest lane registers first: the XORs atom 0 and k step 0 found, none, both, and
            // the XOR that makes thread 0 exact.
            std::vector<int64_t> candidates = {xorOfStep[size_t(step)], xorOfAtom[size_t(atom)], 0,
                                               xorOfStep[size_t(step)] ^ xorOfAtom[size_t(atom)],
                                               *o0 ^ base[0]};
            bool found = false;
            for (int64_t x : candidates) {
                int64_t add = *o0 - (base[0] ^ x);
                if (fits(atom, step, x, add)) {
                    xorElems[size_t(atom * g.steps + step)] = x;
                    addElems[size_t(atom * g.steps + step)] = add;
                    if (atom == 0)
                        xorOfStep[size_t(step)] = x;
                    if (step == 0)
                        xorOfAtom[size_t(atom)] = x;
                    found = true;
                    break;
                }
            }
            if (!found)
                return out;
        }
    for (size_t i = 0; i < xorElems.size(); ++i) {
        int64_t x = xorElems[i] * bytes; // a power-of-two scale commutes with XOR
        auto it = std::find(out.xors.begin(), out.xors.end(), x);
        if (it == out.xors.end()) {
            out.xors.push_back(x);
            it = out.xors.end() - 1;
        }
        out.xorOf.push_back(size_t(it - out.xors.begin()));
        out.adds.push_back(addElems[i] * bytes);
    }
    // The lane's offset at atom 0, k step 0, as C: the layout formula without the stage term.
    const CText lane = CText::var(g.lane), k0 = CText::var("0");
    auto [row, col] =
        operandA ? ldmatrixLaneA(transposed, warpOrigin(g.warpMVar, g.warpM), k0, lane, g.chunk)
                 : ldmatrixLaneB(transposed, g.bX4, warpOrigin(g.warpNVar, g.warpN), k0, lane, g.chunk);
    std::vector<std::string> minTexts;
    for (int64_t m : *mins)
        minTexts.push_back(std::to_string(m));
    std::vector<std::string> idx = operandIndices(minTexts, row.text, col.text);
    out.laneExpr = std::to_string(bytes) + " * (" + sharedOffset(region.buffer, idx, false) + ")";
    out.solved = true;
    return out;
}

void KernelEmitter::emitGemmLaneSetup(GemmLowering& g) {
    const Stmt& s = *g.stmt;
    const layout::WarpGrid& grid = g.plan->grid;
    line("const int " + g.lane + " = " + m_tx + " % 32;");
    line("const int " + g.warpMVar + " = (" + m_tx + " / 32) % " + std::to_string(grid.mWarp) + ";");
    line("const int " + g.warpNVar + " = (" + m_tx + " / 32) / " + std::to_string(grid.mWarp) + ";");
    for (OperandAddressing* addr : {&g.aAddr, &g.bAddr}) {
        if (!addr->solved)
            continue;
        const Buffer* buffer = addr == &g.aAddr ? g.a : g.b;
        SourceRange range = addr == &g.aAddr ? s.a.range : s.b.range;
        std::string base = unique(nameOf(buffer) + "_row");
        line("const unsigned " + base + " = " + addr->laneExpr + "; // this lane's ldmatrix row in " +
                 buffer->name + " (bytes)",
             range);
        addr->regNames.clear();
        for (int64_t x : addr->xors) {
            if (x == 0) {
                addr->regNames.push_back(base);
                continue;
            }
            std::string name = unique(base + "_x" + std::to_string(x));
            line("const unsigned " + name + " = " + base + " ^ " + std::to_string(x) + "u;", range);
            addr->regNames.push_back(name);
        }
    }
}

void KernelEmitter::emitGemmLoads(const GemmLowering& g, int64_t step, const std::string& aRef,
                                  const std::string& bRef, const std::string& predicate) {
    // "tb_ldmatrix_x4(" -> "tb_ldmatrix_x4_if(" and the predicate as the last argument.
    auto call = [&](const std::string& op, const std::string& dst, const std::string& ptr) {
        if (predicate.empty())
            return op + dst + ", " + ptr + ");";
        return op.substr(0, op.size() - 1) + "_if(" + dst + ", " + ptr + ", " + predicate + ");";
    };
    const Stmt& s = *g.stmt;
    // The 32-bit shared-window address of a load: arena base, stage, the lane register and a constant.
    auto address = [&](const ir::Region& r, const OperandAddressing& addr, int64_t atom) {
        size_t i = size_t(atom * g.steps + step);
        const SharedSlot& slot = m_shared.at(r.buffer);
        int64_t constant = slot.offset + addr.adds[i];
        std::string text =
            "tb_smem_s " + std::string(constant < 0 ? "- " : "+ ") + std::to_string(std::abs(constant));
        auto stage = m_stageExpr.find(r.buffer);
        if (slot.stages > 1 && stage != m_stageExpr.end())
            text += " + " + stage->second + " * " +
                    std::to_string(slot.stageElements * ir::dtypeBytes(r.buffer->dtype));
        return text + " + " + addr.regNames[addr.xorOf[i]];
    };
    // Fallback address (a region that moves at run time): the layout formula per load.
    auto formula = [&](const ir::Region& r, const std::string& row, const std::string& col) {
        std::vector<std::string> minTexts;
        for (const auto& m : r.mins)
            minTexts.push_back(expr(m));
        std::vector<std::string> idx = operandIndices(minTexts, row, col);
        int64_t base = m_shared.at(r.buffer).offset;
        return "tb_smem_s + " + std::to_string(base) + " + " +
               std::to_string(ir::dtypeBytes(r.buffer->dtype)) + " * (" + sharedOffset(r.buffer, idx) + ")";
    };
    const CText k0 = CText::var(std::to_string(step * g.kStep)), lane = CText::var(g.lane);
    if (!g.registerA) {
        const char* op = s.transposeA ? "tb_ldmatrix_x4_trans(" : "tb_ldmatrix_x4(";
        for (int64_t mi = 0; mi < g.atomsM; ++mi) {
            std::string ptr;
            if (g.aAddr.solved) {
                ptr = address(s.a, g.aAddr, mi);
            } else {
                auto [row, col] =
                    ldmatrixLaneA(s.transposeA, warpOrigin(g.warpMVar, g.warpM, mi * 16), k0, lane, g.chunk);
                ptr = formula(s.a, row.text, col.text);
            }
            line(call(op, aRef + "[" + std::to_string(mi) + "]", ptr), s.a.range);
        }
    }
    const char* op = !s.transposeB ? (g.bX4 ? "tb_ldmatrix_x4_trans(" : "tb_ldmatrix_x2_trans(")
                                   : (g.bX4 ? "tb_ldmatrix_x4(" : "tb_ldmatrix_x2(");
    for (int64_t ni = 0; ni < g.loadsB; ++ni) {
        std::string ptr;
        if (g.bAddr.solved) {
            ptr = address(s.b, g.bAddr, ni);
        } else {
            auto [row, col] =
                ldmatrixLaneB(s.transposeB, g.bX4, warpOrigin(g.warpNVar, g.warpN, ni * (g.bX4 ? 16 : 8)), k0,
                              lane, g.chunk);
            ptr = formula(s.b, row.text, col.text);
        }
        line(call(op, bRef + "[" + std::to_string(ni) + "]", ptr), s.b.range);
    }
}

namespace {

// The accumulator slot of (atom row i, atom column j, register v) as c0 + i * si + j * sj + v, when the plan
// places it so (it does for the mma.sync layouts); nullopt otherwise.
struct AffineSlots {
    int64_t c0, si, sj;
};
std::optional<AffineSlots> affineSlots(const std::vector<int64_t>& slot, int64_t atomsM, int64_t atomsN) {
    auto at = [&](int64_t i, int64_t j, int v) { return slot[size_t((i * atomsN + j) * 4 + v)]; };
    AffineSlots a{at(0, 0, 0), atomsM > 1 ? at(1, 0, 0) - at(0, 0, 0) : 0,
                  atomsN > 1 ? at(0, 1, 0) - at(0, 0, 0) : 0};
    for (int64_t i = 0; i < atomsM; ++i)
        for (int64_t j = 0; j < atomsN; ++j)
            for (int v = 0; v < 4; ++v)
                if (at(i, j, v) != a.c0 + i * a.si + j * a.sj + v)
                    return std::nullopt;
    return a;
}

} // namespace

void KernelEmitter::emitGemmMmas(const GemmLowering& g, const std::string& aRef, const std::string& bRef) {
    const Stmt& s = *g.stmt;
    // One mma per (atom row, atom column). Written as an unrolled loop nest where the accumulator slots allow
    // it: the same instructions after unrolling, a few lines to read instead of atomsM x atomsN, and NVVM
    // optimizes the loop nest in about two thirds of the time it takes for the straight-line calls.
    if (std::optional<AffineSlots> a = affineSlots(g.cSlot, g.atomsM, g.atomsN);
        a && g.atomsM * g.atomsN > 1) {
        const std::string &i = m_atomRowName, &j = m_atomColName, &c = m_accSlotName;
        line("#pragma unroll");
        open("for (int " + i + " = 0; " + i + " < " + std::to_string(g.atomsM) + "; ++" + i + ")", s.range);
        line("#pragma unroll");
        open("for (int " + j + " = 0; " + j + " < " + std::to_string(g.atomsN) + "; ++" + j + ")", s.range);
        std::string slot = a->c0 ? std::to_string(a->c0) : "";
        for (auto [name, stride] : {std::pair{i, a->si}, std::pair{j, a->sj}})
            if (stride)
                slot += (slot.empty() ? "" : " + ") + name + " * " + std::to_string(stride);
        line("const int " + c + " = " + slot + ";", s.range);
        std::string b0 = bRef + "[" + j + "][0]", b1 = bRef + "[" + j + "][1]";
        if (g.bX4) { // one x4 load holds two n8 atoms' registers
            b0 = bRef + "[" + j + " / 2][" + j + " % 2 * 2]";
            b1 = bRef + "[" + j + " / 2][" + j + " % 2 * 2 + 1]";
        }
        line(g.mma + "(" + g.cName + "[" + c + "], " + g.cName + "[" + c + " + 1], " + g.cName + "[" + c +
                 " + 2], " + g.cName + "[" + c + " + 3], " + aRef + "[" + i + "], " + b0 + ", " + b1 + ");",
             s.range);
        close();
        close();
        return;
    }
    for (int64_t i = 0; i < g.atomsM; ++i) {
        std::string a = aRef + "[" + std::to_string(i) + "]";
        for (int64_t j = 0; j < g.atomsN; ++j) {
            std::string c;
            for (int v = 0; v < 4; ++v)
                c += g.cName + "[" + std::to_string(g.cSlot[size_t((i * g.atomsN + j) * 4 + v)]) + "], ";
            std::string b0, b1;
            if (g.bX4) {
                b0 = bRef + "[" + std::to_string(j / 2) + "][" + std::to_string((j % 2) * 2) + "]";
                b1 = bRef + "[" + std::to_string(j / 2) + "][" + std::to_string((j % 2) * 2 + 1) + "]";
            } else {
                b0 = bRef + "[" + std::to_string(j) + "][0]";
                b1 = bRef + "[" + std::to_string(j) + "][1]";
            }
            line(g.mma + "(" + c + a + ", " + b0 + ", " + b1 + ");", s.range);
        }
    }
}

const layout::GemmPlan* KernelEmitter::wgmmaPlanOf(const Stmt& s) const {
    if (!m_plan || !m_target.hasWgmma)
        return nullptr;
    for (const layout::GemmPlan& g : m_plan->gemms)
        if (g.gemm == &s && g.instruction.kind == layout::GemmInstructionKind::Wgmma)
            return &g;
    return nullptr;
}

bool KernelEmitter::wgmmaReads(const ir::Buffer* buffer) const {
    if (!m_plan || !m_target.hasWgmma)
        return false;
    for (const layout::GemmPlan& g : m_plan->gemms)
        if (g.instruction.kind == layout::GemmInstructionKind::Wgmma &&
            ((g.gemm->a.buffer == buffer && buffer->scope == MemoryScope::Shared) ||
             g.gemm->b.buffer == buffer))
            return true;
    return false;
}

void KernelEmitter::lowerGemm(const Stmt& s) {
    std::optional<GemmLowering> prepared = prepareGemm(s);
    if (!prepared)
        return;
    GemmLowering& g = *prepared;
    comment(gemmHeadline(g, g.registerA ? "A from registers" : "ldmatrix operands"), s.range);
    openBlock("", s.range);
    emitGemmLaneSetup(g);
    if (s.clearAccum && ir::constantInt(s.clearAccum) != 0) {
        const layout::FragmentPlan* cp = m_plan->fragmentOf(g.c);
        bool always = ir::constantInt(s.clearAccum).has_value();
        std::string head = always ? "" : "if (" + expr(s.clearAccum) + ") ";
        line(head + "for (int " + m_regName + " = 0; " + m_regName + " < " +
                 std::to_string(cp->fragment.registersPerThread()) + "; ++" + m_regName + ") " + g.cName +
                 "[" + m_regName + "] = 0.0f; // clear_accum",
             s.range);
    }
    const std::string bDims = "[" + std::to_string(g.loadsB) + "][" + (g.bX4 ? "4" : "2") + "]";
    if (!g.registerA) {
        // Operands double-buffered across k steps: step k+1's ldmatrix are issued before step k's mma, so the
        // shared-memory latency overlaps the tensor-core work.
        line("unsigned " + g.aFrag + "[2][" + std::to_string(g.atomsM) + "][4];");
        line("unsigned " + g.bFrag + "[2]" + bDims + ";");
        emitGemmLoads(g, 0, g.aFrag + "[0]", g.bFrag + "[0]");
        for (int64_t k = 0; k < g.steps; ++k) {
            comment("k step " + std::to_string(k) + " of " + std::to_string(g.steps), s.range);
            std::string next = "[" + std::to_string((k + 1) & 1) + "]",
                        cur = "[" + std::to_string(k & 1) + "]";
            if (k + 1 < g.steps)
                emitGemmLoads(g, k + 1, g.aFrag + next, g.bFrag + next);
            emitGemmMmas(g, g.aFrag + cur, g.bFrag + cur);
        }
    } else {
        const std::string pack = g.a->dtype == DType::Float16 ? "tb_pack_f16" : "tb_pack_bf16";
        const std::string aName = nameOf(g.a);
        for (int64_t k = 0; k < g.steps; ++k) {
            openBlock("k step " + std::to_string(k), s.range);
            line("unsigned " + g.aFrag + "[" + std::to_string(g.atomsM) + "][4];");
            for (int64_t i = 0; i < g.atomsM; ++i)
                for (int reg = 0; reg < 4; ++reg) {
                    auto slot = [&](int v) {
                        return std::to_string(g.aSlot[size_t((i * g.steps + k) * 8 + v)]);
                    };
                    line(g.aFrag + "[" + std::to_string(i) + "][" + std::to_string(reg) + "] = " + pack +
                             "(" + aName + "[" + slot(2 * reg) + "], " + aName + "[" + slot(2 * reg + 1) +
                             "]);",
                         s.a.range);
                }
            line("unsigned " + g.bFrag + bDims + ";");
            emitGemmLoads(g, k, g.aFrag, g.bFrag);
            emitGemmMmas(g, g.aFrag, g.bFrag);
            close();
        }
    }
    close();
}

bool KernelEmitter::emitWovenGemmPipeline(const Stmt& gemm, const PipelineSteps& steps) {
    std::optional<GemmLowering> prepared = prepareGemm(gemm);
    if (!prepared)
        return true; // diagnosed; the loop is not emitted
    GemmLowering& g = *prepared;
    const bool clears = gemm.clearAccum && ir::constantInt(gemm.clearAccum) != 0;
    if (g.registerA || clears || g.steps < 2 || !g.aAddr.solved || !g.bAddr.solved)
        return false;
    const Stmt& s = gemm;
    comment(gemmHeadline(g, "ldmatrix operands woven with the pipeline: the next tile's first fragments load "
                            "during the last k step"),
            s.range);
    emitGemmLaneSetup(g);
    const std::string bDims = "[" + std::to_string(g.loadsB) + "][" + (g.bX4 ? "4" : "2") + "]";
    line("unsigned " + g.aFrag + "[2][" + std::to_string(g.atomsM) + "][4];");
    line("unsigned " + g.bFrag + "[2]" + bDims + ";");
    steps.waitTile(false); // the first tile, read from slot 0
    emitGemmLoads(g, 0, g.aFrag + "[0]", g.bFrag + "[0]");
    steps.openLoop();
    for (int64_t k = 0; k < g.steps; ++k) {
        comment("k step " + std::to_string(k) + " of " + std::to_string(g.steps), s.range);
        if (k + 1 == g.steps)
            steps.waitTile(true);
        std::string next = "[" + std::to_string((k + 1) & 1) + "]", cur = "[" + std::to_string(k & 1) + "]";
        // The last step loads the next tile's first operands; the last tile has none to load (loading them
        // anyway would read a stale slot and cost shared-memory wavefronts the program never asked for).
        // Predicated, not branched: a branch would split the block the loads overlap the mma in.
        emitGemmLoads(g, (k + 1) % g.steps, g.aFrag + next, g.bFrag + next,
                      k + 1 == g.steps ? steps.hasNextTile : std::string());
        if (k == 0)
            steps.issuePrefetch();
        emitGemmMmas(g, g.aFrag + cur, g.bFrag + cur);
    }
    close();
    return true;
}

} // namespace tb::codegen
