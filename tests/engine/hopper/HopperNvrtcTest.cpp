// Every sm_90a primitive of the Hopper device header compiles with NVRTC for sm_90a and becomes the
// expected SASS: HGMMA of the right shape for every legal N (8..256) and each form,
// UTMALDG/UTMASTG/UTMACCTL.PF for TMA, SYNCS.* for mbarriers, USETMAXREG for setmaxnreg, STSM for stmatrix.
// SASS checks need nvdisasm or cuobjdump ($CUDA_HOME/bin, /usr/local/cuda/bin or $PATH) and are skipped with
// the reason otherwise.
#include "HopperTestSupport.h"
#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/HopperDeviceHeader.h"
#include "engine/gpu/Nvrtc.h"

#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::hopper {
namespace {

using codegen::WgmmaShape;

#define REQUIRE_NVRTC()                                                                                      \
    if (!TILEBENCH_HAS_NVRTC)                                                                                \
    GTEST_SKIP() << "NVRTC not available in this build"

#define SASS_OR_SKIP(sass, cubin)                                                                            \
    std::string why_;                                                                                        \
    std::optional<std::string> sassText_ = gpu::disassembleSass(cubin, &why_);                               \
    if (!sassText_)                                                                                          \
        GTEST_SKIP() << "compiled for sm_90a; no SASS check: " << why_;                                      \
    const std::string& sass = *sassText_

// One kernel using every non-wgmma primitive, and wgmma SS and RS batches.
const char* kPrimitivesKernel = R"CUDA(
extern "C" __global__ void __launch_bounds__(384, 1) primitives(const __grid_constant__ tb_tensormap in,
                                                               const __grid_constant__ tb_tensormap out,
                                                               float* result, int k) {
    __shared__ __align__(1024) unsigned char smem[49152];
    __shared__ __align__(8) tb_u64 bars[2];
    const unsigned base = tb_smem_addr(smem), bar = tb_smem_addr(&bars[0]);
    if (threadIdx.x == 0) {
        tb_prefetch_tensormap(&in);
        tb_mbarrier_init(bar, 1);
        tb_mbarrier_init(bar + 8, 256);
        tb_fence_mbarrier_init();
    }
    __syncthreads();
    if (tb_warpgroup_index() == 0) {
        tb_setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            tb_mbarrier_arrive_expect_tx(bar, 49152);
            tb_tma_load_1d(base, &in, bar, k);
            tb_tma_load_2d(base, &in, bar, 0, k);
            tb_tma_load_3d_hint(base, &in, bar, 0, k, 1, tb_policy_evict_normal());
            tb_tma_load_4d(base, &in, bar, 0, k, 1, 2);
            tb_tma_load_5d(base, &in, bar, 0, k, 1, 2, 3);
        }
    } else {
        tb_setmaxnreg_inc<232>();
        tb_mbarrier_wait(bar, 0);
        float d[128];
        unsigned h[2] = {0u, 0u};
        const tb_u64 da = tb_wgmma_desc(base, 16, 1024, TB_WGMMA_SWIZZLE_128B);
        const tb_u64 db = tb_wgmma_desc(base + 16384, 8192, 1024, TB_WGMMA_SWIZZLE_128B);
        tb_wgmma_fence();
        tb_wgmma_m64n256k16_f32_f16_ss<1, 1, 0, 1>(d, da, db, 0);
        tb_wgmma_m64n256k16_f32_f16_ss<1, 1, 0, 1>(d, tb_wgmma_desc_add(da, 32), tb_wgmma_desc_add(db, 2048), 1);
        tb_wgmma_commit();
        tb_wgmma_wait<0>();
        tb_wgmma_fence_regs(d);
        const unsigned a[4] = {1u, 2u, 3u, (unsigned)k};
        tb_wgmma_fence();
        tb_wgmma_m64n8k16_f16_f16_rs(h, a, db, 1);
        tb_wgmma_commit();
        tb_wgmma_wait<0>();
        tb_wgmma_fence_regs(h);
        float sum = (float)h[0] + (float)h[1];
        for (int i = 0; i < 128; ++i)
            sum += d[i];
        tb_stmatrix_x4(base + (threadIdx.x % 128) * 16, 1u, 2u, 3u, 4u);
        tb_stmatrix_x2_trans(base + (threadIdx.x % 128) * 16, 5u, 6u);
        tb_fence_proxy_async();
        tb_named_barrier_sync(1, 256);
        if (threadIdx.x == 128 && tb_elect_one()) {
            tb_tma_store_2d(&out, base, 0, k);
            tb_tma_store_commit();
            tb_tma_store_wait<0>();
            tb_tma_store_wait_all<0>();
        }
        tb_mbarrier_arrive(bar + 8);
        result[threadIdx.x] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        tb_mbarrier_inval(bar);
        tb_mbarrier_inval(bar + 8);
    }
}
)CUDA";

