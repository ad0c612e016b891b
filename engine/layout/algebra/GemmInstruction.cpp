// Tensor-core instruction selection for T.gemm.
#include "engine/layout/algebra/GemmInstruction.h"

namespace tb::layout {

const char* gemmInstructionKindName(GemmInstructionKind kind) {
    switch (kind) {
    case GemmInstructionKind::MmaSync:
        return "mma.sync";
    case GemmInstructionKind::Wgmma:
        return "wgmma";
    }
    return "?";
}

namespace {

using ir::DType;

bool isInt8(DType t) {
    return t == DType::Int8 || t == DType::UInt8;
}

// TileLang's CheckWgmma. Empty string when allowed, else why not.
std::string wgmmaDtypeProblem(const GemmOperandTypes& t, int64_t K) {
    bool kMajor = !t.aTransposed && t.bTransposed;
    std::string pair =
        std::string(ir::dtypeName(t.a)) + " x " + ir::dtypeName(t.b) + " -> " + ir::dtypeName(t.c);
    auto needK = [&](int64_t multiple) {
        return K % multiple == 0
                   ? std::string()
                   : "K=" + std::to_string(K) + " is not a multiple of " + std::to_string(multiple);
    };
    auto needKMajor = [&](int64_t multiple) {
        if (!kMajor)
            return pair + " needs both operands K-major";
        return needK(multiple);
    };
    if (t.c == DType::Float16) {
        if (t.a == DType::Float16 && t.b == DType::Float16)
            return needK(16);
        if (ir::isFloat8(t.a) && ir::isFloat8(t.b))
            return needKMajor(32);
    } else if (t.c == DType::Float32) {
        if ((t.a == DType::Float16 && t.b == DType::Float16) ||
            (t.a == DType::BFloat16 && t.b == DType::BFloat16))
            return needK(16);
        if (t.a == DType::Float32 && t.b == DType::Float32)
            return needKMajor(8);
        if (ir::isFloat8(t.a) && ir::isFloat8(t.b))
            return needKMajor(32);
    } else if (t.c == DType::Int32) {
        if (isInt8(t.a) && isInt8(t.b))
            return needKMajor(32);
    }
    return "wgmma has no " + pair + " form";
}

// mma.sync has float8 forms (m16n8k32 .e4m3/.e5m2) from sm_89 on, and TileBench loads their operands with
// ldmatrix, which needs both K-major (TileLang's wgmma rule for float8 too). Empty when allowed.
std::string float8MmaProblem(const Target& target, const GemmOperandTypes& t) {
    std::string pair = std::string(ir::dtypeName(t.a)) + " x " + ir::dtypeName(t.b);
    if (target.smVersion < 89)
        return "a " + pair +
               " gemm needs float8 tensor cores (mma.sync m16n8k32 .e4m3/.e5m2, sm_89 and up); " +
               target.name + " has none";
    if (t.aTransposed || !t.bTransposed)
        return "float8 gemm operands must both be K-major (TileLang's rule): A [M][K] with transpose_A=False "
               "and B [N][K] with transpose_B=True; this gemm has transpose_A=" +
               std::string(t.aTransposed ? "True" : "False") +
               ", transpose_B=" + (t.bTransposed ? "True" : "False");
    return {};
}

bool sameFamily(DType a, DType b) {
    return a == b || (ir::isFloat8(a) && ir::isFloat8(b)) || (isInt8(a) && isInt8(b));
}

} // namespace

LayoutResult<GemmInstruction> selectGemmInstruction(const Target& target, int64_t M, int64_t N, int64_t K,
                                                    int64_t numWarps, const GemmOperandTypes& types,
                                                    bool disableWgmma) {
    std::string whyNot;
    if (disableWgmma)
        whyNot = "wgmma is disabled by the pass config";
    else if (!target.hasWgmma)
        whyNot = "target " + target.name + " has no wgmma";
    else if (M < 64)
        whyNot = "M=" + std::to_string(M) + " is below the 64 rows of a wgmma";
    else if (numWarps % 4 != 0)
        whyNot = std::to_string(numWarps) + " warps do not form whole warpgroups of 4";
    else if (!types.bInShared)
        whyNot = "wgmma reads B from shared memory only";
    else
        whyNot = wgmmaDtypeProblem(types, K);
    int bits = ir::dtypeBits(types.a);
    if (whyNot.empty()) {
        GemmInstruction inst;
        inst.kind = GemmInstructionKind::Wgmma;
        inst.m = 64;
        inst.n = 0;
        inst.k = 256 / bits;
        inst.name = "wgmma.m64nNk" + std::to_string(inst.k);
        inst.reason = "wgmma: " + target.name + ", M=" + std::to_string(M) + " >= 64, " +
                      std::to_string(numWarps) + " warps in warpgroups of 4, " + ir::dtypeName(types.a) +
                      " x " + ir::dtypeName(types.b) + " -> " + ir::dtypeName(types.c);
        return inst;
    }
    if (!sameFamily(types.a, types.b) || types.a == DType::Bool || bits > 64 ||
        !(types.a == DType::Float16 || types.a == DType::BFloat16 || types.a == DType::Float32 ||
          types.a == DType::Float64 || ir::isFloat8(types.a) || isInt8(types.a)))
        return layoutError("gemm-dtype-unsupported",
                           std::string("no tensor-core instruction multiplies ") + ir::dtypeName(types.a) +
                               " by " + ir::dtypeName(types.b),
                           "use float16, bfloat16, float32 (tf32), float8 or int8 operands of one kind");
    if (ir::isFloat8(types.a)) {
        if (std::string problem = float8MmaProblem(target, types); !problem.empty())
            return layoutError(
                target.smVersion < 89 ? "gemm-float8-target" : "gemm-operand-major", problem,
                target.smVersion < 89
                    ? "compile for sm_90a (--arch sm_90a), or convert the operands to float16 or "
                      "bfloat16 (T.copy into a float16 tile) before the gemm"
                    : "store A as [M][K] and B as [N][K] and write T.gemm(A, B, C, "
                      "transpose_B=True)");
    }
    GemmInstruction inst;
    inst.kind = GemmInstructionKind::MmaSync;
    if (types.a == DType::Float64) {
        inst.m = 8;
        inst.n = 8;
        inst.k = 4;
    } else {
        inst.m = 16;
        inst.n = 8;
        inst.k = 256 / bits;
    }
    inst.name =
        "mma.sync.m" + std::to_string(inst.m) + "n" + std::to_string(inst.n) + "k" + std::to_string(inst.k);
    inst.reason = "mma.sync: " + whyNot;
    return inst;
}

} // namespace tb::layout
