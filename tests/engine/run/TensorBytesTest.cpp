// Host tensors <-> the bytes kernels see: float16/bfloat16 bit patterns, round trips (no GPU needed).
#include "engine/run/GpuRun.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace tb;

TEST(TensorBytes, Float16BitPatterns) {
    HostTensor t("x", ir::DType::Float16, {6});
    t.data = {1.0, -2.0, 0.5, 65504.0, std::ldexp(1.0, -24), -0.0};
    std::vector<char> b = run::tensorBytes(t);
    ASSERT_EQ(b.size(), 12u);
    uint16_t bits[6];
    std::memcpy(bits, b.data(), 12);
    EXPECT_EQ(bits[0], 0x3c00);
    EXPECT_EQ(bits[1], 0xc000);
    EXPECT_EQ(bits[2], 0x3800);
    EXPECT_EQ(bits[3], 0x7bff);
    EXPECT_EQ(bits[4], 0x0001);
    EXPECT_EQ(bits[5], 0x8000);
    HostTensor back("x", ir::DType::Float16, {6});
    ASSERT_TRUE(run::tensorFromBytes(back, b));
    for (size_t i = 0; i < 6; ++i)
        EXPECT_EQ(back.data[i], t.data[i]);
}

TEST(TensorBytes, RandomTensorsRoundTrip) {
    for (ir::DType type : {ir::DType::Float16, ir::DType::BFloat16, ir::DType::Float32, ir::DType::Int32,
                           ir::DType::Int8, ir::DType::Float64}) {
        HostTensor t("a", type, {7, 9});
        fillRandom(t, 42);
        HostTensor back("a", type, {7, 9});
        ASSERT_TRUE(run::tensorFromBytes(back, run::tensorBytes(t)));
        EXPECT_EQ(back.data, t.data) << ir::dtypeName(type);
    }
}

TEST(TensorBytes, ShortPayloadIsRejected) {
    HostTensor t("a", ir::DType::Float32, {4});
    EXPECT_FALSE(run::tensorFromBytes(t, std::vector<char>(8)));
}
