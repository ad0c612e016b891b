// The elaborator never crashes, throws or hangs: every truncation of the real programs, and a few
// adversarial snippets, elaborate to a module or to diagnostics.
#include "ElaborateTestSupport.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace tb::test {
namespace {

TEST(Robustness, TruncatedProgramsNeverCrash) {
    for (const char* name : {"gemm_relu.py", "mla_decode.py", "eager_gemm.py"}) {
        std::string text = loadProgram(name);
        ASSERT_FALSE(text.empty()) << name;
        for (size_t cut = 0; cut < text.size(); cut += 53) {
            auto e = elaborateText(text.substr(0, cut));
            EXPECT_TRUE(e->module || e->diagnostics.hasErrors()) << name << " cut at " << cut;
        }
    }
}

TEST(Robustness, LineDeletionsNeverCrash) {
    std::string text = loadProgram("mla_decode.py");
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        lines.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1));
        pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    for (size_t drop = 0; drop < lines.size(); drop += 3) {
        std::string variant;
        for (size_t k = 0; k < lines.size(); ++k)
            if (k != drop)
                variant += lines[k];
        auto e = elaborateText(variant);
        EXPECT_TRUE(e->module || e->diagnostics.hasErrors()) << "dropped line " << drop + 1;
    }
}

TEST(Robustness, RandomTokenMutationsNeverCrash) {
    // Deterministic mutations: replace a short span of a real program with a Python-ish fragment.
    const char* fragments[] = {"(",    ")",    "[",         "]",       ":",   ",",      "0",      "-1",
                               "T.",   "A",    "*",         "//",      "**",  "\n    ", "lambda", "if ",
                               "for ", " in ", "T.Kernel(", "T.copy(", "'x'", "None",   "=",      "."};
    uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<size_t>(state >> 33);
    };
    for (const char* name : {"gemm_relu.py", "mla_decode.py", "eager_gemm.py"}) {
        std::string text = loadProgram(name);
        ASSERT_FALSE(text.empty());
        for (int round = 0; round < 120; ++round) {
            std::string variant = text;
            for (int edit = 0; edit < 3; ++edit) {
                size_t at = next() % variant.size();
                size_t len = next() % 4;
                variant.replace(at, std::min(len, variant.size() - at),
                                fragments[next() % std::size(fragments)]);
            }
            auto e = elaborateText(variant);
            EXPECT_TRUE(e->module || e->diagnostics.hasErrors()) << name << " round " << round;
        }
    }
}

TEST(Robustness, AdversarialSnippets) {
    const char* snippets[] = {
        "x = [0] * (10 ** 12)\n",
        "def f():\n    return f()\nf()\n",
        "import tilelang\n@tilelang.jit\ndef g(n=(1 << 62) * 8):\n    return 1\n",
        "import tilelang\n@tilelang.jit\ndef g():\n    while True:\n        pass\n",
        "import tilelang\n@tilelang.jit\ndef g():\n    return [i for i in range(10**9)]\n",
        "import tilelang\n@tilelang.jit\ndef g():\n    return g()\n",
        "import tilelang.language as T\n@T.prim_func\ndef m(A):\n    pass\n",
        "import tilelang.language as T\n@T.prim_func\ndef m(A: T.Tensor((0, -1), 'float16')):\n    pass\n",
        "import tilelang.language as T\n@T.prim_func\ndef m(A: T.Tensor((4,), 'nonsense')):\n    pass\n",
        "import tilelang\nimport tilelang.language as T\n@tilelang.jit\ndef g():\n    return 5\ng()\n",
        "import tilelang\n@tilelang.jit\ndef g():\n    return sum(range(10**8))\n",
        "import tilelang\n@tilelang.jit\ndef g():\n    s = 0\n    for i in range(10**12):\n        s += i\n",
        "import tilelang\nimport tilelang.language as T\n@tilelang.jit\ndef g():\n    M, N = T.const('M, "
        "N')\n"
        "    A: T.Tensor((M, N), 'float16')\n    with T.Kernel(1) as bx:\n        T.clear(A)\n",
    };
    for (const char* s : snippets) {
        auto e = elaborateText(s);
        EXPECT_TRUE(e->diagnostics.hasErrors()) << s;
        EXPECT_EQ(e->module, nullptr) << s;
    }
    std::string deep = "import tilelang\n@tilelang.jit\ndef g():\n    x = " + std::string(3000, '(') + "1" +
                       std::string(3000, ')') + "\n";
    auto e = elaborateText(deep);
    EXPECT_EQ(e->module, nullptr);
}

