// Rounding to every dtype (tables of edge cases checked against the IEEE definitions), deterministic
// random fill, and tolerance comparison of host tensors.
#include "engine/exec/FloatFormats.h"
#include "engine/exec/HostTensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

namespace tb {
namespace {

using ir::DType;

const double kInf = std::numeric_limits<double>::infinity();

struct RoundCase {
    double input;
    double expected;
};

void expectRounds(DType type, const std::vector<RoundCase>& cases) {
    for (const RoundCase& c : cases) {
        double got = roundToDType(c.input, type);
        EXPECT_EQ(got, c.expected) << ir::dtypeName(type) << " of " << c.input;
        // Rounding is idempotent and odd-symmetric.
        EXPECT_EQ(roundToDType(got, type), got) << ir::dtypeName(type) << " of " << c.input;
        if (ir::isFloat(type)) {
            EXPECT_EQ(roundToDType(-c.input, type), -c.expected) << ir::dtypeName(type) << " of " << -c.input;
        }
    }
}

// roundToFormat (bit operations) against roundToFormatByFrexp (the step-by-step spelling) on every
// format, over the special values, every binade boundary and ties, and a million random doubles of all
// magnitudes.
TEST(Numerics, FastRoundingAgreesWithTheFrexpSpelling) {
    std::vector<double> values = {0.0,
                                  -0.0,
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::denorm_min(),
                                  std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::min(),
                                  448.0,
                                  464.0,
                                  65504.0,
                                  65520.0,
                                  57344.0};
    for (int e = -160; e <= 140; ++e)
        for (double m :
             {1.0, 1.5, 1.0 + 0x1p-11, 1.0 + 0x1p-8, 1.0 + 0x1p-4, 1.0 + 0x1p-3, 1.0 + 0x1p-24, 1.75})
            values.push_back(std::ldexp(m, e));
    uint64_t state = 12345;
    for (int i = 0; i < 1000000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t bits = state;
        double v = 0;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isnan(v))
            values.push_back(v);
    }
    for (ir::DType type : {ir::DType::Float16, ir::DType::BFloat16, ir::DType::Float8E4M3,
                           ir::DType::Float8E5M2, ir::DType::Float32}) {
        FloatFormat format = *floatFormatOf(type);
        for (double v : values) {
            for (double x : {v, -v}) {
                double fast = roundToFormat(x, format), slow = roundToFormatByFrexp(x, format);
                ASSERT_TRUE(std::memcmp(&fast, &slow, sizeof fast) == 0)
                    << ir::dtypeName(type) << " of " << x << ": " << fast << " vs " << slow;
            }
        }
    }
}

TEST(Numerics, Float16Table) {
    expectRounds(DType::Float16,
                 {
                     {1.0, 1.0},
                     {65504.0, 65504.0},
                     {65519.0, 65504.0},
                     {65520.0, kInf}, // halfway between 65504 (odd) and 2^16: rounds up and overflows
                     {1e6, kInf},
                     {std::ldexp(1.0, -24), std::ldexp(1.0, -24)}, // smallest subnormal
                     {std::ldexp(1.0, -25), 0.0},                  // tie to even: 0
                     {std::ldexp(1.5, -25), std::ldexp(1.0, -24)},
                     {std::ldexp(2.5, -24), std::ldexp(2.0, -24)}, // subnormal tie to even
                     {std::ldexp(3.5, -24), std::ldexp(4.0, -24)},
                     {std::ldexp(1.0, -14), std::ldexp(1.0, -14)}, // smallest normal
                     {std::ldexp(1.0, -14) - std::ldexp(1.0, -25), std::ldexp(1.0, -14)},
                     {1.0 + std::ldexp(1.0, -11), 1.0},                           // tie to even
                     {1.0 + 3 * std::ldexp(1.0, -11), 1.0 + std::ldexp(1.0, -9)}, // tie up
                     {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), 1.0 + std::ldexp(1.0, -10)},
                     {0.1, 0.0999755859375},
                     {2049.0, 2048.0},
                     {2051.0, 2052.0},
                 });
    EXPECT_TRUE(std::isnan(roundToDType(std::nan(""), DType::Float16)));
    EXPECT_TRUE(std::signbit(roundToDType(-0.0, DType::Float16)));
    EXPECT_TRUE(std::signbit(roundToDType(-std::ldexp(1.0, -26), DType::Float16))); // underflow keeps sign
    EXPECT_EQ(roundToDType(kInf, DType::Float16), kInf);
}

