// The two primitives TileLang's im2col convolution is built from, as the elaborator builds them: views of a
// global buffer's storage with another shape (T.Tensor(shape, dtype, buf.data)), and T.im2col elaborated to
// the T.Parallel loop it means; each with the diagnostics for its misuses at their line:col.
#include "ElaborateTestSupport.h"
#include "engine/ir/IrJson.h"
#include "engine/ir/Printer.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::test {
namespace {

using Codes = std::vector<std::string>;

// Lines 1-8 are fixed; the kernel body starts on line 9, indented 12 spaces (column 13). img is NHWC
// [2, 6, 5, 8] float16, w a [3, 3, 8, 16] filter, out [2, 6, 5, 16].
std::unique_ptr<Elaborated> convKernel(const std::string& body) {
    std::string text = "import tilelang\n"
                       "import tilelang.language as T\n"
                       "@tilelang.jit\n"
                       "def f(n=2):\n"
                       "    @T.prim_func\n"
                       "    def main(img: T.Tensor((n, 6, 5, 8), \"float16\"), w: T.Tensor((3, 3, 8, 16), "
                       "\"float16\"),\n"
                       "             out: T.Tensor((n, 6, 5, 16), \"float16\")):\n"
                       "        with T.Kernel(2, 4, threads=128) as (bx, by):\n" +
                       body + "    return main\n";
    return elaborateText(text);
}

const ir::Stmt& kernelOf(const Elaborated& e) {
    return *collect(e.module->funcs.at(0).body, ir::StmtKind::Kernel).at(0);
}

TEST(BufferViews, AViewReshapesItsBaseAndIsDeclaredInTheKernel) {
    auto e = convKernel("            w_flat = T.Tensor((3 * 3 * 8, 16), \"float16\", w.data)\n"
                        "            out_flat = T.Tensor((n * 30, 16), \"float16\", out.data)\n"
                        "            again = T.Tensor((n * 30 * 16,), \"float16\", out_flat.data)\n"
                        "            tile = T.alloc_shared((8, 16), \"float16\")\n"
                        "            T.copy(w_flat[bx * 8, 0], tile)\n"
                        "            T.copy(tile, out_flat[by * 8, 0])\n");
    ASSERT_TRUE(e->module) << e->report();
    const ir::Buffer* wFlat = e->buffer("w_flat");
    const ir::Buffer* again = e->buffer("again");
    ASSERT_TRUE(wFlat && again);
    EXPECT_EQ(wFlat->viewOf, e->buffer("w"));
    EXPECT_EQ(wFlat->scope, ir::MemoryScope::Global);
    EXPECT_EQ(shapeOf(wFlat->shape), "[72, 16]");
    EXPECT_EQ(wFlat->paramIndex, -1);
    // A view of a view is a view of the storage's owner.
    EXPECT_EQ(again->viewOf, e->buffer("out"));
    const ir::Stmt& kernel = kernelOf(*e);
    EXPECT_EQ(kernel.allocations.size(), 4u);
    auto copies = collect(kernel.body, ir::StmtKind::Copy);
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_EQ(regionOf(copies[0]->src), "w_flat[bx * 8 +8, 0 +16]");
    EXPECT_EQ(regionOf(copies[1]->dst), "out_flat[by * 8 +8, 0 +16]");
    // The listing and the JSON name the base.
    const std::string listing = ir::printModule(*e->module);
    EXPECT_NE(listing.find("view w_flat: global float16[72, 16] of w"), std::string::npos) << listing;
    EXPECT_NE(listing.find("view again: global float16[960] of out"), std::string::npos) << listing;
    const std::string json = ir::moduleToJson(*e->module, nullptr, false);
    EXPECT_NE(json.find("\"viewOf\":\"w\",\"viewOfId\":" + std::to_string(e->buffer("w")->id)),
              std::string::npos)
        << json;
}

TEST(BufferViews, TheProxiesTakeDataWhereTileLangDoes) {
    // T.Buffer(shape, dtype, data, strides, ...) and T.StridedTensor(shape, strides, dtype, scope, data=).
    auto e = convKernel("            a = T.Buffer((72, 16), \"float16\", w.data)\n"
                        "            b = T.StridedTensor((72, 16), (16, 1), \"float16\", data=w.data)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(e->buffer("a")->viewOf, e->buffer("w"));
    EXPECT_EQ(e->buffer("b")->viewOf, e->buffer("w"));
}

TEST(BufferViews, MisusesAreDiagnosed) {
    auto notStorage = convKernel("            v = T.Tensor((72, 16), \"float16\", 5)\n");
    EXPECT_EQ(notStorage->codes(), Codes{"type-error@9:47"}) << notStorage->report();
    EXPECT_EQ(notStorage->first("type-error")->hint,
              "write T.Tensor(shape, dtype, buf.data) to view buf with another shape");

    auto ofShared = convKernel("            s = T.alloc_shared((8, 16), \"float16\")\n"
                               "            v = T.Tensor((128,), \"float16\", s.data)\n");
    EXPECT_EQ(ofShared->codes(), Codes{"unsupported-construct@10:45"}) << ofShared->report();

    auto strided =
        convKernel("            v = T.StridedTensor((72, 16), (1, 72), \"float16\", data=w.data)\n");
    EXPECT_EQ(strided->codes(), Codes{"unsupported-construct@9:43"}) << strided->report();
    EXPECT_NE(strided->first("unsupported-construct")->message.find("strides other than row-major"),
              std::string::npos);

    auto ofRegion = convKernel("            v = T.Tensor((72,), \"float16\", w[0, 0, 0:8, 0].data)\n");
    EXPECT_EQ(ofRegion->codes(), Codes{"unknown-attribute@9:44"}) << ofRegion->report();

    auto outside = elaborateText("import tilelang\n"
                                 "import tilelang.language as T\n"
                                 "@T.prim_func\n"
                                 "def main(w: T.Tensor((4, 4), \"float16\")):\n"
                                 "    flat = T.Tensor((16,), \"float16\", w.data)\n"
                                 "    with T.Kernel(1, threads=32) as bx:\n"
                                 "        T.clear(flat)\n");
    EXPECT_EQ(outside->codes(), Codes{"unsupported-construct@5:12"}) << outside->report();
}

TEST(Im2col, ElaboratesToAParallelLoopReadingTheImageWithBoundsChecks) {
    auto e = convKernel("            tile = T.alloc_shared((16, 8), \"float16\")\n"
                        "            for k in T.serial(9):\n"
                        "                T.im2col(img, tile, by, k, 3, 2, 1, 1)\n");
    ASSERT_TRUE(e->module) << e->report();
    const ir::Stmt& kernel = kernelOf(*e);
    auto loops = collect(kernel.body, ir::StmtKind::For);
    ASSERT_EQ(loops.size(), 3u); // the serial k, then i and j in parallel
    EXPECT_EQ(loops[1]->loopKind, ir::LoopKind::Parallel);
    EXPECT_EQ(loops[2]->loopKind, ir::LoopKind::Parallel);
    EXPECT_EQ(ir::printExpr(loops[1]->extent), "16");
    EXPECT_EQ(ir::printExpr(loops[2]->extent), "8");
    auto stores = collect(kernel.body, ir::StmtKind::Store);
    ASSERT_EQ(stores.size(), 1u);
    EXPECT_EQ(stores[0]->buffer->name, "tile");
    // OH = (6 + 2 - 2 - 1) // 2 + 1 = 3, OW = (5 + 2 - 2 - 1) // 2 + 1 = 3: row m = by * 16 + i is pixel
    // (m // 9, m // 3 % 3, m % 3); column k * 8 + j is tap (k * 8 // 24, k * 8 // 8 % 3), channel j.
    const std::string value = ir::printExpr(stores[0]->value);
    EXPECT_NE(value.find("img[((by * 16) + i) // 9, "), std::string::npos) << value;
    EXPECT_NE(value.find("((((by * 16) + i) // 3) % 3) * 2"), std::string::npos) << value;
    EXPECT_NE(value.find("((k * 8) // 24)"), std::string::npos) << value;
    EXPECT_NE(value.find(", ((k * 8) % 8) + j], 0.0)"), std::string::npos) << value;
    EXPECT_EQ(value.rfind("select(", 0), 0u) << value;

    // The deprecated alias, with its eviction policy.
    auto alias = convKernel(
        "            tile = T.alloc_shared((16, 8), \"float16\")\n"
        "            T.c2d_im2col(img, tile, by, 0, 3, 1, 1, 1, eviction_policy=\"evict_last\")\n");
    EXPECT_TRUE(alias->module) << alias->report();
}

TEST(Im2col, MisusesAreDiagnosed) {
    auto fragment = convKernel("            tile = T.alloc_fragment((16, 8), \"float16\")\n"
                               "            T.im2col(img, tile, by, 0, 3, 1, 1, 1)\n");
    EXPECT_EQ(fragment->codes(), Codes{"invalid-argument@10:27"}) << fragment->report();

    auto notImage = convKernel("            tile = T.alloc_shared((16, 8), \"float16\")\n"
                               "            T.im2col(tile, tile, by, 0, 3, 1, 1, 1)\n");
    EXPECT_EQ(notImage->codes(), Codes{"invalid-argument@10:22"}) << notImage->report();

    auto retyped = convKernel("            tile = T.alloc_shared((16, 8), \"float32\")\n"
                              "            T.im2col(img, tile, by, 0, 3, 1, 1, 1)\n");
    EXPECT_EQ(retyped->codes(), Codes{"invalid-argument@10:27"}) << retyped->report();

    // 8 channels are not a multiple of 16 columns: one tile would span two filter taps.
    auto ragged = convKernel("            tile = T.alloc_shared((16, 16), \"float16\")\n"
                             "            T.im2col(img, tile, by, 0, 3, 1, 1, 1)\n");
    EXPECT_EQ(ragged->codes(), Codes{"invalid-argument@10:27"}) << ragged->report();
    EXPECT_NE(ragged->first("invalid-argument")->message.find("multiple of the tile's 16 columns"),
              std::string::npos);

    auto zeroStride = convKernel("            tile = T.alloc_shared((16, 8), \"float16\")\n"
                                 "            T.im2col(img, tile, by, 0, 3, 0, 1, 1)\n");
    EXPECT_EQ(zeroStride->codes(), Codes{"invalid-argument@10:43"}) << zeroStride->report();

    // A 7-tap filter dilated by 2 spans 13 pixels; the padded image is 8 high.
    auto tooLarge = convKernel("            tile = T.alloc_shared((16, 8), \"float16\")\n"
                               "            T.im2col(img, tile, by, 0, 7, 1, 2, 1)\n");
    EXPECT_EQ(tooLarge->codes(), Codes{"invalid-argument@10:13"}) << tooLarge->report();

    auto floatStep = convKernel("            tile = T.alloc_shared((16, 8), \"float16\")\n"
                                "            T.im2col(img, tile, 0.5, 0, 3, 1, 1, 1)\n");
    EXPECT_EQ(floatStep->codes(), Codes{"type-error@10:33"}) << floatStep->report();
}

} // namespace
} // namespace tb::test
