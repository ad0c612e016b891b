// TensorMapSpec: the driver's documented rules for cuTensorMapEncodeTiled, one rule per case with the
// message it gives, and the protocol text round trip (format -> parse gives the same map).
#include "engine/gpu/TensorMapSpec.h"

#include "engine/gpu/RunnerProtocol.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>

namespace tb::gpu {
namespace {

// A legal 4096 x 4096 f16 map read in 128 x 64 boxes with the 128B swizzle (a GEMM operand).
TensorMapSpec gemmOperand() {
    return tensorMap2d("a", TensorMapDtype::F16, 4096, 4096, 8192, 128, 64, TensorMapSwizzle::B128);
}

TEST(TensorMapSpec, LegalMapsPass) {
    EXPECT_EQ(tensorMapProblem(gemmOperand(), 0x7f0000000000ull, 4096ull * 8192), "");
    TensorMapSpec five = gemmOperand();
    five.rank = 5;
    five.dims = {64, 8, 4, 2, 3};
    five.strides = {128, 1024, 4096, 8192};
    five.box = {64, 8, 4, 2, 1};
    five.elementStrides = {1, 2, 1, 8, 1};
    EXPECT_EQ(tensorMapProblem(five, 0x1000), "");
}

TEST(TensorMapSpec, EachDocumentedRuleHasItsMessage) {
    auto problem = [](auto change, uint64_t address = 0x1000, uint64_t bufferBytes = 0) {
        TensorMapSpec s = gemmOperand();
        change(s);
        return tensorMapProblem(s, address, bufferBytes);
    };
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.rank = 6; }), "rank 6 is not 1..5");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.rank = 0; }), "rank 0 is not 1..5");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.interleave = TensorMapInterleave::B16; }),
              "an interleaved map (interleave=16B) needs rank 3..5, not 2");
    EXPECT_EQ(problem([](TensorMapSpec&) {}, 0x1008),
              "the global address 0x1008 (buffer + offset 0) is not 16-byte aligned");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.dims[1] = 0; }), "dims[1] = 0 is not 1..2^32");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.dims[0] = (uint64_t(1) << 32) + 1; }),
              "dims[0] = 4294967297 is not 1..2^32");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.strides[0] = 8200; }),
              "strides[0] = 8200 bytes (of dim 1) is not a multiple of 16");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.strides[0] = uint64_t(1) << 40; }),
              "strides[0] = 1099511627776 bytes is not below 2^40");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.box[1] = 257; }), "box[1] = 257 is not 1..256");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.box[0] = 0; }), "box[0] = 0 is not 1..256");
    EXPECT_EQ(problem([](TensorMapSpec& s) {
                  s.box[0] = 12;
                  s.swizzle = TensorMapSwizzle::None;
              }),
              "box[0] is 12 elements x 2 bytes = 24 bytes, not a multiple of 16");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.box[0] = 72; }),
              "box[0] is 72 elements x 2 bytes = 144 bytes, more than the 128B swizzle span");
    EXPECT_EQ(problem([](TensorMapSpec& s) {
                  s.box[0] = 64;
                  s.swizzle = TensorMapSwizzle::B64;
              }),
              "box[0] is 64 elements x 2 bytes = 128 bytes, more than the 64B swizzle span");
    EXPECT_EQ(problem([](TensorMapSpec& s) {
                  s.box[0] = 32;
                  s.swizzle = TensorMapSwizzle::B32;
              }),
              "box[0] is 32 elements x 2 bytes = 64 bytes, more than the 32B swizzle span");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.elementStrides[1] = 9; }), "elem_strides[1] = 9 is not 1..8");
    EXPECT_EQ(problem([](TensorMapSpec& s) { s.elementStrides[0] = 0; }), "elem_strides[0] = 0 is not 1..8");
    EXPECT_EQ(problem([](TensorMapSpec& s) {
                  s.dtype = TensorMapDtype::I32;
                  s.box[0] = 32;
                  s.oobFill = TensorMapOobFill::Nan;
              }),
              "oob=nan needs a floating-point dtype, not i32");
    EXPECT_EQ(problem([](TensorMapSpec&) {}, 0x1000, 4096ull * 8192 - 2),
              "the tensor reaches byte 33554432 of buffer 'a', which has 33554430");
}