TEST(Numerics, BFloat16Table) {
    const double maxBf16 = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
    expectRounds(DType::BFloat16,
                 {
                     {1.0 + std::ldexp(1.0, -8), 1.0},
                     {1.0 + 3 * std::ldexp(1.0, -8), 1.0 + std::ldexp(1.0, -6)},
                     {1.0 / 3.0, 0.333984375},
                     {maxBf16, maxBf16},
                     {maxBf16 + std::ldexp(1.0, 119), kInf}, // half an ulp above max: tie, odd
                     {static_cast<double>(std::numeric_limits<float>::max()), kInf},
                     {std::ldexp(1.0, -133), std::ldexp(1.0, -133)}, // smallest subnormal
                     {std::ldexp(1.0, -134), 0.0},
                     {257.0, 256.0},
                     {259.0, 260.0},
                 });
}

TEST(Numerics, Float32Table) {
    expectRounds(DType::Float32, {
                                     {1.0 + std::ldexp(1.0, -24), 1.0},
                                     {1.0 + 3 * std::ldexp(1.0, -24), 1.0 + std::ldexp(1.0, -22)},
                                     {0.1, static_cast<double>(0.1f)},
                                     {1e39, kInf},
                                     {std::ldexp(1.0, -149), std::ldexp(1.0, -149)},
                                     {std::ldexp(1.0, -150), 0.0},
                                 });
    EXPECT_EQ(roundToDType(0.1, DType::Float64), 0.1);
}

TEST(Numerics, Float8Tables) {
    // e4m3 (fn): no infinities, saturates at 448.
    expectRounds(DType::Float8E4M3, {
                                        {448.0, 448.0},
                                        {464.0, 448.0},
                                        {1000.0, 448.0},
                                        {kInf, 448.0},
                                        {0.3, 0.3125},
                                        {std::ldexp(1.0, -9), std::ldexp(1.0, -9)}, // smallest subnormal
                                        {std::ldexp(1.0, -10), 0.0},
                                        {std::ldexp(3.0, -10), std::ldexp(2.0, -9)},
                                        {17.0, 16.0}, // tie to even mantissa
                                        {19.0, 20.0},
                                    });
    expectRounds(DType::Float8E5M2, {
                                        {57344.0, 57344.0},
                                        {60000.0, 57344.0},
                                        {61440.0, kInf},
                                        {std::ldexp(1.0, -16), std::ldexp(1.0, -16)},
                                        {std::ldexp(1.0, -17), 0.0},
                                        {1.125, 1.0},
                                        {1.375, 1.5},
                                    });
    EXPECT_TRUE(std::isnan(roundToDType(std::nan(""), DType::Float8E4M3)));
    EXPECT_EQ(largestBelowOne(DType::Float8E4M3), 0.9375);
    EXPECT_EQ(largestBelowOne(DType::Float16), 1.0 - std::ldexp(1.0, -11));
}

TEST(Numerics, IntegerWrapAndBool) {
    EXPECT_EQ(roundToDType(130, DType::Int8), -126);
    EXPECT_EQ(roundToDType(-129, DType::Int8), 127);
    EXPECT_EQ(roundToDType(256, DType::UInt8), 0);
    EXPECT_EQ(roundToDType(-1, DType::UInt8), 255);
    EXPECT_EQ(roundToDType(65536 + 5, DType::Int16), 5);
    EXPECT_EQ(roundToDType(2147483648.0, DType::Int32), -2147483648.0);
    EXPECT_EQ(roundToDType(-1, DType::UInt32), 4294967295.0);
    EXPECT_EQ(roundToDType(3.7, DType::Int32), 3);
    EXPECT_EQ(roundToDType(-3.7, DType::Int32), -3);
    EXPECT_EQ(roundToDType(std::nan(""), DType::Int32), 0);
    EXPECT_EQ(roundToDType(0.5, DType::Bool), 1);
    EXPECT_EQ(roundToDType(0.0, DType::Bool), 0);
    EXPECT_EQ(roundToDType(-1, DType::UInt64), 18446744073709551616.0); // 2^64 - 1 as the nearest double
    EXPECT_EQ(wrapInteger(300, DType::UInt8), 44);
    EXPECT_EQ(wrapInteger(-2, DType::Bool), 1);
}

