// T.gemm on the hopper backend: wgmma.mma_async m64nNk16 (m64nNk32 for float8, both operands K-major) issued
// by each warpgroup of the plan's warp grid, B (and A, in the SS form) read from shared memory through
// descriptors built from the operand's swizzled layout, A from registers in the RS form, the accumulator in
// the registers the plan's C fragment gives (checked for every thread: each atom's N/2 registers must be
// consecutive, wgmma's own order). A batch is fenced, committed and waited for (wait_group 0) unless the
// kernel schedule keeps it in flight (a pipelined loop of copies and this one gemm), then the accumulators
// are fenced against the compiler.
//
// Descriptors (PTX ISA "Matrix Descriptor Format"; docs/hopper-device.md): an operand tile of R rows and C
// contiguous columns with a W-byte swizzle is C*eb/W panels of [R rows][W bytes], each panel contiguous.
//   K-major (A[m][k], B[n][k]): rows are M (or N); atom rows r0.., k step k0..k0+15:
//       start = base + (k0 / P) * R*W + r0*W + (k0 % P) * eb, SBO = 8*W, LBO = 16 (unused)
//   MN-major (A[k][m], B[k][n]): rows are K; atom columns n0.., k step k0:
//       start = base + (n0 / P) * R*W + k0*W, LBO = R*W (the panel stride), SBO = 8*W
// where P = W / eb elements per panel row.
#include "engine/codegen/HopperDeviceHeader.h"
#include "engine/codegen/KernelEmitter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::DType;
using ir::MemoryScope;
using ir::Stmt;

namespace {

std::optional<std::vector<int64_t>> regionConstantMins(const ir::Region& r) {
    std::vector<int64_t> mins;
    for (const auto& m : r.mins) {
        auto v = ir::constantInt(m);
        if (!v)
            return std::nullopt;
        mins.push_back(*v);
    }
    return mins;
}

int swizzleBytes(layout::SharedLayoutKind kind) {
    switch (kind) {
    case layout::SharedLayoutKind::Full128B:
        return 128;
    case layout::SharedLayoutKind::Half64B:
        return 64;
    case layout::SharedLayoutKind::Quarter32B:
        return 32;
    case layout::SharedLayoutKind::Linear:
    case layout::SharedLayoutKind::Padded:
        return 0;
    }
    return 0;
}

// The wrapper's operand types of a gemm: A's, and B's where it differs (float8 pairs may mix e4m3 and e5m2).
void setWgmmaOperands(WgmmaShape& shape, DType a, DType b) {
    auto operandOf = [](DType t) {
        switch (t) {
        case DType::BFloat16:
            return WgmmaShape::Operand::BF16;
        case DType::Float8E4M3:
            return WgmmaShape::Operand::E4M3;
        case DType::Float8E5M2:
            return WgmmaShape::Operand::E5M2;
        default:
            return WgmmaShape::Operand::F16;
        }
    };
    shape.operand = operandOf(a);
    if (operandOf(b) != shape.operand)
        shape.operandB = operandOf(b);
}

const char* swizzleMacro(int bytes) {
    return bytes == 128  ? "TB_WGMMA_SWIZZLE_128B"
           : bytes == 64 ? "TB_WGMMA_SWIZZLE_64B"
                         : "TB_WGMMA_SWIZZLE_32B";
}

} // namespace

