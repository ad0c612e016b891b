// The Hopper device header as text: wgmma shape names and their rules, one wrapper per needed shape with
// exactly n/2 (f32) or n/4 (f16) accumulator operands, sections present only when needed, deterministic
// output, the portable header free of sm_90a instructions, and the host-side descriptor encoding.
#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/HopperDeviceHeader.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::codegen {
namespace {

int occurrences(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++n;
    return n;
}

TEST(HopperHeader, ShapeNamesRoundTripForEveryLegalN) {
    int legal = 0;
    for (int n = 8; n <= 256; n += 8)
        for (auto operand : {WgmmaShape::Operand::F16, WgmmaShape::Operand::BF16})
            for (auto accum : {WgmmaShape::Accum::F32, WgmmaShape::Accum::F16})
                for (auto form : {WgmmaShape::AForm::SS, WgmmaShape::AForm::RS}) {
                    WgmmaShape s{n, operand, accum, form};
                    std::string name = wgmmaShapeName(s), why = wgmmaShapeProblem(s);
                    WgmmaShape back;
                    std::string error;
                    EXPECT_EQ(parseWgmmaShape(name, back, &error), why.empty()) << name << " " << error;
                    if (why.empty()) {
                        EXPECT_EQ(back, s) << name;
                        ++legal;
                    }
                }
    EXPECT_EQ(legal, 32 * 6); // bf16 has no f16-accumulate form
    WgmmaShape s;
    ASSERT_TRUE(parseWgmmaShape("m64n96k16_f16_f16_rs", s));
    EXPECT_EQ(s.n, 96);
    EXPECT_EQ(wgmmaFunctionName(s), "tb_wgmma_m64n96k16_f16_f16_rs");
    EXPECT_EQ(wgmmaAccumulatorRegisters(s), 24);
}

TEST(HopperHeader, Float8ShapesAreK32AndMayMixE4m3AndE5m2) {
    using O = WgmmaShape::Operand;
    int legal = 0;
    for (O a : {O::E4M3, O::E5M2})
        for (O b : {O::E4M3, O::E5M2})
            for (auto accum : {WgmmaShape::Accum::F32, WgmmaShape::Accum::F16})
                for (auto form : {WgmmaShape::AForm::SS, WgmmaShape::AForm::RS}) {
                    WgmmaShape s{128, a, accum, form};
                    if (b != a)
                        s.operandB = b;
                    std::string name = wgmmaShapeName(s), error;
                    EXPECT_EQ(wgmmaShapeProblem(s), "") << name;
                    EXPECT_EQ(wgmmaShapeK(s), 32) << name;
                    WgmmaShape back;
                    ASSERT_TRUE(parseWgmmaShape(name, back, &error)) << name << " " << error;
                    EXPECT_EQ(back, s) << name;
                    ++legal;
                }
    EXPECT_EQ(legal, 16);
    WgmmaShape mixed{64, O::E4M3};
    mixed.operandB = O::E5M2;
    EXPECT_EQ(wgmmaFunctionName(mixed), "tb_wgmma_m64n64k32_f32_e4m3e5m2_ss");
    WgmmaShape e4m3{128, O::E4M3};
    EXPECT_EQ(wgmmaShapeName(e4m3), "m64n128k32_f32_e4m3_ss");
    std::string error;
    WgmmaShape s;
    EXPECT_FALSE(parseWgmmaShape("m64n128k16_f32_e4m3_ss", s, &error)); // float8 is k32
    EXPECT_NE(error.find("take k32"), std::string::npos) << error;
    EXPECT_FALSE(parseWgmmaShape("m64n128k32_f32_f16_ss", s, &error));
    EXPECT_FALSE(parseWgmmaShape("m64n128k32_f32_e4m3f16_ss", s, &error));
    WgmmaShape halfAndFloat8{128, O::F16};
    halfAndFloat8.operandB = O::E4M3;
    EXPECT_NE(wgmmaShapeProblem(halfAndFloat8), "");
    // The wrapper: k32, A's and B's types, and no transpose immediates (float8 operands are K-major).
    HopperHeaderNeeds needs;
    needs.wgmma = {mixed};
    std::string text = hopperDeviceHeader(needs);
    EXPECT_NE(text.find("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 "), std::string::npos) << text;
    EXPECT_NE(text.find("template <int ScaleA = 1, int ScaleB = 1>\nstatic __device__ __forceinline__ void "
                        "tb_wgmma_m64n64k32_f32_e4m3e5m2_ss("),
              std::string::npos);
    EXPECT_NE(text.find("\"n\"(ScaleA), \"n\"(ScaleB));"), std::string::npos);
}

TEST(HopperHeader, IllegalShapesSayWhy) {
    std::string error;
    WgmmaShape s;
    EXPECT_FALSE(parseWgmmaShape("m64n260k16_f32_f16_ss", s, &error));
    EXPECT_EQ(error,
              "wgmma shape 'm64n260k16_f32_f16_ss' is not legal: n=260 is not a multiple of 8 in 8..256 "
              "(expected e.g. m64n256k16_f32_f16_ss)");
    EXPECT_FALSE(parseWgmmaShape("m64n12k16_f32_f16_ss", s, &error));
    EXPECT_FALSE(parseWgmmaShape("m64n64k16_f16_bf16_ss", s, &error));
    EXPECT_NE(error.find("bf16 operands accumulate in f32 only"), std::string::npos) << error;
    EXPECT_FALSE(parseWgmmaShape("m64n64k8_f32_f16_ss", s, &error));
    EXPECT_FALSE(parseWgmmaShape("m64n64k16_f32_f16_sr", s, &error));
    EXPECT_FALSE(parseWgmmaShape("m64n64k16_f32_f16", s, &error));
    HopperHeaderNeeds needs;
    needs.wgmma = {WgmmaShape{300}};
    EXPECT_NE(hopperDeviceHeader(needs).find("// skipped: m64n300k16_f32_f16_ss: n=300"), std::string::npos);
}

TEST(HopperHeader, EachWrapperListsItsAccumulators) {
    HopperHeaderNeeds needs;
    needs.wgmma = {WgmmaShape{256}, WgmmaShape{8, WgmmaShape::Operand::F16, WgmmaShape::Accum::F16},
                   WgmmaShape{64, WgmmaShape::Operand::BF16, WgmmaShape::Accum::F32, WgmmaShape::AForm::RS}};
    std::string text = hopperDeviceHeader(needs);
    // n=256 f32: 128 "+f" accumulators; n=64 f32 RS: 32; n=8 f16: 2 packed "+r" words (plus one of each in
    // tb_wgmma_fence_regs).
    EXPECT_EQ(occurrences(text, "\"+f\"(d["), 128 + 32 + 1);
    EXPECT_EQ(occurrences(text, "\"+r\"(d["), 2 + 1);
    EXPECT_NE(
        text.find("tb_wgmma_m64n256k16_f32_f16_ss(float (&d)[128], tb_u64 descA, tb_u64 descB, int scaleD)"),
        std::string::npos);
    EXPECT_NE(text.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "), std::string::npos);
    EXPECT_NE(text.find("tb_wgmma_m64n8k16_f16_f16_ss(unsigned (&d)[2], tb_u64 descA"), std::string::npos);
    EXPECT_NE(text.find("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "), std::string::npos);
    // RS: A in four registers, then B's descriptor, scale-d and three immediates (no transpose for A).
    EXPECT_NE(
        text.find("tb_wgmma_m64n64k16_f32_bf16_rs(float (&d)[32], const unsigned (&a)[4], tb_u64 descB"),
        std::string::npos);
    EXPECT_NE(text.find("\"{%32, %33, %34, %35}, %36, p, %38, %39, %40;\\n}\\n\""), std::string::npos)
        << text;
    EXPECT_NE(text.find("\"%128, %129, p, %131, %132, %133, %134;\\n}\\n\""), std::string::npos);
}

TEST(HopperHeader, SectionsOnlyWhenNeededAndTheTextIsDeterministic) {
    HopperHeaderNeeds none;
    none.mbarrier = none.tmaLoad = none.tmaStore = none.wgmmaSync = none.setmaxnreg = none.stmatrix =
        none.warpHelpers = none.cluster = false;
    std::string empty = hopperDeviceHeader(none);
    EXPECT_EQ(empty.find("mbarrier."), std::string::npos);
    EXPECT_EQ(empty.find("cp.async.bulk"), std::string::npos);
    EXPECT_EQ(empty.find("wgmma."), std::string::npos);
    EXPECT_EQ(empty.find("setmaxnreg."), std::string::npos);

    HopperHeaderNeeds all;
    std::string text = hopperDeviceHeader(all);
    for (const char* helper : {"tb_mbarrier_init",       "tb_mbarrier_arrive_expect_tx",
                               "tb_mbarrier_wait",       "tb_mbarrier_inval",
                               "tb_fence_mbarrier_init", "tb_fence_proxy_async",
                               "tb_prefetch_tensormap",  "tb_tma_load_5d_hint",
                               "tb_tma_store_3d",        "tb_tma_store_wait",
                               "tb_wgmma_desc",          "tb_wgmma_fence",
                               "tb_wgmma_commit",        "tb_wgmma_wait",
                               "tb_setmaxnreg_inc",      "tb_setmaxnreg_dec",
                               "tb_stmatrix_x4_trans",   "tb_elect_one",
                               "tb_named_barrier_sync",  "struct __align__(64) tb_tensormap"})
        EXPECT_NE(text.find(helper), std::string::npos) << helper;

    HopperHeaderNeeds a, b;
    a.wgmma = {WgmmaShape{128}, WgmmaShape{64}, WgmmaShape{128}};
    b.wgmma = {WgmmaShape{64}, WgmmaShape{128}};
    EXPECT_EQ(hopperDeviceHeader(a), hopperDeviceHeader(b));
    EXPECT_EQ(occurrences(hopperDeviceHeader(a), "void tb_wgmma_m64n128k16_f32_f16_ss("), 1);
    EXPECT_EQ(tensorMapParameter("tA"), "const __grid_constant__ tb_tensormap tA");
}

TEST(HopperHeader, ThePortableHeaderHasNoSm90aInstructions) {
    std::string portable = cudaDeviceHeader();
    for (const char* op : {"wgmma", "cp.async.bulk", "mbarrier", "setmaxnreg", "stmatrix", "tensormap"})
        EXPECT_EQ(portable.find(op), std::string::npos) << op;
}

TEST(HopperHeader, HostDescriptorMatchesThePtxLayout) {
    // 14-bit address >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, swizzle mode in 62-63.
    EXPECT_EQ(wgmmaDescriptor(0x400, 16, 1024, WgmmaSwizzle::B128), 0x4000004000010040ull);
    EXPECT_EQ(wgmmaDescriptor(0x2000, 8192, 1024, WgmmaSwizzle::B128), 0x4000004002000200ull);
    EXPECT_EQ(wgmmaDescriptor(0x30, 128, 256, WgmmaSwizzle::B32), 0xC000001000080003ull);
    EXPECT_EQ(wgmmaDescriptor(0x40000 + 0x10, 0, 0, WgmmaSwizzle::None), 0x1ull); // the 18-bit window wraps
}

} // namespace
} // namespace tb::codegen
