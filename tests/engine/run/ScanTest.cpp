// T.cumsum through the whole compile line: an inclusive prefix sum along either dimension of a shared tile,
// forward and reverse, and of a fragment through its shared scratch tile, computed by the CPU executor and
// compared with the sums written out here; the generated CUDA compiles for sm_80 and sm_90a, and only one
// replica of each line's scan stores.
#include "CodegenTestSupport.h"
#include "engine/exec/Executor.h"
#include "engine/gpu/Nvrtc.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace tb;
using namespace tb::codegen::test;

namespace {

std::string scanProgram(const std::string& scope, int dim, bool reverse) {
    return "import tilelang.language as T\n"
           "\n"
           "@T.prim_func\n"
           "def scan(A: T.Tensor((8, 48), \"float32\"), B: T.Tensor((8, 48), \"float32\")):\n"
           "    with T.Kernel(1, threads=128) as bx:\n"
           "        tile = T.alloc_" +
           scope +
           "((8, 48), \"float32\")\n"
           "        T.copy(A, tile)\n"
           "        T.cumsum(tile, dim=" +
           std::to_string(dim) + ", reverse=" + (reverse ? "True" : "False") +
           ")\n"
           "        T.copy(tile, B)\n";
}

// The inclusive scan of an 8 x 48 row-major tensor along `dim`, in double (the tile is float32; the
// comparison allows its rounding).
std::vector<double> expectedScan(const std::vector<double>& a, int dim, bool reverse) {
    std::vector<double> out = a;
    const int rows = 8, cols = 48;
    const int lines = dim == 1 ? rows : cols, length = dim == 1 ? cols : rows;
    for (int l = 0; l < lines; ++l) {
        double sum = 0;
        for (int k = 0; k < length; ++k) {
            int pos = reverse ? length - 1 - k : k;
            int index = dim == 1 ? l * cols + pos : pos * cols + l;
            sum += a[size_t(index)];
            out[size_t(index)] = sum;
        }
    }
    return out;
}

TEST(Cumsum, PrefixSumsAlongEitherDimensionForwardAndReverseInSharedAndFragments) {
    for (const char* scope : {"shared", "fragment"})
        for (int dim : {0, 1})
            for (bool reverse : {false, true}) {
                SCOPED_TRACE(std::string(scope) + " dim=" + std::to_string(dim) +
                             (reverse ? " reverse" : ""));
                PlannedProgram p = planProgram("scan.py", scanProgram(scope, dim, reverse));
                ASSERT_TRUE(p.ok()) << p.planErrors << p.result->formattedDiagnostics();
                const ir::PrimFunc& f = p.result->module->funcs.at(0);
                DiagnosticEngine diags;
                std::vector<HostTensor> params = allocateParams(f, {}, 7, diags);
                ASSERT_EQ(params.size(), 2u);
                ASSERT_TRUE(executePrimFunc(*p.result->module, f, params, {}, diags));
                std::vector<double> want = expectedScan(params[0].data.values(), dim, reverse);
                for (size_t i = 0; i < want.size(); ++i)
                    ASSERT_NEAR(params[1].data[i], want[i], 1e-4 * (1 + std::abs(want[i])))
                        << "element " << i;
                std::string errors;
                codegen::CudaKernelSource code = generateFor(p, errors);
                ASSERT_TRUE(code.ok) << errors;
                // Fewer lines than threads: 8 lines (dim 1) are replicated over the threads and only replica
                // 0 writes (the scan reads what it writes); 48 lines (dim 0) go to the first 48 threads.
                EXPECT_NE(code.units[0].source.find(dim == 1 ? "if (rep == 0) tile" : "if (tx < 48)"),
                          std::string::npos)
                    << code.units[0].source;
                // The copies in and out of the 48-wide tile (12 vectors a row) are vectors or plain loops,
                // not ownership-guarded loops over the whole tile.
                EXPECT_EQ(code.units[0].source.find("ownership-guarded"), std::string::npos)
                    << code.units[0].source;
                // Scans use no architecture-specific instructions: every variant compiles for sm_80, and
                // one per scope for sm_90a as well.
                if (!gpu::nvrtcVersionString().empty()) {
                    EXPECT_EQ(nvrtcFailures(code, "sm_80"), "");
                    if (dim == 1 && reverse) {
                        EXPECT_EQ(nvrtcFailures(code, "sm_90a"), "");
                    }
                }
            }
}

TEST(Cumsum, ARegionOrAnOutOfRangeDimIsADiagnostic) {
    std::string region = scanProgram("shared", 1, false);
    region.replace(region.find("T.cumsum(tile,"), 14, "T.cumsum(tile[0:4, :],");
    PlannedProgram p = planProgram("scan.py", region);
    EXPECT_NE(p.result->formattedDiagnostics().find("unsupported-construct"), std::string::npos)
        << p.result->formattedDiagnostics();
    PlannedProgram q = planProgram("scan.py", scanProgram("shared", 2, false));
    EXPECT_NE(q.result->formattedDiagnostics().find("index-out-of-range"), std::string::npos)
        << q.result->formattedDiagnostics();
}

} // namespace
