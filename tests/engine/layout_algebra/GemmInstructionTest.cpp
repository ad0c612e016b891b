// selectGemmInstruction: wgmma on sm_90a when every condition of §3.1 holds, mma.sync otherwise.
#include "engine/layout/algebra/GemmInstruction.h"

#include "engine/target/Backend.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>

using namespace tb::layout;
using tb::ir::DType;

TEST(GemmInstruction, WgmmaWhenAllConditionsHold) {
    LayoutResult<GemmInstruction> inst = selectGemmInstruction(tb::targetSm90a(), 128, 128, 32, 4, {});
    ASSERT_TRUE(inst.ok());
    EXPECT_EQ(inst->kind, GemmInstructionKind::Wgmma);
    EXPECT_EQ(inst->name, "wgmma.m64nNk16");
    EXPECT_EQ(inst->m, 64);
    EXPECT_EQ(inst->k, 16);
}

TEST(GemmInstruction, MmaSyncFallbacksSayWhy) {
    struct Case {
        const char* name;
        const tb::Target& target;
        int64_t M, K, warps;
        GemmOperandTypes types;
        bool disable;
        const char* reasonPart;
    };
    GemmOperandTypes f16;
    GemmOperandTypes bInRegisters;
    bInRegisters.bInShared = false;
    GemmOperandTypes tf32MnMajor{DType::Float32, DType::Float32, DType::Float32};
    GemmOperandTypes f16Acc16{DType::Float16, DType::Float16, DType::Float16};
    const Case cases[] = {
        {"sm_80", tb::targetSm80(), 128, 32, 4, f16, false, "has no wgmma"},
        {"M below 64", tb::targetSm90a(), 32, 32, 4, f16, false, "M=32"},
        {"warps not in groups of 4", tb::targetSm90a(), 128, 32, 2, f16, false, "2 warps"},
        {"B in registers", tb::targetSm90a(), 128, 32, 4, bInRegisters, false, "B from shared"},
        {"disabled", tb::targetSm90a(), 128, 32, 4, f16, true, "disabled"},
        {"K not a multiple of 16", tb::targetSm90a(), 128, 8, 4, f16, false, "K=8"},
        {"tf32 needs K-major", tb::targetSm90a(), 128, 32, 4, tf32MnMajor, false, "K-major"},
    };
    for (const Case& c : cases) {
        LayoutResult<GemmInstruction> inst =
            selectGemmInstruction(c.target, c.M, 128, c.K, c.warps, c.types, c.disable);
        ASSERT_TRUE(inst.ok()) << c.name;
        EXPECT_EQ(inst->kind, GemmInstructionKind::MmaSync) << c.name;
        EXPECT_NE(inst->reason.find(c.reasonPart), std::string::npos) << c.name << ": " << inst->reason;
    }
    EXPECT_EQ(selectGemmInstruction(tb::targetSm80(), 128, 128, 32, 4, f16)->name, "mma.sync.m16n8k16");
    EXPECT_EQ(selectGemmInstruction(tb::targetSm80(), 128, 128, 32, 4, tf32MnMajor)->name,
              "mma.sync.m16n8k8");
    EXPECT_EQ(selectGemmInstruction(tb::targetSm90a(), 128, 128, 32, 4, f16Acc16)->kind,
              GemmInstructionKind::Wgmma);
}

TEST(GemmInstruction, DtypeRules) {
    GemmOperandTypes fp8{DType::Float8E4M3, DType::Float8E4M3, DType::Float32};
    fp8.bTransposed = true; // both K-major
    EXPECT_EQ(selectGemmInstruction(tb::targetSm90a(), 128, 128, 64, 4, fp8)->name, "wgmma.m64nNk32");
    fp8.bTransposed = false;
    // Not K-major: wgmma has no such form, nor does mma.sync through ldmatrix (TileLang's float8 rule).
    LayoutResult<GemmInstruction> nn = selectGemmInstruction(tb::targetSm90a(), 128, 128, 64, 4, fp8);
    ASSERT_FALSE(nn.ok());
    EXPECT_EQ(nn.error().code, "gemm-operand-major");
    EXPECT_NE(nn.error().message.find("transpose_B=False"), std::string::npos) << nn.error().message;
    GemmOperandTypes mixed{DType::Float16, DType::BFloat16, DType::Float32};
    LayoutResult<GemmInstruction> bad = selectGemmInstruction(tb::targetSm80(), 128, 128, 32, 4, mixed);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "gemm-dtype-unsupported");
}

TEST(GemmInstruction, Float8MmaSyncIsM16n8k32FromSm89OnAndKMajorOnly) {
    GemmOperandTypes fp8{DType::Float8E4M3, DType::Float8E5M2, DType::Float32}; // a mixed pair
    fp8.bTransposed = true;
    tb::Target portable = tb::instructionTarget(tb::targetSm90a(), tb::Backend::Portable);
    LayoutResult<GemmInstruction> mma = selectGemmInstruction(portable, 128, 128, 64, 4, fp8);
    ASSERT_TRUE(mma.ok()) << mma.error().message;
    EXPECT_EQ(mma->name, "mma.sync.m16n8k32");
    EXPECT_EQ(mma->k, 32);
    // sm_80 has no float8 tensor cores: an error with a hint, not a plan that cannot be emitted.
    LayoutResult<GemmInstruction> sm80 = selectGemmInstruction(tb::targetSm80(), 128, 128, 64, 4, fp8);
    ASSERT_FALSE(sm80.ok());
    EXPECT_EQ(sm80.error().code, "gemm-float8-target");
    EXPECT_NE(sm80.error().message.find("sm_89"), std::string::npos) << sm80.error().message;
    EXPECT_NE(sm80.error().hint.find("sm_90a"), std::string::npos) << sm80.error().hint;
    fp8.aTransposed = true;
    EXPECT_EQ(selectGemmInstruction(portable, 128, 128, 64, 4, fp8).error().code, "gemm-operand-major");
}