TEST(TensorMapSpec, InterleavedRules) {
    TensorMapSpec s;
    s.buffer = "x";
    s.dtype = TensorMapDtype::F16;
    s.rank = 3;
    s.dims = {16, 32, 8};
    s.strides = {32, 1024};
    s.box = {16, 32, 1};
    s.interleave = TensorMapInterleave::B32;
    s.swizzle = TensorMapSwizzle::B32;
    EXPECT_EQ(tensorMapProblem(s, 0x1000), "");
    EXPECT_EQ(tensorMapProblem(s, 0x1010),
              "the global address 0x1010 (buffer + offset 0) is not 32-byte aligned");
    s.strides[1] = 1040;
    EXPECT_EQ(tensorMapProblem(s, 0x1000), "strides[1] = 1040 bytes (of dim 2) is not a multiple of 32");
    s.strides[1] = 1024;
    s.swizzle = TensorMapSwizzle::B128;
    EXPECT_EQ(tensorMapProblem(s, 0x1000), "interleave=32B needs swizzle=32B, not swizzle=128B");
    // With interleave the inner box need not be a multiple of 16 bytes, nor within a swizzle span.
    s.interleave = TensorMapInterleave::B16;
    s.box[0] = 100;
    EXPECT_EQ(tensorMapProblem(s, 0x1000), "");
}

TEST(TensorMapSpec, RequestTextRoundTrips) {
    TensorMapSpec s = gemmOperand();
    s.offsetBytes = 4096;
    s.l2Promotion = TensorMapL2Promotion::B256;
    s.oobFill = TensorMapOobFill::Nan;
    s.elementStrides = {1, 2, 1, 1, 1};
    std::string text = formatTensorMapRequest("t A", s);
    EXPECT_EQ(text,
              "tensormap t%20A a dtype=f16 rank=2 dims=4096,4096 strides=8192 box=64,128 elem_strides=1,2 "
              "interleave=none swizzle=128B l2=256B oob=nan offset=4096");
    std::string name, error;
    TensorMapSpec back;
    ASSERT_TRUE(parseTensorMapRequest(parseProtocolLine(text), name, back, error)) << error;
    EXPECT_EQ(name, "t A");
    EXPECT_EQ(formatTensorMapRequest(name, back), text);

    // Defaults: element strides 1, no interleave or swizzle, L2 128B, zero fill, offset 0; rank 1 has no
    // strides.
    ASSERT_TRUE(parseTensorMapRequest(parseProtocolLine("tensormap v buf dtype=bf16 rank=1 dims=100 box=64"),
                                      name, back, error))
        << error;
    EXPECT_EQ(formatTensorMapRequest(name, back),
              "tensormap v buf dtype=bf16 rank=1 dims=100 strides= box=64 "
              "elem_strides=1 interleave=none swizzle=none l2=128B oob=zero offset=0");
}

TEST(TensorMapSpec, MalformedRequestsSayWhat) {
    auto parseError = [](const std::string& line) {
        std::string name, error;
        TensorMapSpec s;
        EXPECT_FALSE(parseTensorMapRequest(parseProtocolLine(line), name, s, error)) << line;
        return error;
    };
    EXPECT_EQ(parseError("tensormap t a dtype=f8 rank=2 dims=1,1 strides=16 box=1,1"),
              "dtype 'f8' is not one of u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f32ftz tf32 tf32ftz f64");
    EXPECT_EQ(parseError("tensormap t a dtype=f16 rank=7 dims=1 box=1"), "rank=7 is not 1..5");
    EXPECT_EQ(parseError("tensormap t a dtype=f16 rank=2 dims=8,8,8 strides=16 box=8,8"),
              "dims=8,8,8 is not 2 comma-separated whole numbers");
    EXPECT_EQ(parseError("tensormap t a dtype=f16 rank=2 dims=8,8 box=8,8"),
              "strides= is missing (1 values)");
    EXPECT_EQ(parseError("tensormap t a dtype=f16 rank=2 dims=8,8 strides=16 box=8,x"),
              "box=8,x is not 2 comma-separated whole numbers");
    EXPECT_EQ(parseError("tensormap t a dtype=f16 rank=2 dims=8,8 strides=16 box=8,8 swizzle=256B"),
              "swizzle=256B is not none, 32B, 64B or 128B");
    EXPECT_NE(parseError("tensormap t dtype=f16 rank=2 dims=8,8 strides=16 box=8,8").find("usage: tensormap"),
              std::string::npos);
}

} // namespace
} // namespace tb::gpu
