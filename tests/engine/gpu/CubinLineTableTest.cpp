// The DWARF line table of a real NVRTC cubin (-lineinfo): each kernel's PCs map to its own source lines,
// named through the .rela.debug_line relocations. Damaged or line-less cubins give errors, never crashes.
#include "engine/gpu/CubinLineTable.h"

#include "engine/gpu/Nvrtc.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace tb::gpu {
namespace {

// Line numbers matter: kernel A on lines 1-8, kernel B on lines 9-16; the conflicting LDS is line 7 / 15.
const char* kTwoKernels =
    R"(extern "C" __global__ void transpose_conflict(const float* in, float* out, int n) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void transpose_padded(const float* in, float* out, int n) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
)";

gpu::CudaCompileResult compile(bool lineInfo) {
    gpu::CudaCompileOptions o;
    o.arch = "sm_90a";
    o.lineInfo = lineInfo;
    o.useCache = false;
    return gpu::compileCuda(kTwoKernels, "transpose_conflict", o);
}

TEST(CubinLineTable, MapsEachKernelToItsLines) {
    if (!TILEBENCH_HAS_NVRTC) {
        GTEST_SKIP() << "no NVRTC in this build";
    }
    auto c = compile(true);
    ASSERT_TRUE(c.ok) << c.log;
    CubinLineTable table;
    std::string error;
    ASSERT_TRUE(readCubinLineTable(c.cubin, table, error)) << error;
    ASSERT_EQ(table.functions.size(), 2u);
    ASSERT_TRUE(table.functions.count("transpose_conflict"));
    ASSERT_TRUE(table.functions.count("transpose_padded"));
    for (const auto& [fn, rows] : table.functions) {
        int lo = fn == "transpose_conflict" ? 1 : 9;
        std::set<int> lines;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (i) {
                EXPECT_LE(rows[i - 1].address, rows[i].address);
            }
            if (rows[i].line == 0)
                continue; // end of sequence
            EXPECT_GE(rows[i].line, lo) << fn;
            EXPECT_LE(rows[i].line, lo + 7) << fn;
            EXPECT_FALSE(rows[i].file.empty());
            lines.insert(rows[i].line);
        }
        EXPECT_TRUE(lines.count(lo + 6)) << fn << ": the shared-memory read line is missing";
        EXPECT_TRUE(lines.count(lo + 4)) << fn << ": the shared-memory write line is missing";
        EXPECT_EQ(rows.back().line, 0);
        EXPECT_GT(rows.back().address, 0u); // end of code
        // The first instruction belongs to the kernel's first lines, and past the end there is nothing.
        auto first = table.lineAt(fn, 0);
        ASSERT_TRUE(first);
        EXPECT_GE(*first, lo);
        EXPECT_FALSE(table.lineAt(fn, rows.back().address + 16));
    }
    EXPECT_FALSE(table.lineAt("no_such_kernel", 0));
}

TEST(CubinLineTable, CubinWithoutLineInfoSaysSo) {
    if (!TILEBENCH_HAS_NVRTC) {
        GTEST_SKIP() << "no NVRTC in this build";
    }
    auto c = compile(false);
    ASSERT_TRUE(c.ok) << c.log;
    CubinLineTable table;
    std::string error;
    EXPECT_FALSE(readCubinLineTable(c.cubin, table, error));
    EXPECT_NE(error.find("line info"), std::string::npos) << error;
}

TEST(CubinLineTable, DamagedInputNeverCrashes) {
    CubinLineTable table;
    std::string error;
    EXPECT_FALSE(readCubinLineTable({}, table, error));
    EXPECT_FALSE(readCubinLineTable(std::vector<char>(200, 'x'), table, error));
    EXPECT_NE(error.find("ELF64"), std::string::npos);
    if (!TILEBENCH_HAS_NVRTC)
        return;
    auto c = compile(true);
    ASSERT_TRUE(c.ok);
    // Every truncation and a sweep of single-byte corruptions: no crash, and either a table or an error.
    for (size_t cut = 0; cut < c.cubin.size(); cut += 97) {
        std::vector<char> part(c.cubin.begin(), c.cubin.begin() + static_cast<long>(cut));
        CubinLineTable t;
        std::string e;
        if (!readCubinLineTable(part, t, e)) {
            EXPECT_FALSE(e.empty());
        }
    }
    for (size_t i = 0; i < c.cubin.size(); i += 13) {
        std::vector<char> bad = c.cubin;
        bad[i] = static_cast<char>(bad[i] ^ 0x5a);
        CubinLineTable t;
        std::string e;
        if (!readCubinLineTable(bad, t, e)) {
            EXPECT_FALSE(e.empty());
        }
    }
}

} // namespace
} // namespace tb::gpu