// Found by fuzz_elaborate (docs/fuzzing.md): the element count of a host tensor whose shape overflows int64
// was a signed overflow (undefined behaviour; in practice it wrapped to 0 here and became a zero-sized dim).
// The count of such a tensor is unknown, so the parameter computed from it is reported as not modelled.
TEST(Robustness, FuzzFoundTensorElementCountOverflowIsUnknown) {
    const char* program = R"(import torch
import tilelang
import tilelang.language as T

x = torch.empty(1 << 40, 1 << 40, dtype=torch.float16)


@tilelang.jit
def kernel(N):
    @T.prim_func
    def f(A: T.Tensor((N,), "float16")):
        with T.Kernel(1, threads=32) as bx:
            A[0] = 1.0

    return f


kernel(x.numel())
)";
    auto e = elaborateText(program);
    EXPECT_EQ(e->module, nullptr);
    EXPECT_EQ(e->codes(), std::vector<std::string>{"missing-parameter@18:8"}) << e->report();
    EXPECT_NE(e->report().find("unknown shape"), std::string::npos) << e->report();

    // The same shape flattened by view(-1): the inferred size is unknown too, not a wrapped product.
    std::string viewed = program;
    viewed.replace(viewed.find("x.numel()"), 9, "x.view(-1).shape[0]");
    auto v = elaborateText(viewed);
    EXPECT_EQ(v->module, nullptr);
    ASSERT_FALSE(v->codes().empty());
    EXPECT_EQ(v->codes()[0], "missing-parameter@18:8") << v->report();
}

// The host-code stress seeds of fuzz_elaborate (unbounded recursion, `while True:`, huge ranges and
// repetitions, a __getattr__ that calls itself): each stops with a diagnostic, none hangs or crashes.
TEST(Robustness, FuzzStressSeedsStopWithADiagnostic) {
    const std::string dir = std::string(TILEBENCH_TESTS_DIR) + "/../engine/tools/fuzz/corpus-elaborate/";
    for (const char* name : {"stress_recursion.py", "stress_while_true.py", "stress_huge_range.py",
                             "stress_list_repeat.py", "stress_getattr_loop.py"}) {
        std::ifstream in(dir + name);
        ASSERT_TRUE(in) << dir + name;
        std::stringstream text;
        text << in.rdbuf();
        auto e = elaborateText(text.str());
        EXPECT_TRUE(e->diagnostics.hasErrors()) << name;
        EXPECT_EQ(e->module, nullptr) << name << "\n" << e->report();
    }
}

// Host code that hits the step or recursion limit stops quietly (host code is lenient), but when that
// leaves no kernel defined, the no-kernel error points at where the module body stopped.
TEST(Robustness, NoKernelAfterHostCodeHitALimitSaysWhere) {
    auto loop = elaborateText("x = 0\nwhile True:\n    x += 1\n\n"
                              "import tilelang\n@tilelang.jit\ndef g(N=4):\n    return N\n");
    EXPECT_EQ(loop->codes(), std::vector<std::string>{"no-kernel@1:1"}) << loop->report();
    EXPECT_NE(loop->report().find("2:1: note: host code stopped here: elaboration stopped after"),
              std::string::npos)
        << loop->report();

    auto recursion = elaborateText("def f(n):\n    return f(n + 1)\n\n\nM = f(0)\n");
    EXPECT_NE(recursion->report().find("note: host code stopped here: maximum recursion depth"),
              std::string::npos)
        << recursion->report();
}

// fuzz_elaborate's timeout (run 1): a module-level `while True:` around a call of undefined names spends the
// whole step budget on name lookups (10 s under ASan before builtin names were hashed). It stops with the
// no-kernel error and a note at the loop.
TEST(Robustness, FuzzFoundHostLoopOverUndefinedNamesStops) {
    auto e = elaborateText(R"(import tilelang
import tilelang.language as T

x = 0
while True:
     kernel(n)


@tilelang.jit
def kernel(N):
    @T.prim_func
    def f(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            while True:
                A[0] = 1.0

    return f


if __name__ == "__main__":
    m1ain()
)");
    EXPECT_EQ(e->module, nullptr);
    EXPECT_EQ(e->codes(), std::vector<std::string>{"no-kernel@1:1"}) << e->report();
    EXPECT_NE(e->report().find("5:1: note: host code stopped here"), std::string::npos) << e->report();
}

} // namespace
} // namespace tb::test
