// The generated CUDA / PTX / SASS of a program and their links back to tile-program lines
// (engine/pipeline/GeneratedArtifacts.h): real samples through NVRTC, and the PTX and SASS readers on
// hand-written text in the formats NVRTC, nvdisasm and cuobjdump print.
#include "engine/pipeline/GeneratedArtifacts.h"

#include "engine/codegen/CudaCodegen.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/run/GpuRun.h"
#include "tests/engine/codeviews/CodeViewsTestSupport.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace tb;
using namespace tb::codegen;

namespace {

bool anyLineContains(const std::vector<std::string>& lines, const std::vector<int>& which,
                     const std::string& needle) {
    for (int l : which)
        if (l >= 1 && size_t(l) <= lines.size() && lines[size_t(l) - 1].find(needle) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(GeneratedCuda, GemmLineLinksToMmaLines) {
    auto result = test::compileSample("gemm_relu");
    ASSERT_TRUE(result && result->ok()) << result->formattedDiagnostics();
    GeneratedCuda cuda = generateCudaText(*result);
    ASSERT_TRUE(cuda.ok) << cuda.message;
    EXPECT_EQ(cuda.planTarget, "sm_90a");
    std::vector<std::string> lines = test::textLines(cuda.text);
    ASSERT_EQ(cuda.tileLines.size(), lines.size());

    int gemm = test::sourceLineContaining(*result, "T.gemm(");
    ASSERT_GT(gemm, 0);
    std::vector<int> linked = cuda.linesOfTileLine(gemm);
    ASSERT_FALSE(linked.empty());
    EXPECT_TRUE(anyLineContains(lines, linked, "tb_mma_f16(")) << "gemm is line " << gemm;
    EXPECT_TRUE(anyLineContains(lines, linked, "ldmatrix"));
    // No line that implements the gemm belongs to the ReLU loop, and the other way round.
    int relu = test::sourceLineContaining(*result, "T.max(C_local");
    ASSERT_GT(relu, 0);
    EXPECT_FALSE(anyLineContains(lines, cuda.linesOfTileLine(relu), "tb_mma_f16("));
    // The same text `generateCuda` makes from the program's own plan.
    DiagnosticEngine diags;
    CudaKernelSource direct =
        generateCuda(*result->module, *result->plan, result->plan->target, diags, &result->sources);
    ASSERT_TRUE(direct.ok);
    ASSERT_EQ(cuda.units.size(), direct.units.size());
    EXPECT_EQ(cuda.units[0].source, direct.units[0].source);
    EXPECT_EQ(cuda.units[0].kernels.size(), direct.units[0].kernels.size());
}

TEST(GeneratedCuda, EverySampleGeneratesWithLinks) {
    for (const SampleInfo& s : listSamples()) {
        auto result = test::compileSample(s.name);
        ASSERT_TRUE(result && result->ok()) << s.name;
        GeneratedCuda cuda = generateCudaText(*result);
        ASSERT_TRUE(cuda.ok) << s.name << ": " << cuda.message;
        EXPECT_EQ(cuda.tileLines.size(), test::textLines(cuda.text).size()) << s.name;
        int linked = 0;
        for (int l : cuda.tileLines)
            linked += l > 0;
        EXPECT_GT(linked, 5) << s.name;
        EXPECT_NE(cuda.text.find("__global__"), std::string::npos) << s.name;
    }
}

TEST(GeneratedPtx, LocDirectivesLinkToCudaLinesThroughInlining) {
    // CUDA line 3 is the tile op's line; 9 is a device-header helper with no tile line.
    std::vector<int> tile = {0, 0, 36, 0, 0, 0, 0, 0, 0, 0};
    std::string ptx = ".visible .entry k(\n"                                                              // 1
                      ")\n"                                                                               // 2
                      "{\n"                                                                               // 3
                      "\t.reg .b32 %r<4>;\n"                                                              // 4
                      "\t.loc\t1 3 5\n"                                                                   // 5
                      "\tmov.u32 %r1, 0;\n"                                                               // 6
                      "\t.loc\t1 9 24, function_name $L__info_string7, inlined_at 1 3 17\n"               // 7
                      "\t// begin inline asm\n"                                                           // 8
                      "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n" // 9
                      "$L__BB0_1:\n"              // 10
                      "\t.loc\t1 9 2\n"           // 11
                      "\tret;\n"                  // 12
                      "}\n"                       // 13
                      "\tadd.s32 %r1, %r1, 1;\n"; // 14: outside any function, no location
    std::vector<int> lines = mapPtxLinesToCuda(ptx, tile);
    ASSERT_EQ(lines.size(), 14u);
    EXPECT_EQ(lines[5], 3);  // mov after .loc 1 3
    EXPECT_EQ(lines[8], 3);  // mma inlined from line 9 at line 3: the call site has the tile line
    EXPECT_EQ(lines[4], 0);  // the .loc itself
    EXPECT_EQ(lines[7], 0);  // comments
    EXPECT_EQ(lines[9], 0);  // labels
    EXPECT_EQ(lines[11], 9); // not inlined, no tile line: stays on the helper's line
    EXPECT_EQ(lines[13], 0);
}

TEST(GeneratedSass, NvdisasmLineCommentsAndCuobjdumpFallback) {
    std::vector<int> tile(40, 0);
    tile[29] = 36;                                                  // CUDA line 30
    std::string nvdisasm = "\t.section\t.text.k,\"ax\",@progbits\n" // 1
                           "  .text.k:\n"                           // 2
                           "        //## File \"k.cu\", line 12 inlined at \"k.cu\", line 30\n"    // 3
                           "        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;\n" // 4
                           "        //## File \"k.cu\", line 31\n"                                 // 5
                           "        /*0010*/                   EXIT ;\n";                          // 6
    std::vector<int> a = mapSassLinesToCuda(nvdisasm, tile, nullptr);
    ASSERT_EQ(a.size(), 6u);
    EXPECT_EQ(a[3], 30);
    EXPECT_EQ(a[5], 31);
    EXPECT_EQ(a[0] + a[1] + a[2] + a[4], 0);

    // cuobjdump has no line comments; without a cubin the lines stay unlinked rather than guessed.
    std::string cuobjdump =
        "\t\tFunction : k\n"
        "        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;  /* 0x0000000c0804723c */\n"
        "                                                                      /* 0x004fe20000001804 */\n";
    std::vector<int> b = mapSassLinesToCuda(cuobjdump, tile, nullptr);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[1], 0);
    EXPECT_EQ(b[2], 0);
}

TEST(GeneratedSass, InlinedHelperLinesBelongToTheirOnlyCaller) {
    // CUDA lines: 3 and 4 are tile lines 36 and 40; 9 and 10 are helpers with no tile line.
    std::vector<int> tile = {0, 0, 36, 40, 0, 0, 0, 0, 0, 0};
    std::string ptx = "\t.loc\t1 9 24, function_name $L__info_string7, inlined_at 1 3 17\n"
                      "\t.loc\t1 9 24, function_name $L__info_string7, inlined_at 1 3 30\n"
                      "\t.loc\t1 10 2, function_name $L__info_string8, inlined_at 1 3 5\n"
                      "\t.loc\t1 10 2, function_name $L__info_string8, inlined_at 1 4 5\n"
                      "\t.loc\t1 3 5\n";
    std::map<int, int> helpers = inlinedHelperTileLines(ptx, tile);
    EXPECT_EQ(helpers, (std::map<int, int>{{9, 36}})); // 10 is called from two tile lines: no guess
}

TEST(LinesLinkedTo, FindsEveryLineOfATarget) {
    EXPECT_EQ(linesLinkedTo({0, 5, 5, 2, 5}, 5), (std::vector<int>{2, 3, 5}));
    EXPECT_TRUE(linesLinkedTo({0, 5}, 0).empty());
}

#if TILEBENCH_HAS_NVRTC

TEST(GeneratedMachineCode, GemmPtxAndSassLinkToTheGemmLine) {
    auto result = test::compileSample("gemm_relu");
    ASSERT_TRUE(result && result->ok());
    GeneratedCuda cuda = generateCudaText(*result);
    ASSERT_TRUE(cuda.ok) << cuda.message;
    GeneratedMachineCode code = compileGeneratedCuda(cuda, "sm_90a", true);
    ASSERT_TRUE(code.ptxOk) << code.ptxMessage;
    std::vector<std::string> ptx = test::textLines(code.ptx);
    ASSERT_EQ(code.ptxTileLines.size(), ptx.size());
    ASSERT_EQ(code.ptxCudaLines.size(), ptx.size());
    int gemm = test::sourceLineContaining(*result, "T.gemm(");
    std::vector<int> linked = code.ptxLinesOfTileLine(gemm);
    ASSERT_FALSE(linked.empty());
    EXPECT_TRUE(anyLineContains(ptx, linked, "mma.sync.aligned.m16n8k16"));
    // Every PTX mma.sync of this program belongs to the gemm line.
    for (size_t i = 0; i < ptx.size(); ++i) {
        if (ptx[i].find("mma.sync") != std::string::npos && ptx[i].find("//") == std::string::npos) {
            EXPECT_EQ(code.ptxTileLines[i], gemm) << "PTX line " << i + 1 << ": " << ptx[i];
        }
    }
    // The PTX line's CUDA line is one the CUDA view links to the gemm.
    std::vector<int> cudaGemm = cuda.linesOfTileLine(gemm);
    EXPECT_NE(std::find(cudaGemm.begin(), cudaGemm.end(), code.ptxCudaLines[size_t(linked.front()) - 1]),
              cudaGemm.end());
    ASSERT_EQ(code.kernels.size(), 1u);
    // The figures are compileCuda's for the same source (ptxas -v); a log without them gives -1 on both.
    gpu::CudaCompileResult direct =
        gpu::compileCuda(cuda.units[0].source, cuda.units[0].kernels[0], gpu::CudaCompileOptions{});
    ASSERT_TRUE(direct.ok);
    EXPECT_EQ(code.kernels[0].registers, direct.registers);
    EXPECT_EQ(code.kernels[0].spillStoreBytes, direct.spillStoreBytes);
    if (direct.registers >= 0) {
        EXPECT_GT(code.kernels[0].registers, 32);
    }
    EXPECT_NE(code.ptx.find("// " + code.kernels[0].name + ": "), std::string::npos);

    // Which branch holds here: a junk cubin fails either way, but only a machine without the tools says so.
    std::string reason;
    gpu::disassembleSass(std::vector<char>{'x'}, &reason);
    bool haveDisassembler = reason.find("neither nvdisasm nor cuobjdump") == std::string::npos;
    if (!haveDisassembler) {
        EXPECT_FALSE(code.sassOk);
        EXPECT_NE(code.sassMessage.find("nvdisasm"), std::string::npos) << code.sassMessage;
        EXPECT_NE(code.sassMessage.find("Install"), std::string::npos) << code.sassMessage;
        GTEST_SKIP() << "no SASS disassembler here: " << code.sassMessage;
    }
    ASSERT_TRUE(code.sassOk) << code.sassMessage;
    std::vector<std::string> sass = test::textLines(code.sass);
    ASSERT_EQ(code.sassTileLines.size(), sass.size());
    std::vector<int> sassGemm = code.sassLinesOfTileLine(gemm);
    ASSERT_FALSE(sassGemm.empty());
    EXPECT_TRUE(anyLineContains(sass, sassGemm, "HMMA"));
}

// @tilelang.jit(pass_configs={TL_ENABLE_FAST_MATH: True}) compiles with --use_fast_math: the division of
// silu becomes an approximate one; without it (or with False) it stays IEEE round-to-nearest.
TEST(GeneratedMachineCode, FastMathPassConfigReachesNvrtc) {
    auto ptxOf = [](const std::string& decorator) {
        std::string text =
            "import tilelang\nimport tilelang.language as T\n" + decorator +
            "\ndef silu(n=1024):\n"
            "    @T.prim_func\n"
            "    def main(X: T.Tensor((n,), \"float32\"), Y: T.Tensor((n,), \"float32\")):\n"
            "        with T.Kernel(n // 128, threads=128) as bx:\n"
            "            for i in T.Parallel(128):\n"
            "                Y[bx * 128 + i] = X[bx * 128 + i] / (1.0 + T.exp(-X[bx * 128 + i]))\n"
            "    return main\n";
        auto result = compileTileProgram("silu.py", text);
        EXPECT_TRUE(result && result->ok()) << (result ? result->formattedDiagnostics() : "");
        GeneratedCuda cuda = generateCudaText(*result);
        EXPECT_TRUE(cuda.ok) << cuda.message;
        GeneratedMachineCode code = compileGeneratedCuda(cuda, "sm_80", false);
        EXPECT_TRUE(code.ptxOk) << code.ptxMessage;
        return std::make_pair(cuda, code.ptx);
    };
    auto [plainCuda, plain] = ptxOf("@tilelang.jit");
    auto [fastCuda, fast] =
        ptxOf("@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})");
    auto [named, namedPtx] = ptxOf("@tilelang.jit(pass_configs={\"tl.enable_fast_math\": True})");
    auto [off, offPtx] = ptxOf("@tilelang.jit(pass_configs={\"tl.enable_fast_math\": False})");
    EXPECT_NE(plain.find("div.rn.f32"), std::string::npos);
    EXPECT_EQ(fast.find("div.rn.f32"), std::string::npos) << fast;
    EXPECT_EQ(namedPtx, fast);
    EXPECT_EQ(offPtx, plain);
    ASSERT_EQ(fastCuda.units.size(), 1u);
    EXPECT_EQ(fastCuda.units[0].nvrtcOptions, std::vector<std::string>{"--use_fast_math"});
    EXPECT_TRUE(plainCuda.units[0].nvrtcOptions.empty());
    EXPECT_NE(fastCuda.text.find("// Compiled with --use_fast_math"), std::string::npos);
}

TEST(GeneratedMachineCode, WithoutSassOnlyPtx) {
    auto result = test::compileSample("elementwise_add");
    ASSERT_TRUE(result && result->ok());
    GeneratedCuda cuda = generateCudaText(*result);
    ASSERT_TRUE(cuda.ok);
    GeneratedMachineCode code = compileGeneratedCuda(cuda, "sm_80", false);
    ASSERT_TRUE(code.ptxOk) << code.ptxMessage;
    EXPECT_NE(code.ptx.find(".target sm_80"), std::string::npos);
    EXPECT_FALSE(code.sassOk);
    EXPECT_TRUE(code.sass.empty());
}

#endif