std::string headerWith(const std::vector<WgmmaShape>& shapes) {
    codegen::HopperHeaderNeeds needs;
    needs.wgmma = shapes;
    return std::string(codegen::cudaDeviceHeader()) + codegen::hopperDeviceHeader(needs);
}

TEST(HopperNvrtc, EveryPrimitiveCompilesToItsSass) {
    REQUIRE_NVRTC();
    std::string source =
        headerWith({WgmmaShape{256},
                    WgmmaShape{8, WgmmaShape::Operand::F16, WgmmaShape::Accum::F16, WgmmaShape::AForm::RS}}) +
        kPrimitivesKernel;
    gpu::CudaCompileResult r = test::compileSm90a(source, "primitives");
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.spillStoreBytes, 0) << r.log;
    EXPECT_EQ(test::ptxasWarnings(r.log), "");
    SASS_OR_SKIP(sass, r.cubin);
    for (const char* op : {"UTMALDG.1D",
                           "UTMALDG.2D",
                           "UTMALDG.3D",
                           "UTMALDG.4D",
                           "UTMALDG.5D",
                           "UTMASTG.2D",
                           "UTMACCTL.PF",
                           "SYNCS.EXCH.64",
                           "SYNCS.ARRIVE.TRANS64",
                           "SYNCS.PHASECHK.TRANS64.TRYWAIT",
                           "SYNCS.CCTL.IV",
                           "USETMAXREG.DEALLOC.CTAPOOL",
                           "USETMAXREG.TRY_ALLOC.CTAPOOL",
                           "HGMMA.64x256x16.F32",
                           "HGMMA.64x8x16.F16",
                           "WARPGROUP.ARRIVE",
                           "WARPGROUP.DEPBAR.LE",
                           "STSM.16.M88.4",
                           "STSM.16.MT88.2",
                           "ELECT",
                           "UTMACMDFLUSH"})
        EXPECT_GE(test::countOpcode(sass, op), 1) << op << " missing from the SASS";
    EXPECT_EQ(test::countOpcode(sass, "HGMMA.64x256x16.F32"), 2);
}

// One small kernel per N: accumulate one batch, sum the accumulators (so none is dead), store.
std::string everyNKernels(WgmmaShape::Operand operand, WgmmaShape::Accum accum, WgmmaShape::AForm form,
                          std::vector<WgmmaShape>& shapes) {
    std::string kernels;
    for (int n = 8; n <= 256; n += 8) {
        WgmmaShape s{n, operand, accum, form};
        shapes.push_back(s);
        const bool f32 = accum == WgmmaShape::Accum::F32;
        const int regs = codegen::wgmmaAccumulatorRegisters(s);
        std::string name = "k" + std::to_string(n);
        kernels += "extern \"C\" __global__ void " + name + "(float* out, tb_u64 da, tb_u64 db) {\n";
        kernels += std::string("    ") + (f32 ? "float" : "unsigned") + " d[" + std::to_string(regs) + "];\n";
        if (form == WgmmaShape::AForm::RS)
            kernels += "    const unsigned a[4] = {threadIdx.x, 1u, 2u, 3u};\n";
        kernels += "    tb_wgmma_fence();\n    " + codegen::wgmmaFunctionName(s) + "(d, " +
                   (form == WgmmaShape::AForm::RS ? "a" : "da") + ", db, 0);\n";
        kernels += "    tb_wgmma_commit();\n    tb_wgmma_wait<0>();\n    tb_wgmma_fence_regs(d);\n";
        kernels += "    float sum = 0;\n    for (int i = 0; i < " + std::to_string(regs) +
                   "; ++i) sum += (float)d[i];\n    out[threadIdx.x] = sum;\n}\n";
    }
    return kernels;
}