// The shared-memory geometry of one wgmma operand, or an error message.
std::string KernelEmitter::wgmmaOperandGeometry(const ir::Region& region, bool kMajor, WgmmaOperand& op) {
    const ir::Buffer* b = region.buffer;
    auto it = m_shared.find(b);
    const layout::SharedBufferPlan* sp = m_plan ? m_plan->sharedOf(b) : nullptr;
    if (it == m_shared.end() || !it->second.hasLayout || !sp)
        return "operand '" + b->name + "' has no shared layout";
    op.swizzle = swizzleBytes(sp->choice.kind);
    if (op.swizzle == 0)
        return "operand '" + b->name + "' has a " + layout::sharedLayoutKindName(sp->choice.kind) +
               " layout; wgmma descriptors here need a 32B, 64B or 128B swizzle";
    // A buffer of several 2-D tiles (the stages a program indexes itself) repeats the tile's layout.
    const std::vector<int64_t>& in = it->second.layout.inputShape();
    if (in.size() < 2)
        return "operand '" + b->name + "' is not a 2-D tile";
    op.rows = in[in.size() - 2];
    op.elementBytes = ir::dtypeBytes(b->dtype);
    op.panelElements = op.swizzle / op.elementBytes;
    op.kMajor = kMajor;
    // The region must be the whole tile in its last two dimensions; leading dimensions (a stage the
    // program indexes itself) give the start.
    size_t n = region.mins.size();
    for (size_t d = n - 2; d < n; ++d)
        if (ir::constantInt(region.mins[d]) != 0)
            return "operand '" + b->name + "' is a part of its tile; wgmma reads whole tiles";
    std::vector<std::string> idx;
    for (const ir::ExprPtr& m : region.mins)
        idx.push_back(expr(m));
    // The tile's place in the arena, then the element's place in the tile (a stage index included).
    op.base = "tb_smem_s + " + std::to_string(it->second.offset) + " + " + std::to_string(op.elementBytes) +
              " * (" + sharedOffset(b, idx) + ")";
    return {};
}

// The descriptor of one operand's (row block, k step) as C text.
std::string KernelEmitter::wgmmaDescriptorText(const WgmmaOperand& op, int64_t outer0, int64_t k0) const {
    const int64_t W = op.swizzle, R = op.rows, P = op.panelElements;
    int64_t offset = 0, lbo = 16, sbo = 8 * W;
    if (op.kMajor) {
        offset = (k0 / P) * R * W + outer0 * W + (k0 % P) * op.elementBytes;
    } else {
        offset = (outer0 / P) * R * W + (outer0 % P) * op.elementBytes + k0 * W;
        lbo = R * W;
    }
    return "tb_wgmma_desc(" + op.descBase + " + " + std::to_string(offset) + ", " + std::to_string(lbo) +
           ", " + std::to_string(sbo) + ", " + swizzleMacro(int(W)) + ")";
}

