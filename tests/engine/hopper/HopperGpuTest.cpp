// On an sm_90a GPU (skipped elsewhere with "no GPU: <reason>" or "needs CC 9.0"): the TMA copy kernel moves
// a ragged matrix exactly, and the warp-specialized wgmma GEMM (fp16 and bf16) matches a CPU reference of
// ReLU(A @ B) at a ragged and a square shape, with every output element written and nothing past the end.
// The kernels run through tilebench-runner with tensor maps built by the `tensormap` request.
#include "HopperTestSupport.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/TensorMapSpec.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <iomanip>
#include <string>
#include <vector>

namespace tb::hopper {
namespace {

using namespace std::chrono_literals;

#define REQUIRE_SM90A()                                                                                      \
    gpu::GpuAvailability availability_ = gpu::probeGpus();                                                   \
    if (!availability_.available)                                                                            \
        GTEST_SKIP() << "no GPU: " << availability_.reason;                                                  \
    if (!TILEBENCH_HAS_NVRTC)                                                                                \
        GTEST_SKIP() << "no NVRTC in this build";                                                            \
    if (availability_.devices.front().nativeArch() != "sm_90a")                                              \
    GTEST_SKIP() << "needs a CC 9.0 GPU (sm_90a), this one is " << availability_.devices.front().nativeArch()

std::string runnerPath() {
    if (const char* env = std::getenv("TILEBENCH_RUNNER"); env && *env)
        return env;
#ifdef TILEBENCH_RUNNER_PATH
    return TILEBENCH_RUNNER_PATH;
#else
    return gpu::defaultRunnerPath();
#endif
}

gpu::RunnerOptions gpuRunner() {
    gpu::RunnerOptions o;
    o.executable = runnerPath();
    o.watchdog = 60000ms;
    return o;
}

// fp32 -> fp16 / bf16 bits, round to nearest even (finite, normal-range inputs), and back.
uint16_t toF16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int exp = int((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp <= 0) { // subnormal half
        if (exp < -10)
            return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        int shift = 14 - exp;
        uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1)))
            ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = (uint32_t(exp) << 10) | (mant >> 13), rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
        ++half;
    return static_cast<uint16_t>(sign | half);
}
float fromF16(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
    float v = exp == 0 ? std::ldexp(float(mant), -24) : std::ldexp(float(mant | 0x400u), int(exp) - 25);
    return sign ? -v : v;
}
uint16_t toBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}
float fromBf16(uint16_t b) {
    uint32_t x = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

std::vector<uint16_t> randomMatrix(size_t count, uint32_t seed, bool bf16) {
    std::vector<uint16_t> v(count);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
    for (uint16_t& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float f = float((s >> 40) & 0xffffff) / float(1 << 24) * 2.0f - 1.0f;
        x = bf16 ? toBf16(f) : toF16(f);
    }
    return v;
}

template <typename T>
gpu::RunnerReply writeVector(gpu::RunnerClient& c, const std::string& name, const std::vector<T>& v,
                             size_t extraBytes = 0) {
    gpu::RunnerReply a = c.request("alloc " + name + " " + std::to_string(v.size() * sizeof(T) + extraBytes));
    if (!a.ok())
        return a;
    return c.writeBuffer(name, v.data(), v.size() * sizeof(T));
}

TEST(HopperGpu, TmaCopyMovesARaggedMatrixExactly) {
    REQUIRE_SM90A();
    std::string error;
    profile::CudaBenchSpec spec = test::kernelSpec("copy_tma.cu", {}, &error);
    ASSERT_FALSE(spec.source.empty()) << error;
    gpu::CudaCompileResult compiled = test::compileSm90a(spec.source, spec.kernel);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    const uint64_t rows = 1000, cols = 520; // neither a multiple of the 64 x 32 box
    std::vector<float> src(rows * cols), sentinel(rows * cols, -12345.0f);
    for (size_t i = 0; i < src.size(); ++i)
        src[i] = float(i) * 0.25f - 7.0f;
    gpu::RunnerClient client(gpuRunner());
    ASSERT_TRUE(client.loadCubin("copy", "sm_90a", spec.kernel, compiled.cubin).ok());
    ASSERT_TRUE(writeVector(client, "src", src).ok());
    ASSERT_TRUE(writeVector(client, "dst", sentinel).ok());
    for (const char* name : {"src", "dst"}) {
        gpu::RunnerReply m = client.createTensorMap(
            std::string("t") + name, gpu::tensorMap2d(name, gpu::TensorMapDtype::F32, rows, cols, cols * 4,
                                                      64, 32, gpu::TensorMapSwizzle::B128));
        ASSERT_TRUE(m.ok()) << m.code << " " << m.message;
    }
    gpu::RunnerReply launch =
        client.request("launch copy grid=" + std::to_string((cols + 31) / 32) + "," +
                       std::to_string((rows + 63) / 64) + " block=32 args=tmap:tsrc,tmap:tdst");
    ASSERT_TRUE(launch.ok()) << launch.code << " " << launch.message;
    std::vector<char> raw;
    ASSERT_TRUE(client.readBuffer("dst", raw).ok());
    ASSERT_EQ(raw.size(), src.size() * 4);
    std::vector<float> dst(src.size());
    std::memcpy(dst.data(), raw.data(), raw.size());
    int mismatches = 0;
    for (size_t i = 0; i < src.size(); ++i)
        if (dst[i] != src[i] && ++mismatches <= 5)
            ADD_FAILURE() << "dst[" << i / cols << "][" << i % cols << "] = " << dst[i] << ", expected "
                          << src[i];
    EXPECT_EQ(mismatches, 0);
}

void checkGemm(const std::string& dtype, int m, int n, int k, int cluster = 1) {
    SCOPED_TRACE(dtype + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 " cluster " + std::to_string(cluster));
    const bool bf16 = dtype == "bf16";
    std::string error;
    profile::CudaBenchSpec spec = test::kernelSpec(
        "gemm_tma_wgmma.cu", {{"DTYPE", dtype}, {"CLUSTER", std::to_string(cluster)}}, &error);
    ASSERT_FALSE(spec.source.empty()) << error;
    gpu::CudaCompileResult compiled = test::compileSm90a(spec.source, spec.kernel);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    std::vector<uint16_t> a = randomMatrix(size_t(m) * k, 1, bf16), b = randomMatrix(size_t(k) * n, 2, bf16);
    const size_t guard = 4096;                                  // bytes after C that must stay untouched
    std::vector<uint16_t> c(size_t(m) * n + guard / 2, 0x7e00); // a NaN the kernel never writes (ReLU >= 0)
    gpu::RunnerClient client(gpuRunner());
    ASSERT_TRUE(client.loadCubin("gemm", "sm_90a", spec.kernel, compiled.cubin).ok());
    ASSERT_TRUE(writeVector(client, "a", a).ok());
    ASSERT_TRUE(writeVector(client, "b", b).ok());
    ASSERT_TRUE(writeVector(client, "c", c).ok());
    const auto type = bf16 ? gpu::TensorMapDtype::BF16 : gpu::TensorMapDtype::F16;
    ASSERT_TRUE(client
                    .createTensorMap("tA", gpu::tensorMap2d("a", type, m, k, uint64_t(k) * 2, 128, 64,
                                                            gpu::TensorMapSwizzle::B128))
                    .ok());
    ASSERT_TRUE(client
                    .createTensorMap("tB", gpu::tensorMap2d("b", type, k, n, uint64_t(n) * 2, 64, 64,
                                                            gpu::TensorMapSwizzle::B128))
                    .ok());
    // Persistent: at most one block per SM; with clusters, an even count (pairs of tile rows).
    const int units = ((m + 128 * cluster - 1) / (128 * cluster)) * ((n + 255) / 256);
    gpu::RunnerReply launch =
        client.request("launch gemm grid=" + std::to_string(std::min(units, 132 / cluster) * cluster) +
                       " block=384 smem=" + std::to_string(4 * 49152 + 2048) +
                       " args=tmap:tA,tmap:tB,buf:c,i32:" + std::to_string(m) + ",i32:" + std::to_string(n) +
                       ",i32:" + std::to_string(k));
    ASSERT_TRUE(launch.ok()) << launch.code << " " << launch.message;
    std::vector<char> raw;
    ASSERT_TRUE(client.readBuffer("c", raw).ok());
    ASSERT_EQ(raw.size(), c.size() * 2);
    std::vector<uint16_t> got(c.size());
    std::memcpy(got.data(), raw.data(), raw.size());

    std::vector<float> af(a.size()), bf(b.size());
    for (size_t i = 0; i < a.size(); ++i)
        af[i] = bf16 ? fromBf16(a[i]) : fromF16(a[i]);
    for (size_t i = 0; i < b.size(); ++i)
        bf[i] = bf16 ? fromBf16(b[i]) : fromF16(b[i]);
    const double absTol = bf16 ? 0.06 : 0.02, relTol = bf16 ? 0.01 : 0.002;
    int bad = 0;
    std::vector<double> row(static_cast<size_t>(n));
    for (int i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int kk = 0; kk < k; ++kk) {
            const double x = af[size_t(i) * k + kk];
            const float* brow = &bf[size_t(kk) * n];
            for (int j = 0; j < n; ++j)
                row[size_t(j)] += x * brow[j];
        }
        for (int j = 0; j < n; ++j) {
            const double ref = std::max(row[size_t(j)], 0.0);
            const uint16_t bits = got[size_t(i) * n + j];
            const double v = bf16 ? fromBf16(bits) : fromF16(bits);
            if (!(std::fabs(v - ref) <= absTol + relTol * std::fabs(ref)) && ++bad <= 8)
                ADD_FAILURE() << "c[" << i << "][" << j << "] = " << v << " (0x" << std::hex << bits
                              << std::dec << "), expected " << ref;
        }
    }
    EXPECT_EQ(bad, 0);
    for (size_t g = size_t(m) * n; g < got.size(); ++g)
        if (got[g] != 0x7e00) {
            ADD_FAILURE() << "the kernel wrote past C at element " << g;
            break;
        }
}

TEST(HopperGpu, Fp16GemmMatchesTheCpuReference) {
    REQUIRE_SM90A();
    checkGemm("f16", 1000, 1112, 776); // ragged in every dimension (N, K multiples of 8 for TMA)
    checkGemm("f16", 1024, 1024, 1024);
}

TEST(HopperGpu, ClusterGemmMatchesTheCpuReference) {
    REQUIRE_SM90A();
    checkGemm("f16", 1100, 1112, 776, 2); // 9 tile rows: the last cluster's second block is all padding
    checkGemm("f16", 1024, 1024, 1024, 2);
    checkGemm("bf16", 1000, 1112, 776, 2);
}

TEST(HopperGpu, Bf16GemmMatchesTheCpuReference) {
    REQUIRE_SM90A();
    checkGemm("bf16", 1000, 1112, 776);
    checkGemm("bf16", 1024, 1024, 1024);
}

} // namespace
} // namespace tb::hopper
