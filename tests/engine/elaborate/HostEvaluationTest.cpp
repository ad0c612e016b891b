// The host evaluator (docs/host-evaluation.md): main() and the `if __name__ == "__main__":` block run far
// enough to find the first call of the jit function, with argparse defaults, torch tensors as shape /
// dtype / device values, helper functions, the first @autotune config and the target's SM count; a value
// it cannot determine is reported by the parameter's name, where it was passed and where it came from.
#include "ElaborateTestSupport.h"
#include "engine/target/Target.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace tb::test {
namespace {

// A lazy-style jit function over the sizes a test passes; the kernel uses all of them.
const char* const kKernel = "import argparse\n"
                            "import itertools\n"
                            "import torch\n"
                            "import tilelang\n"
                            "import tilelang.language as T\n"
                            "\n"
                            "@tilelang.jit\n"
                            "def scale(M, N, block_M=32, threads=128, dtype=T.float16):\n"
                            "    @T.prim_func\n"
                            "    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):\n"
                            "        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:\n"
                            "            for i, j in T.Parallel(block_M, N):\n"
                            "                B[bx * block_M + i, j] = A[bx * block_M + i, j] * 2\n"
                            "    return main\n"
                            "\n";

std::string paramText(const Elaborated& e, const std::string& name) {
    const ir::SpecializationParam* p = e.param(name);
    return p ? p->text : "<none>";
}

TEST(HostEvaluation, ArgparseDefaultsReachTheFirstCall) {
    auto e = elaborateText(std::string(kKernel) +
                           "def main(m, n):\n"
                           "    kernel = scale(m, n, block_M=64)\n"
                           "\n"
                           "if __name__ == \"__main__\":\n"
                           "    parser = argparse.ArgumentParser()\n"
                           "    parser.add_argument(\"--m\", type=int, default=256)\n"
                           "    parser.add_argument(\"--num-cols\", type=int, default=\"96\")\n"
                           "    args = parser.parse_args()\n"
                           "    main(args.m, args.num_cols)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "256");
    EXPECT_EQ(paramText(*e, "N"), "96"); // argparse applies type= to a string default
    EXPECT_EQ(paramText(*e, "block_M"), "64");
    EXPECT_EQ(e->param("M")->origin, ir::ParamOrigin::ModuleCall);
    EXPECT_EQ(e->param("threads")->origin, ir::ParamOrigin::Default);
}

TEST(HostEvaluation, TensorShapesGiveSizes) {
    auto e = elaborateText(std::string(kKernel) +
                           "def main(batch=4, seq=48):\n"
                           "    q = torch.randn(batch, seq, 8, 16, dtype=torch.float16, device=\"cuda\")\n"
                           "    k = q.transpose(1, 2).contiguous().to(torch.bfloat16)\n"
                           "    flat = k.reshape(-1, k.size(-1))\n"
                           "    rows, cols = flat.shape\n"
                           "    assert k.dtype == torch.bfloat16 and q.device == \"cuda\"\n"
                           "    kernel = scale(rows, q.shape[1] + len(q[0, :, 0]))\n"
                           "    kernel(q, k)\n"
                           "main()\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), std::to_string(4 * 8 * 48)); // (4, 8, 48, 16) flattened to (1536, 16)
    EXPECT_EQ(paramText(*e, "N"), "96");                       // 48 + len of a (48,)-shaped view
}

TEST(HostEvaluation, TorchFunctionsFollowShapes) {
    auto e =
        elaborateText(std::string(kKernel) +
                      "import torch.nn.functional as F\n"
                      "q = torch.randn(2, 4, 64, 16)\n"
                      "k = torch.randn(2, 4, 80, 16)\n"
                      "qk = F.softmax(torch.einsum(\"bhmk, bhnk -> bhmn\", q, k), dim=-1)\n"
                      "col = torch.sum(qk, 2)\n"                                // (2, 4, 80)
                      "wide = torch.cat((col, col), -1)\n"                      // (2, 4, 160)
                      "idx = torch.topk(F.pad(wide, [0, 8]), 24, -1).indices\n" // (2, 4, 24)
                      "kernel = scale(wide.shape[-1] + torch.transpose(q, 1, 2).shape[1], idx.size(-1))\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "224"); // 160 + 64
    EXPECT_EQ(paramText(*e, "N"), "24");
}

TEST(HostEvaluation, HelperFunctionsAndKeywordUnpacking) {
    auto e = elaborateText(std::string(kKernel) + "def get_heuristic_config():\n"
                                                  "    major, minor = torch.cuda.get_device_capability()\n"
                                                  "    if major * 10 + minor >= 90:\n"
                                                  "        return {\"block_M\": 128, \"threads\": 256}\n"
                                                  "    return {\"block_M\": 64, \"threads\": 128}\n"
                                                  "\n"
                                                  "def main():\n"
                                                  "    for M, N in [(512, 64), (1024, 128)]:\n"
                                                  "        config = get_heuristic_config()\n"
                                                  "        kernel = scale.compile(M=M, N=N, **config)\n"
                                                  "main()\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "512"); // the first iteration's call is the one compiled
    EXPECT_EQ(paramText(*e, "N"), "64");
    EXPECT_EQ(paramText(*e, "block_M"), "128"); // sm_90a: the capability is the target's
    EXPECT_EQ(paramText(*e, "threads"), "256");
}

TEST(HostEvaluation, DevicePropertiesAreTheTargets) {
    // convolution/example_convolution_autotune.py's check_hopper() and get_heuristic_config(), in short.
    const std::string text =
        std::string(kKernel) +
        "def check_hopper():\n"
        "    if not torch.cuda.is_available():\n"
        "        return None\n"
        "    props = torch.cuda.get_device_properties(0)\n"
        "    return (props.major, props.minor) == (9, 0)\n"
        "\n"
        "def config():\n"
        "    device = torch.cuda.current_device()\n"
        "    sm_major, sm_minor = torch.cuda.get_device_capability(device)\n"
        "    props = torch.cuda.get_device_properties(device)\n"
        "    return {\"block_M\": 16 * (sm_major * 10 + sm_minor - 70) + (1 if check_hopper() else 0)\n"
        "                       + props.multi_processor_count,\n"
        "            \"threads\": props.warp_size * 4}\n"
        "\n"
        "kernel = scale.compile(M=4096, N=64, **config())\n";
    for (const Target* target : {&targetSm90a(), &targetSm80()}) {
        ElaborateOptions options;
        options.target = target;
        auto e = elaborateText(text, options);
        ASSERT_TRUE(e->module) << e->report();
        const bool hopper = target->smVersion == 90;
        // 16 * (capability - 70) + is_hopper + SM count.
        EXPECT_EQ(paramText(*e, "block_M"), hopper ? "453" : "268") << target->name;
        EXPECT_EQ(paramText(*e, "threads"), "128") << target->name;
    }
}

TEST(HostEvaluation, AutotuneTakesTheFirstConfig) {
    std::string text = std::string(kKernel);
    text.replace(text.find("@tilelang.jit\n"), 14,
                 "def get_configs():\n"
                 "    params = dict(block_M=[16, 64], threads=[64, 256])\n"
                 "    return [dict(zip(params, v)) for v in itertools.product(*params.values())]\n"
                 "\n"
                 "@tilelang.autotune(configs=get_configs(), warmup=10)\n"
                 "@tilelang.jit\n");
    auto e = elaborateText(text + "scale(128, 64, threads=128)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "block_M"), "16");
    EXPECT_EQ(e->param("block_M")->origin, ir::ParamOrigin::Autotune);
    EXPECT_EQ(paramText(*e, "threads"), "128"); // given by the call: not tuned
    EXPECT_EQ(e->param("threads")->origin, ir::ParamOrigin::ModuleCall);
}

TEST(HostEvaluation, EagerConstDimsComeFromTensorShapes) {
    // T.const dims bind from the tensors passed for annotated parameters, through shape variables and
    // conditional shapes whose test the jit parameters decide.
    std::string text = "import torch\n"
                       "import tilelang\n"
                       "import tilelang.language as T\n"
                       "\n"
                       "@tilelang.jit\n"
                       "def copy(A, B, trans=False):\n"
                       "    M, N = T.const(\"M, N\")\n"
                       "    a_shape = (N, M) if trans else (M, N)\n"
                       "    b_shape = [M, N]\n"
                       "    A: T.Tensor(a_shape, T.float32)\n"
                       "    B: T.Tensor(b_shape, T.float32)\n"
                       "    with T.Kernel(1, threads=128) as bx:\n"
                       "        for i, j in T.Parallel(M, N):\n"
                       "            B[i, j] = A[j, i] if trans else A[i, j]\n"
                       "\n"
                       "def main():\n"
                       "    a = torch.randn(64, 32, device=\"cuda\").requires_grad_(True)\n"
                       "    b = torch.empty(a.shape[1], a.shape[0], device=a.device)\n"
                       "    copy(a, b, trans=True)\n"
                       "main()\n";
    auto e = elaborateText(text);
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "32");
    EXPECT_EQ(paramText(*e, "N"), "64");
}

TEST(HostEvaluation, GetNumSmsAnswersFromTheTarget) {
    std::string text = "import tilelang\n"
                       "import tilelang.language as T\n"
                       "from tilelang.carver.arch import driver\n"
                       "\n"
                       "@tilelang.jit\n"
                       "def persistent(M=4096):\n"
                       "    sm_num = driver.get_num_sms()\n"
                       "    @T.prim_func\n"
                       "    def main(A: T.Tensor((M,), T.float32)):\n"
                       "        with T.Kernel(sm_num, threads=128) as bx:\n"
                       "            for i in T.Parallel(128):\n"
                       "                A[bx * 128 + i] = 0\n"
                       "    return main\n";
    for (const Target* target : {&targetSm90a(), &targetSm80()}) {
        ElaborateOptions options;
        options.target = target;
        auto e = elaborateText(text, options);
        ASSERT_TRUE(e->module) << e->report();
        auto kernels = collect(e->module->funcs[0].body, ir::StmtKind::Kernel);
        ASSERT_EQ(kernels.size(), 1u);
        EXPECT_EQ(shapeOf(kernels[0]->grid), "[" + std::to_string(target->smCount) + "]") << target->name;
    }
}

TEST(HostEvaluation, AutogradFunctionApplyReachesTheKernel) {
    auto e = elaborateText(std::string(kKernel) + "class _scale(torch.autograd.Function):\n"
                                                  "    @staticmethod\n"
                                                  "    def forward(ctx, x):\n"
                                                  "        M, N = x.shape\n"
                                                  "        ctx.save_for_backward(x)\n"
                                                  "        return scale(M, N)(x)\n"
                                                  "\n"
                                                  "apply_scale = _scale.apply\n"
                                                  "x = torch.empty(320, 40).cuda().half()\n"
                                                  "y = apply_scale(x)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "320");
    EXPECT_EQ(paramText(*e, "N"), "40");
}

TEST(HostEvaluation, UndeterminableValueNamesTheParameterAndItsOrigin) {
    auto e = elaborateText(std::string(kKernel) + "from varlen_utils import generate_qkv\n"
                                                  "\n"
                                                  "def main():\n"
                                                  "    q = torch.randn(8, 64)\n"
                                                  "    q_unpad, k_unpad = generate_qkv(q)\n"
                                                  "    total = q_unpad.numel() // 64\n"
                                                  "    kernel = scale(total, q.shape[1])\n"
                                                  "main()\n");
    EXPECT_FALSE(e->module);
    ASSERT_EQ(e->codes(), std::vector<std::string>{"missing-parameter@22:20"}) << e->report();
    const Diagnostic* d = e->first("missing-parameter");
    EXPECT_EQ(d->message,
              "cannot determine parameter 'M' of 'scale': `total` depends on `generate_qkv`, which "
              "TileBench's host evaluator does not model (varlen_utils.generate_qkv(...).numel(...))");
    EXPECT_EQ(d->hint, "pass -p M=VALUE");
    ASSERT_EQ(d->notes.size(), 2u);
    LineCol origin = e->sources.file(e->file).lineCol(d->notes[0].range.begin);
    EXPECT_EQ(origin.line, 16u); // the import that brought the unmodelled function in
    // With the value given, the rest comes from the call.
    ElaborateOptions options;
    options.overrides = {{"M", "512"}};
    auto fixed = elaborateText(e->sources.file(e->file).text(), options);
    ASSERT_TRUE(fixed->module) << fixed->report();
    EXPECT_EQ(paramText(*fixed, "N"), "64");
}

// A size of a tensor made by a function the evaluator does not model (the unpadded token count of a varlen
// batch) is data: the kernel is compiled with it as a dynamic dim, valid for every value, and a warning
// says so; -p gives it one value, as TileLang's call does.
TEST(HostEvaluation, DataDependentSizeBecomesADynamicDim) {
    auto e = elaborateText(std::string(kKernel) + "from varlen_utils import generate_qkv\n"
                                                  "\n"
                                                  "def main():\n"
                                                  "    q = torch.randn(8, 64)\n"
                                                  "    q_unpad, k_unpad = generate_qkv(q)\n"
                                                  "    kernel = scale(q_unpad.shape[0], q.shape[1])\n"
                                                  "main()\n");
    ASSERT_TRUE(e->module) << e->report();
    ASSERT_EQ(e->codes(), std::vector<std::string>{"data-dependent-parameter@21:20"}) << e->report();
    EXPECT_EQ(e->first("data-dependent-parameter")->hint,
              "pass -p M=VALUE to compile it for one value, as TileLang does on each call");
    ASSERT_NE(e->param("M"), nullptr);
    EXPECT_EQ(e->param("M")->origin, ir::ParamOrigin::DataDependent);
    EXPECT_EQ(paramText(*e, "N"), "64");
    const ir::PrimFunc& func = e->module->funcs[0];
    ASSERT_EQ(func.dynamicDims.size(), 1u);
    EXPECT_EQ(func.dynamicDims[0]->name, "M");
    EXPECT_EQ(func.params[0]->shape[0]->kind, ir::ExprKind::VarRef); // A is (M, 64)

    ElaborateOptions options;
    options.overrides = {{"M", "512"}};
    auto fixed = elaborateText(e->sources.file(e->file).text(), options);
    ASSERT_TRUE(fixed->module) << fixed->report();
    EXPECT_TRUE(fixed->codes().empty()) << fixed->report();
    EXPECT_TRUE(fixed->module->funcs[0].dynamicDims.empty());
}

// Linear-attention programs normalize q and k with flash-linear-attention's l2norm_fwd before the kernel:
// (y, rstd), y of the input's shape.
TEST(HostEvaluation, FlaL2normForwardKeepsTheShape) {
    auto e = elaborateText(std::string(kKernel) +
                           "from fla.modules.l2norm import l2norm_fwd\n"
                           "\n"
                           "def main():\n"
                           "    q = torch.randn(2, 96, 64, device=\"cuda\", dtype=torch.float16)\n"
                           "    q, rstd = l2norm_fwd(q)\n"
                           "    B, S, D = q.shape\n"
                           "    kernel = scale(B * S, rstd.shape[1] // 3 + D)\n"
                           "main()\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "192");
    EXPECT_EQ(paramText(*e, "N"), "96"); // rstd is (2, 96): 96 // 3 + 64
}

TEST(HostEvaluation, LiteralTensorValuesAreKnown) {
    auto e = elaborateText(std::string(kKernel) +
                           "sizes = torch.tensor([2048, 6144], device=\"cuda\", dtype=torch.int32)\n"
                           "M_max = int((sizes.max() + 127) // 128 * 128)\n"
                           "kernel = scale(M_max, sizes.shape[0] * 32 + sizes.tolist()[0] // 1024)\n");
    ASSERT_TRUE(e->module) << e->report();
    EXPECT_EQ(paramText(*e, "M"), "6144");
    EXPECT_EQ(paramText(*e, "N"), "66");
}

TEST(HostEvaluation, TensorDataIsNotModelled) {
    auto e = elaborateText(std::string(kKernel) + "sizes = torch.randint(1, 4096, (2,), dtype=torch.int32)\n"
                                                  "M_max = int(sizes.max())\n"
                                                  "kernel = scale(M_max, sizes.shape[0] * 32)\n");
    EXPECT_FALSE(e->module);
    const Diagnostic* d = e->first("missing-parameter");
    ASSERT_TRUE(d) << e->report();
    EXPECT_NE(d->message.find("'M' of 'scale': `M_max` depends on `int(sizes.max())`"), std::string::npos)
        << d->message;
    EXPECT_NE(d->message.find("the data of a tensor"), std::string::npos) << d->message;
}

} // namespace
} // namespace tb::test