std::optional<KernelEmitter::WgmmaGemm> KernelEmitter::prepareWgmma(const Stmt& s,
                                                                    const layout::GemmPlan& gp) {
    auto fail = [&](const std::string& why) {
        error("codegen-wgmma-unsupported", s.range, "T.gemm cannot be lowered to wgmma: " + why,
              "use float16/bfloat16 (or K-major float8) operands, a float32 accumulator and swizzled shared "
              "tiles, or --backend portable");
        return std::nullopt;
    };
    WgmmaGemm g;
    g.stmt = &s;
    g.plan = &gp;
    const ir::Buffer *a = s.a.buffer, *b = s.b.buffer, *c = s.c.buffer;
    if (!a || !b || !c)
        return std::nullopt;
    DType at = a->dtype;
    const bool float8 = ir::isFloat8(at) && ir::isFloat8(b->dtype); // m64nNk32, e4m3/e5m2 mixed or not
    if (!(((at == DType::Float16 || at == DType::BFloat16) && b->dtype == at) || float8) ||
        c->dtype != DType::Float32 || c->scope != MemoryScope::Fragment || b->scope != MemoryScope::Shared ||
        !(a->scope == MemoryScope::Shared || a->scope == MemoryScope::Fragment))
        return fail(std::string("operands are ") + ir::dtypeName(at) + " x " + ir::dtypeName(b->dtype) +
                    " -> " + ir::dtypeName(c->dtype));
    if (float8 && a->scope == MemoryScope::Fragment)
        return fail("a float8 A operand in registers (the RS form) is not lowered; keep A in shared memory");
    if (float8 && (s.transposeA || !s.transposeB))
        return fail("float8 wgmma reads both operands K-major (A [M][K], B [N][K] with transpose_B=True)");
    g.kStep = float8 ? 32 : 16;
    const layout::WarpGrid& grid = gp.grid;
    g.m = grid.M;
    g.n = grid.N;
    auto ext = [](const ir::Region& r, size_t fromEnd) {
        return ir::constantInt(r.extents[r.extents.size() - fromEnd]);
    };
    if (s.a.extents.size() < 2 || s.b.extents.size() < 2)
        return fail("operands must be 2-D tiles");
    std::optional<int64_t> k = s.transposeA ? ext(s.a, 2) : ext(s.a, 1);
    if (!k || *k % g.kStep != 0)
        return fail("K must be a constant multiple of " + std::to_string(g.kStep));
    g.k = *k;
    g.groupsM = grid.mWarp / 4;
    g.groupsN = grid.nWarp;
    if (grid.mWarp % 4 != 0 || g.groupsM * g.groupsN * 128 != m_threads)
        return fail("the warp grid does not cover the " + std::to_string(m_threads) + " consumer threads");
    g.instN = grid.atomN;
    g.atomsM = grid.atomsM;
    g.atomsN = grid.atomsN;
    g.groupTileM = grid.warpTileM;
    g.groupTileN = grid.warpTileN;
    g.registerA = a->scope == MemoryScope::Fragment;
    WgmmaShape shape;
    shape.n = int(g.instN);
    setWgmmaOperands(shape, at, b->dtype);
    shape.aForm = g.registerA ? WgmmaShape::AForm::RS : WgmmaShape::AForm::SS;
    g.float8 = float8;
    if (std::string problem = wgmmaShapeProblem(shape); !problem.empty())
        return fail(problem);
    g.function = wgmmaFunctionName(shape);
    g.accRegs = wgmmaAccumulatorRegisters(shape);
    if (!g.registerA)
        if (std::string e = wgmmaOperandGeometry(s.a, !s.transposeA, g.opA); !e.empty())
            return fail(e);
    if (std::string e = wgmmaOperandGeometry(s.b, s.transposeB, g.opB); !e.empty())
        return fail(e);
    // MN-major operands: each instruction and each warpgroup starts on a swizzle panel and covers whole
    // panels (TileLang chooses the swizzle from the instruction's width, which guarantees it).
    auto panelsFit = [&](const WgmmaOperand& op, int64_t width, int64_t groupTile) {
        return op.kMajor || (width % op.panelElements == 0 && groupTile % op.panelElements == 0);
    };
    if ((!g.registerA && !panelsFit(g.opA, 64, g.groupTileM)) || !panelsFit(g.opB, g.instN, g.groupTileN))
        return fail("an MN-major operand's " + std::to_string(g.opB.swizzle) +
                    "B swizzle panel is wider than the instruction's or the warpgroup's columns");
    if (std::string e = wgmmaRegisterSlots(g); !e.empty())
        return fail(e);
    return g;
}

