// The GPU check's tolerance of each output: its own dtype's, loosened by the buffers the kernel rounds
// computed values into, and not by inputs or by copies that keep the dtype.
#include "engine/run/Tolerance.h"

#include "CodegenTestSupport.h"

#include <gtest/gtest.h>
#include <string>

using namespace tb;
using namespace tb::codegen::test;

namespace {

const ir::Buffer& param(const PlannedProgram& p, const std::string& name) {
    for (const ir::Buffer* b : p.result->module->funcs.front().params)
        if (b->name == name)
            return *b;
    ADD_FAILURE() << "no parameter " << name;
    return *p.result->module->funcs.front().params.front();
}

run::OutputTolerance toleranceOf(const PlannedProgram& p, const std::string& output) {
    return run::outputTolerance(p.result->module->funcs.front(), param(p, output));
}

// A float32 copy through a shared tile of `tileDtype`; with `compute`, a T.Parallel body stores into a
// fragment of `fragmentDtype` on the way.
std::string copyProgram(const std::string& tileDtype, bool compute, const std::string& fragmentDtype) {
    std::string body = compute ? "        for i, j in T.Parallel(16, 32):\n"
                                 "            F[i, j] = S[i, j] * 2.0 + 1.0\n"
                                 "        T.copy(F, C[0, 0])\n"
                               : "        T.copy(S, C[0, 0])\n";
    return "import tilelang.language as T\n\n\n"
           "@T.prim_func\n"
           "def main(A: T.Tensor((16, 32), \"" +
           tileDtype + "\"), C: T.Tensor((16, 32), \"float32\")):\n" +
           "    with T.Kernel(1, threads=64) as bx:\n"
           "        S = T.alloc_shared((16, 32), \"" +
           tileDtype + "\")\n" + "        F = T.alloc_fragment((16, 32), \"" + fragmentDtype + "\")\n" +
           "        T.copy(A[0, 0], S)\n" + body;
}

} // namespace

TEST(OutputTolerance, AFloat32OutputOfExactCopiesKeepsFloat32Precision) {
    // The bfloat16 input is exact on both sides and the shared copy keeps its dtype: nothing rounds but the
    // store into C, a widening conversion.
    PlannedProgram p = planProgram("copy.py", copyProgram("bfloat16", false, "float32"));
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    run::OutputTolerance t = toleranceOf(p, "C");
    EXPECT_EQ(t.setBy, "C (float32)");
    EXPECT_DOUBLE_EQ(t.atol, 1e-4);
    EXPECT_DOUBLE_EQ(t.rtol, 1e-3);
}

TEST(OutputTolerance, ABfloat16FragmentOnTheWaySetsTheTolerance) {
    PlannedProgram p = planProgram("compute.py", copyProgram("float16", true, "bfloat16"));
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    run::OutputTolerance t = toleranceOf(p, "C");
    EXPECT_EQ(t.setBy, "F (bfloat16)");
    EXPECT_DOUBLE_EQ(t.atol, 3e-2);
    EXPECT_DOUBLE_EQ(t.rtol, 3e-2);
}

TEST(OutputTolerance, AFloat32FragmentLeavesFloat32Precision) {
    PlannedProgram p = planProgram("compute.py", copyProgram("float16", true, "float32"));
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    EXPECT_EQ(toleranceOf(p, "C").setBy, "C (float32)");
}

TEST(OutputTolerance, TheGemmSampleIsCheckedAtItsFloat16OutputsPrecision) {
    // float16 operands (exact copies), a float32 accumulator, a float16 output: float16 sets it.
    PlannedProgram p = planSample("02_gemm_relu.py", {{"M", "256"}, {"N", "256"}, {"K", "128"}});
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    const ir::Buffer& out = *p.result->module->funcs.front().params.back();
    run::OutputTolerance t = run::outputTolerance(p.result->module->funcs.front(), out);
    EXPECT_DOUBLE_EQ(t.atol, 1e-2);
    EXPECT_NE(t.setBy.find("float16"), std::string::npos) << t.setBy;
}

TEST(OutputTolerance, TheFuzzReproducerIsCheckedAtBfloat16Precision) {
    PlannedProgram p = planTestProgram("fuzz_bfloat16_fragment.py");
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    // B_f (a float16 -> bfloat16 copy) is the first of the two bfloat16 fragments that round.
    run::OutputTolerance t = toleranceOf(p, "C");
    EXPECT_EQ(t.setBy, "B_f (bfloat16)");
    EXPECT_DOUBLE_EQ(t.atol, 3e-2);
}

TEST(OutputTolerance, AFloat8GemmAccumulatorSetsTheTensorCoresTolerance) {
    // float8 tensor cores accumulate with ~13 mantissa bits: the float32 output of TileLang's float8 GEMM is
    // checked at 3e-2, and says why.
    PlannedProgram p = planCorpusProgram("gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py",
                                         {{"M", "256"}, {"N", "256"}, {"K", "512"}});
    ASSERT_TRUE(p.ok()) << p.result->formattedDiagnostics() << p.planErrors;
    run::OutputTolerance t = toleranceOf(p, "C");
    EXPECT_EQ(t.setBy, "C_local (float32 accumulator of float8 tensor cores)");
    EXPECT_DOUBLE_EQ(t.atol, 3e-2);
    EXPECT_DOUBLE_EQ(t.rtol, 3e-2);
    // A float16 GEMM's float32 accumulator keeps float32's tolerance.
    PlannedProgram half =
        planTestProgram("gemm_float8_mixed.py", {{"a_dtype", "'float16'"}, {"b_dtype", "'float16'"}});
    ASSERT_TRUE(half.ok()) << half.result->formattedDiagnostics() << half.planErrors;
    run::OutputTolerance h = toleranceOf(half, "C");
    EXPECT_DOUBLE_EQ(h.atol, 1e-4);
    EXPECT_DOUBLE_EQ(h.rtol, 1e-3);
}
