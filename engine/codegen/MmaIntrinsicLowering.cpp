// Lowering of the TensorCoreIntrinEmitter methods (StmtKind::MmaIntrinsic) to the instructions TileLang's
// emitter issues, on the per-thread local arrays (float registers, like every local of a 16-bit dtype):
//   ldmatrix_a / ldmatrix_b: one ldmatrix.x4 per 16 x 16 micro tile of the warp (.trans where the shared
//     tile is MN-major), each lane giving the row address of the emitter's lane map (LdmatrixLanes.h) through
//     the shared buffer's planned layout; the four registers unpacked into the local array in mma order.
//   mma: per micro tile (i, j) two mma.sync.m16n8k16 (the n16 tile's halves) on packed local operands.
//   stmatrix: every lane stores its accumulators to the shared C tile by the accumulator map (TileLang
//     stores them element by element too).
// Warp w of the block works at (warp_m, warp_n) = (w % block_row_warps, w / block_row_warps %
// block_col_warps).
#include "engine/codegen/KernelEmitter.h"
#include "engine/codegen/LdmatrixLanes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::codegen {

using ir::DType;
using ir::MmaIntrinsicOp;
using ir::Stmt;

namespace {

std::string num(int64_t v) {
    return std::to_string(v);
}

// The two 16-bit halves of a packed register as floats, low half first.
std::string unpacked(DType t, const std::string& reg, bool high) {
    const std::string bits = "(unsigned short)(" + reg + (high ? " >> 16)" : " & 0xffffu)");
    return t == DType::BFloat16 ? "tb_bf2f(bfloat16_t{" + bits + "})" : "tb_h2f(half_t{" + bits + "})";
}

} // namespace

bool KernelEmitter::intrinsicRowsContiguous(const Stmt& s) const {
    const ir::MmaEmitter& e = s.mmaEmitter;
    const bool operandA = s.mmaOp == MmaIntrinsicOp::LdmatrixA;
    std::vector<int64_t> mins;
    for (const ir::ExprPtr& m : s.src.mins)
        if (auto c = ir::constantInt(m))
            mins.push_back(*c);
    if (mins.size() != s.src.mins.size())
        return true; // a region that moves at run time: the layout's 16-byte granules are trusted
    const size_t rank = mins.size();
    const int64_t warps = operandA ? e.blockRowWarps : e.blockColWarps;
    const int64_t tiles = operandA ? e.warpRows() : e.warpCols();
    for (int64_t ks = 0; ks < e.chunk / e.microK(); ++ks)
        for (int64_t w = 0; w < warps; ++w)
            for (int64_t t = 0; t < tiles; ++t)
                for (int64_t lane = 0; lane < 32; ++lane) {
                    const int64_t origin = w * (operandA ? e.warpRowTiles : e.warpColTiles) + t * 16;
                    auto [row, col] =
                        operandA ? ldmatrixLaneA<int64_t>(e.aTransposed, origin, ks * 16, lane)
                                 : ldmatrixLaneB<int64_t>(e.bTransposed, true, origin, ks * 16, lane);
                    std::vector<int64_t> point = mins;
                    point[rank - 2] += row;
                    point[rank - 1] += col;
                    auto first = sharedElementOffset(s.src.buffer, point);
                    if (!first || *first % 8 != 0)
                        return false;
                    for (int64_t k = 1; k < 8; ++k) {
                        ++point[rank - 1];
                        if (sharedElementOffset(s.src.buffer, point) != *first + k)
                            return false;
                    }
                }
    return true;
}