// The accumulator (and register-A) slots of every atom, the same in every consumer thread.
std::string KernelEmitter::wgmmaRegisterSlots(WgmmaGemm& g) {
    const Stmt& s = *g.stmt;
    const layout::FragmentPlan* cp = m_plan->fragmentOf(s.c.buffer);
    auto cMins = regionConstantMins(s.c);
    if (!cp || !cMins)
        return "the accumulator needs a fragment layout and a constant region start";
    CompiledFragment cf(cp->fragment);
    g.cBase.assign(size_t(g.atomsM * g.atomsN), -1);
    for (int64_t t = 0; t < m_threads; ++t) {
        int64_t group = t / 128, warp = (t % 128) / 32, lane = t % 32, gm = group % g.groupsM,
                gn = group / g.groupsM;
        for (int64_t mi = 0; mi < g.atomsM; ++mi)
            for (int64_t nj = 0; nj < g.atomsN; ++nj)
                for (int64_t v = 0; v < g.accRegs; ++v) {
                    std::vector<int64_t> p = *cMins;
                    p[p.size() - 2] += gm * g.groupTileM + mi * 64 + 16 * warp + lane / 4 + 8 * ((v / 2) % 2);
                    p[p.size() - 1] +=
                        gn * g.groupTileN + nj * g.instN + 8 * (v / 4) + 2 * (lane % 4) + v % 2;
                    auto slot = cf.registerOf(p);
                    int64_t& base = g.cBase[size_t(mi * g.atomsN + nj)];
                    if (!slot || !cf.heldBy(p, t) || (base >= 0 && *slot != base + v) || (base < 0 && v != 0))
                        return "the accumulator's fragment layout is not wgmma's register order for this "
                               "warp grid";
                    if (base < 0)
                        base = *slot;
                }
    }
    if (!g.registerA)
        return {};
    const layout::FragmentPlan* ap = m_plan->fragmentOf(s.a.buffer);
    auto aMins = regionConstantMins(s.a);
    if (!ap || !aMins)
        return "the register operand needs a fragment layout and a constant region start";
    CompiledFragment af(ap->fragment);
    const int64_t steps = g.k / 16;
    g.aSlot.assign(size_t(g.atomsM * steps * 8), -1);
    for (int64_t t = 0; t < m_threads; ++t) {
        int64_t group = t / 128, warp = (t % 128) / 32, lane = t % 32, gm = group % g.groupsM;
        for (int64_t mi = 0; mi < g.atomsM; ++mi)
            for (int64_t kk = 0; kk < steps; ++kk)
                for (int64_t v = 0; v < 8; ++v) {
                    int64_t r = gm * g.groupTileM + mi * 64 + 16 * warp + lane / 4 + 8 * ((v / 2) % 2);
                    int64_t c = kk * 16 + 2 * (lane % 4) + v % 2 + 8 * (v / 4);
                    std::vector<int64_t> p = *aMins;
                    p[p.size() - 2] += s.transposeA ? c : r;
                    p[p.size() - 1] += s.transposeA ? r : c;
                    auto slot = af.registerOf(p);
                    int64_t& want = g.aSlot[size_t((mi * steps + kk) * 8 + v)];
                    if (!slot || !af.heldBy(p, t) || (t > 0 && want != *slot))
                        return "the register operand's fragment layout is not wgmma's A register order";
                    want = *slot;
                }
    }
    return {};
}

