// tilelang.intrinsics as hand-written mma kernels use it: get_swizzle_layout computes TileLang's swizzled
// (tile, row, column) at compile time and as a T.Layout index function; TensorCoreIntrinEmitter's methods
// elaborate to one MmaIntrinsic statement each with the emitter's configuration; what the model does not
// cover (other dtypes, 8-column warp tiles, other methods, global stores, wrong operands) is a diagnostic at
// the call with a hint naming what is supported.
#include "engine/ir/Printer.h"
#include "tests/engine/elaborate/ElaborateTestSupport.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace tb::test {
namespace {

std::string intrinsicsProgram() {
    std::ifstream in(std::string(TILEBENCH_TESTS_DIR) + "/engine/run/programs/gemm_intrinsics.py");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A kernel around `body` with an emitter named `emitter`: fp16 into fp32, 2 x 2 warps of 32 x 32, chunk 32,
// unless `dtypes` and `warpColTiles` say otherwise.
std::string emitterKernel(const std::string& dtypes, const std::string& warpColTiles,
                          const std::string& body) {
    return "import tilelang.language as T\n"
           "from tilelang.intrinsics import TensorCoreIntrinEmitter\n"
           "\n"
           "@T.prim_func\n"
           "def main(C: T.Tensor((64, 64), \"float32\")):\n"
           "    emitter = TensorCoreIntrinEmitter(" +
           dtypes + ", b_transposed=True, warp_row_tiles=32, warp_col_tiles=" + warpColTiles +
           ", chunk=32)\n"
           "    with T.Kernel(1, threads=128) as bx:\n"
           "        A_shared = T.alloc_shared((64, 32), \"float16\")\n"
           "        C_shared = T.alloc_shared((4, 4, 16, 16), \"float32\")\n"
           "        A_local = T.alloc_local((16,), \"float16\")\n"
           "        A_frag = T.alloc_fragment((64, 32), \"float16\")\n"
           "        C_local = T.alloc_local((32,), \"float32\")\n" +
           body;
}

TEST(MmaIntrinsics, GetSwizzleLayoutIsTileLangsFormulaAtCompileTime) {
    // 128-byte rows: chunk 37 // 8 = 4 of row 5 goes to 4 ^ 5 = 1; 64-byte rows: chunk 1 to 1 ^ (5 % 8) // 2
    // = 3.
    auto e = elaborateText(
        "import tilelang.language as T\n"
        "from tilelang.cuda.intrinsics import get_swizzle_layout\n"
        "\n"
        "@T.prim_func\n"
        "def main(C: T.Tensor((64,), \"float32\")):\n"
        "    with T.Kernel(1, threads=128) as bx:\n"
        "        X = T.alloc_shared((get_swizzle_layout(5, 37, 64, \"float16\")[2],), \"float16\")\n"
        "        Y = T.alloc_shared((get_swizzle_layout(5, 13, 32, \"float16\")[2],), \"float16\")\n"
        "        Z = T.alloc_shared((get_swizzle_layout(9, 70, 64, \"float16\", 32)[0] + 1,), "
        "\"float16\")\n"
        "        T.fill(C, 0)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->buffer("X")->constantExtent(0), 13);
    EXPECT_EQ(e->buffer("Y")->constantExtent(0), 29);
    EXPECT_EQ(e->buffer("Z")->constantExtent(0), 5); // 32-byte swizzle: column 70 is in chunk 8, tile 4
}

TEST(MmaIntrinsics, EmitterMethodsElaborateToIntrinsicStatements) {
    auto e = elaborateText(intrinsicsProgram());
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_FALSE(e->diagnostics.hasErrors()) << e->report();
    const ir::StmtPtr& body = e->module->funcs.at(0).body;
    std::vector<const ir::Stmt*> ops = collect(body, ir::StmtKind::MmaIntrinsic);
    ASSERT_EQ(ops.size(), 4u);
    EXPECT_EQ(ops[0]->mmaOp, ir::MmaIntrinsicOp::LdmatrixA);
    EXPECT_EQ(ops[0]->src.buffer, e->buffer("A_shared"));
    EXPECT_EQ(ops[0]->dst.buffer, e->buffer("A_local"));
    EXPECT_EQ(ops[1]->mmaOp, ir::MmaIntrinsicOp::LdmatrixB);
    EXPECT_EQ(ops[2]->mmaOp, ir::MmaIntrinsicOp::Mma);
    EXPECT_EQ(ops[2]->c.buffer, e->buffer("C_local"));
    EXPECT_EQ(ops[3]->mmaOp, ir::MmaIntrinsicOp::Stmatrix);
    EXPECT_EQ(ops[3]->dst.buffer, e->buffer("C_shared"));
    const ir::MmaEmitter& cfg = ops[0]->mmaEmitter;
    EXPECT_EQ(cfg.warpRows(), 2);
    EXPECT_EQ(cfg.localSizeA(), 8);
    EXPECT_TRUE(cfg.bTransposed);
    EXPECT_EQ(cfg.accumDtype, ir::DType::Float32);
    // The emitter's attributes sized the locals: warp_rows * local_size_a and so on.
    EXPECT_EQ(e->buffer("A_local")->constantElementCount(), 16);
    EXPECT_EQ(e->buffer("C_local")->constantElementCount(), 32);
    const std::string listing = ir::printModule(*e->module);
    EXPECT_NE(listing.find("mma_intrinsic.ldmatrix_a A_shared[0:64, 0:32] -> A_local[0:16] (k_step=ki) by "
                           "TensorCoreIntrinEmitter(a_dtype=float16, b_dtype=float16, accum_dtype=float32, "
                           "a_transposed=False, b_transposed=True, block_row_warps=2, block_col_warps=2, "
                           "warp_row_tiles=32, warp_col_tiles=32, chunk=32)"),
              std::string::npos)
        << listing;
    EXPECT_NE(listing.find("mma_intrinsic.mma A_local[0:16], B_local[0:16] -> C_local[0:32]"),
              std::string::npos)
        << listing;
    // get_swizzle_layout as the T.Layout's index function: (tile, row, swizzled column).
    std::vector<const ir::Stmt*> annotations = collect(body, ir::StmtKind::AnnotateLayout);
    ASSERT_EQ(annotations.size(), 1u);
    ASSERT_EQ(annotations[0]->layouts.size(), 2u);
    EXPECT_EQ(annotations[0]->layouts[0].kind, ir::LayoutAnnotationKind::CustomLayout);
    EXPECT_EQ(annotations[0]->layouts[0].forward.size(), 3u);
}

TEST(MmaIntrinsics, WhatTheModelDoesNotCoverIsADiagnosticWithAHint) {
    struct Case {
        std::string dtypes, warpColTiles, body, code, message, hint;
    };
    const std::string fp16 = "a_dtype=\"float16\", b_dtype=\"float16\", accum_dtype=\"float32\"";
    const std::string clear = "        T.clear(C_local)\n";
    const std::vector<Case> cases = {
        {"a_dtype=\"float16\", b_dtype=\"float16\", accum_dtype=\"float16\"", "32", clear,
         "mma-emitter-unsupported@6:15", "accum_dtype=float16", "float32 accumulator"},
        {"a_dtype=\"int8\", b_dtype=\"int8\", accum_dtype=\"int32\"", "32", clear,
         "mma-emitter-unsupported@6:15", "inputs a_dtype=int8", "float16 or bfloat16 inputs"},
        {fp16, "8", clear, "mma-emitter-unsupported@6:15", "warp tiles 32 x 8", "multiples of 16"},
        {fp16, "32", "        emitter.make_mma_load_layout(A_local)\n", "mma-emitter-unsupported@13:9",
         "make_mma_load_layout is not supported", "ldmatrix_a, ldmatrix_b, mma and stmatrix"},
        {fp16, "32", "        emitter.ldmatrix_a(A_frag, A_shared, 0)\n", "mma-emitter-operand@13:28",
         "must be a T.alloc_local array, but it is fragment", "T.alloc_local((16,), float16)"},
        {fp16, "32", "        emitter.ldmatrix_a(A_local, A_shared[0:32, :], 0)\n",
         "mma-emitter-operand@13:37", "at least [64, 32]", "T.alloc_shared((64, 32), float16)"},
        {fp16, "32", "        emitter.stmatrix(C_local, C_shared, pid_m=bx, pid_n=0)\n",
         "mma-emitter-unsupported@13:51", "into global memory (pid_m, pid_n) is not supported",
         "copy that to global memory"},
        {fp16, "32", "        emitter.ldmatrix_a(A_local, A_shared, 0, rk=1)\n",
         "mma-emitter-unsupported@13:53", "rk (split-K", "reduce_k=1"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.dtypes + " / " + c.body);
        auto e = elaborateText(emitterKernel(c.dtypes, c.warpColTiles, c.body));
        ASSERT_EQ(e->codes().size(), 1u) << e->report();
        EXPECT_EQ(e->codes()[0], c.code) << e->report();
        const Diagnostic& d = e->diagnostics.diagnostics()[0];
        EXPECT_NE(d.message.find(c.message), std::string::npos) << d.message;
        EXPECT_NE(d.hint.find(c.hint), std::string::npos) << d.hint;
    }
}

} // namespace
} // namespace tb::test