TEST(Numerics, ConvertValueSaturatesFloatToInt) {
    EXPECT_EQ(convertValue(300.0, DType::Float32, DType::Int8), 127);
    EXPECT_EQ(convertValue(-1e10, DType::Float32, DType::Int8), -128);
    EXPECT_EQ(convertValue(-5.0, DType::Float32, DType::UInt8), 0);
    EXPECT_EQ(convertValue(std::nan(""), DType::Float32, DType::Int32), 0);
    EXPECT_EQ(convertValue(-3.9, DType::Float16, DType::Int32), -3);
    EXPECT_EQ(convertValue(130, DType::Int32, DType::Int8), -126); // integer -> integer wraps
    EXPECT_EQ(convertValue(65520, DType::Int32, DType::Float16), kInf);
    EXPECT_EQ(convertValue(0.25, DType::Float32, DType::Bool), 1);
    EXPECT_EQ(convertValue(1e30, DType::Float32, DType::Int64), 9223372036854775807.0);
}

TEST(Numerics, FillRandomIsDeterministicAndInRange) {
    HostTensor a("A", DType::Float16, {64, 33});
    HostTensor b("A", DType::Float16, {64, 33});
    HostTensor c("B", DType::Float16, {64, 33});
    HostTensor d("A", DType::Float16, {64, 33});
    fillRandom(a, 42);
    fillRandom(b, 42);
    fillRandom(c, 42);
    fillRandom(d, 43);
    EXPECT_EQ(a.data, b.data);
    EXPECT_NE(a.data, c.data);
    EXPECT_NE(a.data, d.data);
    double sum = 0, lo = 1, hi = -1;
    for (double v : a.data) {
        EXPECT_GE(v, -1.0);
        EXPECT_LT(v, 1.0);
        EXPECT_EQ(roundToDType(v, DType::Float16), v);
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    EXPECT_LT(std::fabs(sum / static_cast<double>(a.data.size())), 0.1);
    EXPECT_LT(lo, -0.9);
    EXPECT_GT(hi, 0.9);

    // Pinned against the published SplitMix64 sequence: seeding with FNV-1a("X") makes the state 0,
    // whose first output is 0xE220A8397B1DCDAF.
    uint64_t fnv = 14695981039346656037ull;
    fnv = (fnv ^ static_cast<unsigned char>('X')) * 1099511628211ull;
    HostTensor pinned("X", DType::Float64, {1});
    fillRandom(pinned, fnv);
    EXPECT_EQ(pinned.data[0], 2.0 * std::ldexp(static_cast<double>(0xE220A8397B1DCDAFull >> 11), -53) - 1.0);

    HostTensor ints("I", DType::Int8, {2000});
    fillRandom(ints, 7);
    int64_t minSeen = 100, maxSeen = -100;
    for (double v : ints.data) {
        EXPECT_EQ(v, std::trunc(v));
        minSeen = std::min<int64_t>(minSeen, static_cast<int64_t>(v));
        maxSeen = std::max<int64_t>(maxSeen, static_cast<int64_t>(v));
    }
    EXPECT_EQ(minSeen, -8);
    EXPECT_EQ(maxSeen, 7);

    HostTensor e4m3("F8", DType::Float8E4M3, {4096});
    fillRandom(e4m3, 1);
    for (double v : e4m3.data) {
        EXPECT_LT(v, 1.0);
        EXPECT_GE(v, -1.0);
    }
}

TEST(Numerics, CompareTensors) {
    HostTensor expected("E", DType::Float64, {2, 3}); // holds 5.01 as it is
    expected.data = {1, 2, 3, 4, 5, 6};
    HostTensor actual = expected;
    EXPECT_TRUE(compareTensors(actual, expected, 0, 0).ok());

    actual.data[4] = 5.01; // index [1, 1]
    ComparisonResult loose = compareTensors(actual, expected, 0, 1e-2);
    EXPECT_TRUE(loose.ok());
    EXPECT_NEAR(loose.maxAbsError, 0.01, 1e-12);
    EXPECT_NEAR(loose.maxRelError, 0.002, 1e-12);

    ComparisonResult tight = compareTensors(actual, expected, 1e-3, 1e-3);
    EXPECT_FALSE(tight.ok());
    EXPECT_EQ(tight.mismatches, 1);
    EXPECT_EQ(tight.firstMismatch, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(tight.expectedAtMismatch, 5);
    EXPECT_EQ(tight.actualAtMismatch, 5.01);

    HostTensor nanExpected = expected;
    nanExpected.data[0] = std::nan("");
    HostTensor nanActual = nanExpected;
    EXPECT_TRUE(compareTensors(nanActual, nanExpected, 0, 0).ok());
    nanActual.data[0] = 1;
    EXPECT_EQ(compareTensors(nanActual, nanExpected, 10, 10).mismatches, 1);

    HostTensor infExpected = expected;
    infExpected.data[5] = kInf;
    HostTensor infActual = infExpected;
    EXPECT_TRUE(compareTensors(infActual, infExpected, 0, 0).ok());
    infActual.data[5] = -kInf;
    ComparisonResult infResult = compareTensors(infActual, infExpected, 1, 1);
    EXPECT_EQ(infResult.mismatches, 1);
    EXPECT_EQ(infResult.firstMismatch, (std::vector<int64_t>{1, 2}));

    HostTensor other("O", DType::Float64, {3, 2});
    EXPECT_TRUE(compareTensors(other, expected, 1, 1).shapeMismatch);
    EXPECT_FALSE(compareTensors(other, expected, 1, 1).ok());
}

// The bytes the GPU stores: every one of the 256 codes decodes to a value that encodes back to it (NaNs to
// the canonical NaN), and encoding rounds like roundToFormat (e4m3 saturates, e5m2 overflows to inf).
TEST(Numerics, Float8BytesRoundTrip) {
    for (ir::DType type : {ir::DType::Float8E4M3, ir::DType::Float8E5M2}) {
        const bool e4m3 = type == ir::DType::Float8E4M3;
        for (int code = 0; code < 256; ++code) {
            const double v = float8Value(uint8_t(code), type);
            if (std::isnan(v)) {
                EXPECT_EQ(float8Bits(v, type) & 0x7F, e4m3 ? 0x7F : 0x7E) << code;
                continue;
            }
            EXPECT_EQ(float8Bits(v, type), code) << "code " << code << " value " << v;
            EXPECT_EQ(v, e4m3 ? roundToFloat8E4M3(v) : roundToFloat8E5M2(v)) << code;
        }
    }
    EXPECT_EQ(float8Value(float8Bits(1e6, ir::DType::Float8E4M3), ir::DType::Float8E4M3), 448.0);
    EXPECT_TRUE(std::isinf(float8Value(float8Bits(1e6, ir::DType::Float8E5M2), ir::DType::Float8E5M2)));
    EXPECT_EQ(float8Value(float8Bits(std::ldexp(1.0, -9), ir::DType::Float8E4M3), ir::DType::Float8E4M3),
              std::ldexp(1.0, -9)); // the smallest subnormal
    EXPECT_EQ(float8Bits(0.3, ir::DType::Float8E4M3),
              float8Bits(roundToFloat8E4M3(0.3), ir::DType::Float8E4M3));
}

// float16 and bfloat16 bits, as host tensors store them: every code decodes to a value that encodes back to
// it, and encoding any double gives the bits of roundToFormat's result (ties, subnormals, the carry into
// the next binade, overflow to inf, signed zeros), checked over doubles spread across every binade.
TEST(Numerics, HalfAndBFloat16BitsRoundLikeRoundToFormat) {
    for (uint32_t code = 0; code < 65536; ++code) {
        const double h = float16Value(uint16_t(code)), b = bfloat16Value(uint16_t(code));
        if (std::isnan(h))
            EXPECT_EQ(float16Bits(h) & 0x7fff, 0x7e00) << code;
        else
            EXPECT_EQ(float16Bits(h), code) << "half code " << code;
        if (std::isnan(b))
            EXPECT_EQ(bfloat16Bits(b) & 0x7fff, 0x7fc0) << code;
        else
            EXPECT_EQ(bfloat16Bits(b), code) << "bfloat16 code " << code;
    }
    auto sameDouble = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    uint64_t state = 12345;
    for (int i = 0; i < 200000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        // A random mantissa in a binade from 2^-30 to 2^17, and the exact ties between neighbouring halves.
        const int binade = int(state >> 58) % 48 - 30;
        double v = std::ldexp(1.0 + double(state >> 12 & 0xfffffffffull) * 0x1p-36, binade);
        if (i % 4 == 0)
            v = std::ldexp(std::floor(v * 0x1p24) + 0.5, -24); // a tie at the subnormal spacing
        if (i % 2)
            v = -v;
        ASSERT_TRUE(sameDouble(float16Value(float16Bits(v)), roundToFloat16(v))) << v;
        ASSERT_TRUE(sameDouble(bfloat16Value(bfloat16Bits(v)), roundToBFloat16(v))) << v;
    }
    EXPECT_EQ(float16Bits(65519.99), 0x7bff);
    EXPECT_EQ(float16Bits(65520.0), 0x7c00); // the tie above the largest half rounds to inf
    EXPECT_EQ(float16Bits(-0.0), 0x8000);
    EXPECT_EQ(float16Bits(std::ldexp(1.0, -25)), 0x0000); // tie to even: 0
    EXPECT_EQ(float16Bits(std::ldexp(1.5, -25)), 0x0001); // above the tie
    EXPECT_EQ(float16Bits(std::ldexp(1.0, -14) - std::ldexp(1.0, -26)),
              0x0400); // carry to the smallest normal
}

// Host tensors read and write halves a row at a time, on x86 with the F16C conversions (a write rounds to
// odd on the way through float): the same bits as float16Bits and float16Value for every half and for
// doubles spread over every binade, ties and specials included.
TEST(Numerics, TensorRowsOfHalvesAreEncodedLikeFloat16Bits) {
    std::vector<double> values;
    for (uint32_t code = 0; code < 65536; ++code)
        values.push_back(float16Value(uint16_t(code)));
    uint64_t state = 99;
    for (int i = 0; i < 200000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const int binade = int(state >> 58) % 50 - 32;
        double v = std::ldexp(1.0 + double(state >> 12 & 0xfffffffffull) * 0x1p-36, binade);
        if (i % 3 == 0) // a tie at the spacing of the binade's halves or of the subnormals
            v = std::ldexp(std::floor(std::ldexp(v, 10 - std::max(binade, -14))) + 0.5,
                           std::max(binade, -14) - 10);
        values.push_back(i % 2 ? -v : v);
    }
    for (double special : {65519.99, 65520.0, 1e6, 1e300, 1e-300, 0x1p-25, 0x1.8p-25, 0x1p-14 - 0x1p-26,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), -0.0})
        values.push_back(special);
    HostTensor t("h", DType::Float16, {int64_t(values.size())});
    t.data.write(0, values);
    std::vector<double> back(values.size());
    t.data.read(0, back);
    for (size_t i = 0; i < values.size(); ++i) {
        uint16_t stored = 0;
        std::memcpy(&stored, t.data.bytes() + 2 * i, 2);
        if (std::isnan(values[i])) {
            EXPECT_EQ(stored & 0x7c00, 0x7c00) << i;
            EXPECT_NE(stored & 0x3ff, 0) << i;
            EXPECT_TRUE(std::isnan(back[i])) << i;
            continue;
        }
        ASSERT_EQ(stored, float16Bits(values[i])) << "write of " << values[i];
        const double decoded = float16Value(stored);
        ASSERT_EQ(std::memcmp(&back[i], &decoded, sizeof decoded), 0) << "read of code " << stored;
    }
}

} // namespace
} // namespace tb