void KernelEmitter::lowerMmaIntrinsic(const Stmt& s) {
    const ir::MmaEmitter& e = s.mmaEmitter;
    const std::string method = std::string("mma_emitter.") + ir::mmaIntrinsicOpName(s.mmaOp);
    openBlock(method + ": " + ir::mmaEmitterText(e), s.range);
    // Each method declares the thread coordinates it uses: the lane, and the warp's row and column.
    const bool usesWarpM = s.mmaOp == MmaIntrinsicOp::LdmatrixA || s.mmaOp == MmaIntrinsicOp::Stmatrix;
    const bool usesWarpN = s.mmaOp == MmaIntrinsicOp::LdmatrixB || s.mmaOp == MmaIntrinsicOp::Stmatrix;
    const std::string lane = unique("lane"), warpM = unique("warp_m"), warpN = unique("warp_n");
    if (s.mmaOp != MmaIntrinsicOp::Mma)
        line("const int " + lane + " = " + m_tx + " % 32;", s.range);
    if (usesWarpM)
        line("const int " + warpM + " = " + m_tx + " / 32 % " + num(e.blockRowWarps) + ";", s.range);
    if (usesWarpN)
        line("const int " + warpN + " = " + m_tx + " / " + num(32 * e.blockRowWarps) + " % " +
                 num(e.blockColWarps) + ";",
             s.range);
    switch (s.mmaOp) {
    case MmaIntrinsicOp::LdmatrixA:
    case MmaIntrinsicOp::LdmatrixB:
        emitIntrinsicLdmatrix(s, lane, s.mmaOp == MmaIntrinsicOp::LdmatrixA ? warpM : warpN);
        break;
    case MmaIntrinsicOp::Mma:
        emitIntrinsicMma(s);
        break;
    case MmaIntrinsicOp::Stmatrix:
        emitIntrinsicStmatrix(s, lane, warpM, warpN);
        break;
    }
    close();
}

void KernelEmitter::emitIntrinsicLdmatrix(const Stmt& s, const std::string& lane, const std::string& warp) {
    const ir::MmaEmitter& e = s.mmaEmitter;
    const bool operandA = s.mmaOp == MmaIntrinsicOp::LdmatrixA;
    const ir::Region& src = s.src;
    const ir::Buffer* local = s.dst.buffer;
    auto slot = m_shared.find(src.buffer);
    if (slot == m_shared.end()) {
        error("codegen-no-shared-slot", s.range,
              "shared buffer '" + src.buffer->name + "' has no arena slot");
        return;
    }
    if (!intrinsicRowsContiguous(s)) {
        error(
            "codegen-ldmatrix-layout", s.range,
            "the layout of '" + src.buffer->name +
                "' breaks the 16-byte rows ldmatrix reads (8 consecutive elements of a row must stay "
                "consecutive and 16-byte aligned)",
            "swizzle whole 16-byte chunks, as get_swizzle_layout does, or leave the buffer's layout linear");
        return;
    }
    // ldmatrix.trans where the shared tile is MN-major: A [K, M], B [K, N].
    const bool transposed = operandA ? e.aTransposed : !e.bTransposed;
    const int64_t tiles = operandA ? e.warpRows() : e.warpCols();
    const int64_t perTile = operandA ? e.localSizeA() : e.localSizeB();
    const int64_t warpTile = operandA ? e.warpRowTiles : e.warpColTiles;
    const std::string regs = unique("frag");
    line("unsigned " + regs + "[4];", s.range);
    const CText k0 = CText::var("(" + expr(s.value) + ") * " + num(e.microK()));
    const CText laneText = CText::var(lane);
    const char* op = transposed ? "tb_ldmatrix_x4_trans(" : "tb_ldmatrix_x4(";
    for (int64_t t = 0; t < tiles; ++t) {
        const CText origin = CText::var(warp + " * " + num(warpTile) + " + " + num(t * 16));
        // B's lane map reads [N, K] when b_transposed (TileLang's "B transposed"), [K, N] otherwise.
        auto [row, col] = operandA ? ldmatrixLaneA(e.aTransposed, origin, k0, laneText)
                                   : ldmatrixLaneB(e.bTransposed, true, origin, k0, laneText);
        std::vector<std::string> idx;
        for (size_t d = 0; d < src.mins.size(); ++d) {
            std::string min = expr(src.mins[d]);
            if (d + 2 == src.mins.size())
                min = min == "0" ? row.text : min + " + " + row.text;
            else if (d + 1 == src.mins.size())
                min = min == "0" ? col.text : min + " + " + col.text;
            idx.push_back(min);
        }
        line(op + regs + ", tb_smem_s + " + num(slot->second.offset) + " + " +
                 num(ir::dtypeBytes(src.buffer->dtype)) + " * (" + sharedOffset(src.buffer, idx) + "));",
             s.range);
        for (int64_t r = 0; r < 4; ++r)
            for (int half = 0; half < 2; ++half)
                line(nameOf(local) + "[" + num(t * perTile + 2 * r + half) +
                         "] = " + unpacked(src.buffer->dtype, regs + "[" + num(r) + "]", half == 1) + ";",
                     s.range);
    }
}