void expectEveryN(WgmmaShape::Operand operand, WgmmaShape::Accum accum, WgmmaShape::AForm form,
                  const std::string& suffix) {
    std::vector<WgmmaShape> shapes;
    std::string kernels = everyNKernels(operand, accum, form, shapes);
    gpu::CudaCompileResult r = test::compileSm90a(headerWith(shapes) + kernels, "k256");
    ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
    SASS_OR_SKIP(sass, r.cubin);
    for (int n = 8; n <= 256; n += 8) {
        std::string op = "HGMMA.64x" + std::to_string(n) + "x16." + suffix;
        EXPECT_EQ(test::countOpcode(sass, op), 1) << op;
    }
}

TEST(HopperNvrtc, EveryLegalNIsAnHgmmaOfThatShape) {
    REQUIRE_NVRTC();
    expectEveryN(WgmmaShape::Operand::F16, WgmmaShape::Accum::F32, WgmmaShape::AForm::SS, "F32");
}

TEST(HopperNvrtc, RegisterAOperandBf16AndF16AccumulateForms) {
    REQUIRE_NVRTC();
    expectEveryN(WgmmaShape::Operand::BF16, WgmmaShape::Accum::F32, WgmmaShape::AForm::RS, "F32.BF16");
    expectEveryN(WgmmaShape::Operand::F16, WgmmaShape::Accum::F16, WgmmaShape::AForm::SS, "F16");
}

TEST(HopperNvrtc, Float8FormsAreQgmmaK32) {
    REQUIRE_NVRTC();
    // e4m3 x e4m3 and e5m2 x e4m3, SS and RS, f32 and f16 accumulators: one kernel each, as for the 16-bit
    // forms.
    using O = WgmmaShape::Operand;
    std::vector<WgmmaShape> shapes;
    std::string kernels;
    int index = 0;
    for (auto [a, b] : {std::pair{O::E4M3, O::E4M3}, std::pair{O::E5M2, O::E4M3}})
        for (auto accum : {WgmmaShape::Accum::F32, WgmmaShape::Accum::F16})
            for (auto form : {WgmmaShape::AForm::SS, WgmmaShape::AForm::RS}) {
                WgmmaShape s{128, a, accum, form};
                if (b != a)
                    s.operandB = b;
                shapes.push_back(s);
                const int regs = codegen::wgmmaAccumulatorRegisters(s);
                const bool rs = form == WgmmaShape::AForm::RS;
                kernels +=
                    "extern \"C\" __global__ void q" + std::to_string(index++) +
                    "(float* out, tb_u64 da, tb_u64 db) {\n    " +
                    (accum == WgmmaShape::Accum::F32 ? "float" : "unsigned") + " d[" + std::to_string(regs) +
                    "];\n" + (rs ? "    const unsigned a[4] = {threadIdx.x, 1u, 2u, 3u};\n" : "") +
                    "    tb_wgmma_fence();\n    " + codegen::wgmmaFunctionName(s) + "(d, " +
                    (rs ? "a" : "da") + ", db, 0);\n" +
                    "    tb_wgmma_commit();\n    tb_wgmma_wait<0>();\n    tb_wgmma_fence_regs(d);\n"
                    "    float sum = 0;\n    for (int i = 0; i < " +
                    std::to_string(regs) + "; ++i) sum += (float)d[i];\n    out[threadIdx.x] = sum;\n}\n";
            }
    gpu::CudaCompileResult r = test::compileSm90a(headerWith(shapes) + kernels, "q0");
    ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
    SASS_OR_SKIP(sass, r.cubin);
    EXPECT_EQ(test::countOpcode(sass, "QGMMA.64x128x32.F32.E4M3.E4M3"), 2);
    EXPECT_EQ(test::countOpcode(sass, "QGMMA.64x128x32.F32.E5M2.E4M3"), 2);
}

} // namespace
} // namespace tb::hopper