void KernelEmitter::lowerWgmma(const Stmt& s, const layout::GemmPlan& gp) {
    std::optional<WgmmaGemm> prepared = prepareWgmma(s, gp);
    if (!prepared)
        return;
    WgmmaGemm& g = *prepared;
    syncFor(s); // the barrier fences generic writes of the operands for wgmma's async proxy (barrier())
    comment("T.gemm(" + describeRegion(s.a) + (s.transposeA ? "^T" : "") + ", " + describeRegion(s.b) +
                (s.transposeB ? "^T" : "") + " -> " + s.c.buffer->name + "): " + gp.instruction.name + ", " +
                gp.grid.toString() + ", wgmma m64n" + std::to_string(g.instN) + "k" +
                std::to_string(g.kStep) + " " + (g.registerA ? "RS (A from registers)" : "SS (descriptors)"),
            s.range);
    openBlock("", s.range);
    const std::string group = internalName("wg");
    line("const int " + group + " = " + m_tx + " / 128; // this thread's warpgroup", s.range);
    const std::string gm = g.groupsM > 1 ? "(" + group + " % " + std::to_string(g.groupsM) + ")" : "0";
    const std::string gn = g.groupsM > 1 ? "(" + group + " / " + std::to_string(g.groupsM) + ")" : group;
    // Each warpgroup's operand bases: its rows of A (or columns of A^T) and its columns of B.
    auto operandBase = [&](WgmmaOperand& op, const std::string& name, const std::string& groupIndex,
                           int64_t tile) {
        op.descBase = internalName(name);
        // K-major: a group's first row is `tile * index` rows on; MN-major: its first column is whole panels
        // on.
        std::string offset =
            "(" + groupIndex + ") * " +
            std::to_string(op.kMajor ? tile * op.swizzle : tile / op.panelElements * op.rows * op.swizzle);
        line("const unsigned " + op.descBase + " = " + op.base + " + " + offset + ";", s.range);
    };
    if (!g.registerA)
        operandBase(g.opA, "desc_a", gm, g.groupTileM);
    operandBase(g.opB, "desc_b", gn, g.groupTileN);
    const std::string cName = nameOf(s.c.buffer);
    const std::optional<int64_t> clearAlways =
        s.clearAccum ? ir::constantInt(s.clearAccum) : std::optional<int64_t>(0);
    const std::string firstScale = !s.clearAccum || clearAlways == 0 ? "1"
                                   : clearAlways                     ? "0"
                                                 : "((" + expr(s.clearAccum) + ") ? 0 : 1)";
    // Scale A and B, then the transposes (float8 forms have none: both operands are K-major).
    const std::string trans = g.float8      ? std::string("<1, 1>")
                              : g.registerA ? "<1, 1, " + std::string(g.opB.kMajor ? "0" : "1") + ">"
                                            : "<1, 1, " + std::string(g.opA.kMajor ? "0" : "1") + ", " +
                                                  (g.opB.kMajor ? "0" : "1") + ">";
    line("tb_wgmma_fence();", s.range);
    const int64_t steps = g.k / g.kStep;
    for (int64_t mi = 0; mi < g.atomsM; ++mi)
        for (int64_t nj = 0; nj < g.atomsN; ++nj)
            for (int64_t kk = 0; kk < steps; ++kk) {
                std::string acc = "*reinterpret_cast<float(*)[" + std::to_string(g.accRegs) + "]>(" + cName +
                                  " + " + std::to_string(g.cBase[size_t(mi * g.atomsN + nj)]) + ")";
                std::string a;
                if (g.registerA) {
                    std::string aName = nameOf(s.a.buffer);
                    auto slot = [&](int64_t v) {
                        return aName + "[" + std::to_string(g.aSlot[size_t((mi * steps + kk) * 8 + v)]) + "]";
                    };
                    std::string pack =
                        s.a.buffer->dtype == DType::BFloat16 ? "tb_pack_bf16(" : "tb_pack_f16(";
                    a = "{";
                    for (int64_t w = 0; w < 4; ++w)
                        a += (w ? ", " : "") + pack + slot(2 * w) + ", " + slot(2 * w + 1) + ")";
                    a += "}";
                    std::string aVar = unique("a_regs");
                    line("const unsigned " + aVar + "[4] = " + a + ";", s.range);
                    a = aVar;
                } else {
                    a = wgmmaDescriptorText(g.opA, mi * 64, kk * g.kStep);
                }
                std::string b = wgmmaDescriptorText(g.opB, nj * g.instN, kk * g.kStep);
                line(g.function + trans + "(" + acc + ", " + a + ", " + b + ", " +
                         (kk == 0 ? firstScale : "1") + ");",
                     s.range);
            }
    line("tb_wgmma_commit();", s.range);
    if (m_wgmmaInFlight) {
        m_wgmmaInFlight = false;
        line("tb_wgmma_wait<1>(); // this batch stays in flight; the previous one has finished", s.range);
    } else {
        line("tb_wgmma_wait<0>();", s.range);
        line("tb_wgmma_fence_regs(" + cName + ");", s.range);
    }
    close();
}

std::vector<WgmmaShape> wgmmaShapesOf(const layout::KernelPlan& kernel) {
    std::vector<WgmmaShape> shapes;
    for (const layout::GemmPlan& g : kernel.gemms) {
        if (g.instruction.kind != layout::GemmInstructionKind::Wgmma || !g.gemm->a.buffer)
            continue;
        WgmmaShape shape;
        shape.n = int(g.grid.atomN);
        setWgmmaOperands(shape, g.gemm->a.buffer->dtype,
                         g.gemm->b.buffer ? g.gemm->b.buffer->dtype : g.gemm->a.buffer->dtype);
        shape.aForm =
            g.gemm->a.buffer->scope == MemoryScope::Fragment ? WgmmaShape::AForm::RS : WgmmaShape::AForm::SS;
        shapes.push_back(shape);
    }
    return shapes;
}

} // namespace tb::codegen