void KernelEmitter::emitIntrinsicMma(const Stmt& s) {
    const ir::MmaEmitter& e = s.mmaEmitter;
    const std::string a = nameOf(s.a.buffer), b = nameOf(s.b.buffer), c = nameOf(s.c.buffer);
    const std::string pack = e.aDtype == DType::BFloat16 ? "tb_pack_bf16" : "tb_pack_f16";
    const std::string mma = e.aDtype == DType::BFloat16 ? "tb_mma_bf16" : "tb_mma_f16";
    const std::string aFrag = unique("a_frag"), bFrag = unique("b_frag");
    auto packed = [&](const std::string& array, int64_t first) {
        return pack + "(" + array + "[" + num(first) + "], " + array + "[" + num(first + 1) + "])";
    };
    line("unsigned " + aFrag + "[" + num(e.warpRows()) + "][4], " + bFrag + "[" + num(e.warpCols()) + "][4];",
         s.range);
    for (int64_t i = 0; i < e.warpRows(); ++i)
        for (int64_t r = 0; r < 4; ++r)
            line(aFrag + "[" + num(i) + "][" + num(r) + "] = " + packed(a, i * e.localSizeA() + 2 * r) + ";",
                 s.range);
    for (int64_t j = 0; j < e.warpCols(); ++j)
        for (int64_t r = 0; r < 4; ++r)
            line(bFrag + "[" + num(j) + "][" + num(r) + "] = " + packed(b, j * e.localSizeB() + 2 * r) + ";",
                 s.range);
    for (int64_t i = 0; i < e.warpRows(); ++i)
        for (int64_t j = 0; j < e.warpCols(); ++j)
            for (int64_t half = 0; half < 2; ++half) {
                const int64_t c0 = (i * e.warpCols() + j) * e.localSizeC() + 4 * half;
                std::string acc;
                for (int64_t v = 0; v < 4; ++v)
                    acc += c + "[" + num(c0 + v) + "], ";
                line(mma + "(" + acc + aFrag + "[" + num(i) + "], " + bFrag + "[" + num(j) + "][" +
                         num(2 * half) + "], " + bFrag + "[" + num(j) + "][" + num(2 * half + 1) + "]);",
                     s.range);
            }
}

void KernelEmitter::emitIntrinsicStmatrix(const Stmt& s, const std::string& lane, const std::string& warpM,
                                          const std::string& warpN) {
    const ir::MmaEmitter& e = s.mmaEmitter;
    const ir::Buffer* dst = s.dst.buffer;
    const std::string c = nameOf(s.src.buffer), out = nameOf(dst);
    const std::string group = "(" + lane + " / 4)", pair = "(" + lane + " % 4) * 2";
    for (int64_t i = 0; i < e.warpRows(); ++i)
        for (int64_t j = 0; j < e.warpCols(); ++j) {
            const std::string tileM = warpM + " * " + num(e.warpRows()) + " + " + num(i);
            const std::string tileN = warpN + " * " + num(e.warpCols()) + " + " + num(j);
            for (int64_t v = 0; v < e.localSizeC(); ++v) {
                // The accumulator map: row 8 * ((v % 4) / 2) + lane / 4, column 8 * (v / 4) + 2 * (lane % 4)
                // + v % 2.
                const std::string row = num(8 * ((v % 4) / 2)) + " + " + group;
                const std::string col = num(8 * (v / 4) + v % 2) + " + " + pair;
                std::vector<std::string> idx =
                    dst->rank() == 4 ? std::vector<std::string>{tileM, tileN, row, col}
                                     : std::vector<std::string>{"(" + tileM + ") * 16 + " + row,
                                                                "(" + tileN + ") * 16 + " + col};
                const std::string value = c + "[" + num((i * e.warpCols() + j) * e.localSizeC() + v) + "]";
                line(out + "[" + sharedOffset(dst, idx) + "] = " + toStorage(dst, value) + ";", s.range);
            }
        }
}

} // namespace tb::codegen
