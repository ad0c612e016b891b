// One small program per diagnostic the elaborator reports, checking the code and the exact line:col,
// plus the recovery rules: several errors per run, no cascades from an error value.
#include "ElaborateTestSupport.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::test {
namespace {

// Lines 1-7 are fixed; the kernel body starts on line 8, indented 12 spaces (column 13).
std::unique_ptr<Elaborated> inKernel(const std::string& body) {
    std::string text = "import tilelang\n"
                       "import tilelang.language as T\n"
                       "@tilelang.jit\n"
                       "def f(n=64, block=32):\n"
                       "    @T.prim_func\n"
                       "    def main(A: T.Tensor((n, n), \"float16\"), C: T.Tensor((n, n), \"float32\")):\n"
                       "        with T.Kernel(2, 2, threads=128) as (bx, by):\n" +
                       body + "    return main\n";
    return elaborateText(text);
}

// Lines 1-4 fixed; the jit body starts on line 5 (column 5), followed by a trivial prim_func.
std::unique_ptr<Elaborated> inJitBody(const std::string& body) {
    std::string text = "import tilelang\n"
                       "import tilelang.language as T\n"
                       "@tilelang.jit\n"
                       "def f(n=64, block=32):\n" +
                       body +
                       "    @T.prim_func\n"
                       "    def main(A: T.Tensor((n,), \"float32\")):\n"
                       "        with T.Kernel(1, threads=32) as bx:\n"
                       "            T.clear(A)\n"
                       "    return main\n";
    return elaborateText(text);
}

using Codes = std::vector<std::string>;

TEST(Errors, UnknownNameSuggestsTheClosest) {
    auto e = inKernel("            A_shared = T.alloc_shared((32, 32), \"float16\")\n"
                      "            T.copy(A[0, 0], A_shard)\n");
    EXPECT_EQ(e->module, nullptr);
    ASSERT_EQ(e->codes(), Codes{"unknown-name@9:29"}) << e->report();
    EXPECT_EQ(e->first("unknown-name")->message, "name 'A_shard' is not defined");
    EXPECT_EQ(e->first("unknown-name")->hint, "did you mean 'A_shared'?");
}

TEST(Errors, UnknownAttributeSuggestsTheClosest) {
    auto e = inKernel("            acc = T.alloc_fragmnet((32, 32), \"float32\")\n");
    ASSERT_EQ(e->codes(), Codes{"unknown-attribute@8:19"}) << e->report();
    EXPECT_EQ(e->first("unknown-attribute")->message, "module 'T' has no attribute 'alloc_fragmnet'");
    EXPECT_EQ(e->first("unknown-attribute")->hint, "did you mean 'T.alloc_fragment'?");
}

TEST(Errors, UnsupportedConstructInKernelCode) {
    auto e = inKernel("            class Helper:\n"
                      "                pass\n");
    ASSERT_EQ(e->codes(), Codes{"unsupported-construct@8:13"}) << e->report();
    EXPECT_EQ(e->first("unsupported-construct")->message,
              "class definitions are not supported in kernel code");
}

TEST(Errors, WrongArgumentsNameTheSignature) {
    auto e = inKernel("            T.copy(A)\n"
                      "            T.gemm(A, A, C, transpose_b=True)\n");
    ASSERT_EQ(e->codes(), (Codes{"wrong-arguments@8:13", "wrong-arguments@9:29"})) << e->report();
    EXPECT_EQ(e->diagnostics.diagnostics()[0].message, "T.copy() missing required argument 'dst'");
    EXPECT_NE(e->diagnostics.diagnostics()[0].hint.find("signature: T.copy(src, dst"), std::string::npos);
    EXPECT_EQ(e->diagnostics.diagnostics()[1].message,
              "T.gemm() got an unexpected keyword argument 'transpose_b'");
    EXPECT_NE(e->diagnostics.diagnostics()[1].hint.find("did you mean 'transpose_B'?"), std::string::npos);

    auto user = inJitBody("    def helper(a, b):\n"
                          "        return a + b\n"
                          "    x = helper(1)\n");
    ASSERT_EQ(user->codes(), Codes{"wrong-arguments@7:9"}) << user->report();
    EXPECT_EQ(user->first("wrong-arguments")->message, "helper() missing 1 required argument: 'b'");
    EXPECT_EQ(user->first("wrong-arguments")->hint, "signature: helper(a, b)");
}

TEST(Errors, NotABuffer) {
    auto e = inKernel("            s = T.alloc_shared((32, 32), \"float16\")\n"
                      "            T.copy(1.5, s)\n");
    ASSERT_EQ(e->codes(), Codes{"not-a-buffer@9:20"}) << e->report();
}

TEST(Errors, ShapesMustBeCompileTime) {
    auto e = inKernel("            s = T.alloc_shared((bx, 32), \"float16\")\n");
    ASSERT_EQ(e->codes(), Codes{"not-compile-time@8:32"}) << e->report();
    EXPECT_EQ(e->first("not-compile-time")->message,
              "shape must be known at compile time, but dimension 0 is bx");
}

TEST(Errors, TypeErrorAndDivisionByZero) {
    auto e = inJitBody("    x = \"a\" + 1\n"
                       "    y = block // (n - 64)\n"
                       "    z = 1.0 / 0\n");
    ASSERT_EQ(e->codes(), (Codes{"type-error@5:9", "division-by-zero@6:9", "division-by-zero@7:9"}))
        << e->report();
    EXPECT_EQ(e->diagnostics.diagnostics()[0].message, "unsupported operand types for +: 'str' and 'int'");
    EXPECT_EQ(e->diagnostics.diagnostics()[1].message, "integer division by zero: 32 // 0");
}

TEST(Errors, IntegerOverflow) {
    auto e = inJitBody("    big = 2 ** 62 * 4\n");
    ASSERT_EQ(e->codes(), Codes{"integer-overflow@5:11"}) << e->report();
}

TEST(Errors, IndexOutOfRange) {
    auto e = inKernel("            s = T.alloc_shared((32, 16), \"float16\")\n"
                      "            s[32, 0] = 0\n"
                      "            s[0, 15] = A[64, 0]\n");
    ASSERT_EQ(e->codes(), (Codes{"index-out-of-range@9:13", "index-out-of-range@10:24"})) << e->report();
    EXPECT_EQ(e->diagnostics.diagnostics()[0].message,
              "index 32 is out of range for dimension 0 of 's' with extent 32");
}

TEST(Errors, CopyExtentMismatchNamesBothShapes) {
    auto e = inKernel("            s = T.alloc_shared((32, 32), \"float16\")\n"
                      "            T.copy(A[0:16, 0:32], s)\n"
                      "            T.copy(A[bx * 32, by * 32], s)\n");
    ASSERT_EQ(e->codes(), Codes{"copy-extent-mismatch@9:13"}) << e->report();
    EXPECT_EQ(e->first("copy-extent-mismatch")->message,
              "T.copy extents do not match: the source 'A' region has shape [16, 32] but the destination 's' "
              "region has shape [32, 32]");
}

TEST(Errors, EvictionPolicyMustBeKnownAndHaveAGlobalSide) {
    auto e = inKernel("            s = T.alloc_shared((32, 32), \"float16\")\n"
                      "            f = T.alloc_fragment((32, 32), \"float32\")\n"
                      "            T.copy(A[bx * 32, by * 32], s, eviction_policy=\"evict_later\")\n"
                      "            T.copy(s, f, eviction_policy=\"evict_first\")\n");
    ASSERT_EQ(e->codes(), (Codes{"value-error@10:60", "eviction-policy-unused@11:42"})) << e->report();
    EXPECT_EQ(e->first("value-error")->message,
              "eviction_policy must be \"evict_first\", \"evict_last\" or \"evict_normal\"");
}

TEST(Errors, GemmShapesAndAccumulatorScope) {
    auto e = inKernel("            a = T.alloc_shared((64, 32), \"float16\")\n"
                      "            b = T.alloc_shared((16, 64), \"float16\")\n"
                      "            c = T.alloc_fragment((64, 64), \"float32\")\n"
                      "            cs = T.alloc_shared((64, 64), \"float32\")\n"
                      "            T.gemm(a, b, c)\n"
                      "            T.gemm(a, a, c, transpose_B=True)\n"
                      "            T.gemm(a, a, cs, transpose_B=True)\n");
    ASSERT_EQ(e->codes(), (Codes{"gemm-shape-mismatch@12:13", "gemm-accumulator-scope@14:26"}))
        << e->report();
    EXPECT_EQ(
        e->first("gemm-shape-mismatch")->message,
        "gemm shapes disagree (K is 32 for A but 16 for B): A 'a' is [64, 32], B 'b' is [16, 64], C 'c' is "
        "[64, 64]");
}

// Regions of different shapes are an error; regions of one shape in fragments of different shapes are an
// element-wise loop (KernelCodeTest).
TEST(Errors, CopyBetweenFragmentRegionsOfDifferentShapes) {
    auto e = inKernel("            x = T.alloc_fragment((64, 64), \"float32\")\n"
                      "            y = T.alloc_fragment((64, 32), \"float32\")\n"
                      "            T.copy(x[0:64, 0:16], y)\n");
    ASSERT_EQ(e->codes(), Codes{"copy-fragment-shape@10:13"}) << e->report();
}

TEST(Errors, ThreadsMustBeWarpMultiples) {
    auto e = elaborateText("import tilelang.language as T\n"
                           "@T.prim_func\n"
                           "def main(A: T.Tensor((64,), \"float32\")):\n"
                           "    with T.Kernel(1, threads=100) as bx:\n"
                           "        T.clear(A)\n");
    ASSERT_EQ(e->codes(), Codes{"threads-not-multiple-of-32@4:30"}) << e->report();
    EXPECT_EQ(e->first("threads-not-multiple-of-32")->message,
              "threads=100 is not a multiple of the warp size 32");
}

TEST(Errors, IterationAndRecursionLimits) {
    auto loop = inJitBody("    k = 0\n"
                          "    while True:\n"
                          "        k += 1\n");
    ASSERT_EQ(loop->codes().size(), 1u) << loop->report();
    EXPECT_EQ(loop->codes()[0].substr(0, 16), "iteration-limit@");
    EXPECT_EQ(loop->module, nullptr);

    auto rec = inJitBody("    def down(k):\n"
                         "        return down(k + 1)\n"
                         "    down(0)\n");
    ASSERT_EQ(rec->codes(), Codes{"recursion-limit@6:16"}) << rec->report();
}

TEST(Errors, MissingParameterAndNoKernel) {
    auto e = elaborateText("import tilelang\n"
                           "import tilelang.language as T\n"
                           "@tilelang.jit\n"
                           "def f(M, block=32):\n"
                           "    @T.prim_func\n"
                           "    def main(A: T.Tensor((M,), \"float32\")):\n"
                           "        with T.Kernel(1, threads=32) as bx:\n"
                           "            T.clear(A)\n"
                           "    return main\n");
    ASSERT_EQ(e->codes(), Codes{"missing-parameter@4:7"}) << e->report();
    EXPECT_EQ(e->first("missing-parameter")->hint, "pass -p M=VALUE");
    ASSERT_TRUE(e->param("M") == nullptr || e->param("M")->origin == ir::ParamOrigin::Required);

    auto none = elaborateText("import torch\nx = torch.randn(4)\nprint(x)\n");
    ASSERT_EQ(none->codes(), Codes{"no-kernel@1:1"}) << none->report();
}

TEST(Errors, TileOpsOutsideAKernel) {
    auto e = elaborateText("import tilelang.language as T\n"
                           "@T.prim_func\n"
                           "def main(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
                           "    T.copy(A, B)\n"
                           "    with T.Kernel(1, threads=32) as bx:\n"
                           "        T.copy(A, B)\n");
    ASSERT_EQ(e->codes(), Codes{"kernel-outside-kernel@4:5"}) << e->report();

    auto jit = inJitBody("    s = T.alloc_shared((4, 4), \"float16\")\n");
    ASSERT_EQ(jit->codes(), Codes{"kernel-outside-kernel@5:9"}) << jit->report();
}

TEST(Errors, SeveralErrorsInOneRunWithoutCascades) {
    auto e = inKernel("            s = T.alloc_shared((32, 32), undefined_dtype)\n"
                      "            T.copy(A[0, 0], s)\n"
                      "            T.fill(s, 0)\n"
                      "            t = T.alloc_shared((32, 32), \"float16\")\n"
                      "            T.copy(A[0, 0], t, bogus=1)\n"
                      "            T.clear(C)\n"
                      "            T.gemm(t, t, t)\n");
    // `s` is an error value: its uses report nothing more. The other statements still run.
    ASSERT_EQ(e->codes(),
              (Codes{"unknown-name@8:42", "wrong-arguments@12:32", "gemm-accumulator-scope@14:26"}))
        << e->report();
}

TEST(Errors, HostValuesCannotReachKernelCode) {
    auto e = elaborateText("import tilelang\n"
                           "import tilelang.language as T\n"
                           "import torch\n"
                           "scale = torch.randn(1)\n"
                           "@tilelang.jit\n"
                           "def f(n=64):\n"
                           "    @T.prim_func\n"
                           "    def main(A: T.Tensor((n,), \"float32\")):\n"
                           "        with T.Kernel(1, threads=32) as bx:\n"
                           "            T.fill(A, scale)\n"
                           "    return main\n");
    ASSERT_EQ(e->codes(), Codes{"unsupported-construct@10:23"}) << e->report();
}

} // namespace
} // namespace tb::test
