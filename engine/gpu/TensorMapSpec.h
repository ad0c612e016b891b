// A TMA tensor map as the runner builds it (cuTensorMapEncodeTiled's parameters, named and typed), its
// protocol text (`tensormap <name> <buffer> dtype= dims= strides= box= ...`, docs/runner-protocol.md), and
// the driver's documented rules for it, checked the same way by the client (before sending), the fake
// runner (CI) and the real runner (before the driver, whose own answer is only CUDA_ERROR_INVALID_VALUE).
//
// Conventions are the driver's: dimension 0 is the innermost (contiguous) one; `strides` are the byte
// strides of dimensions 1..rank-1 (dimension 0 is contiguous); `box` is the shared-memory tile in elements.
// For a row-major R x C matrix: dims = {C, R}, strides = {C * elementBytes}, box = {tileCols, tileRows}.
#pragma once

#include "engine/gpu/RunnerProtocol.h"

#include <array>
#include <cstdint>
#include <string>

namespace tb::gpu {

enum class TensorMapDtype { U8, U16, U32, I32, U64, I64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz };
enum class TensorMapInterleave { None, B16, B32 };
enum class TensorMapSwizzle { None, B32, B64, B128 };
enum class TensorMapL2Promotion { None, B64, B128, B256 };
enum class TensorMapOobFill { Zero, Nan }; // NaN: CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA

struct TensorMapSpec {
    std::string buffer;       // the runner buffer the map addresses
    uint64_t offsetBytes = 0; // global address = the buffer's address + offset
    TensorMapDtype dtype = TensorMapDtype::F16;
    int rank = 2;                      // 1..5
    std::array<uint64_t, 5> dims{};    // elements, innermost first
    std::array<uint64_t, 4> strides{}; // bytes, of dims 1..rank-1
    std::array<uint32_t, 5> box{};     // elements, innermost first
    std::array<uint32_t, 5> elementStrides{1, 1, 1, 1, 1};
    TensorMapInterleave interleave = TensorMapInterleave::None;
    TensorMapSwizzle swizzle = TensorMapSwizzle::None;
    TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::B128;
    TensorMapOobFill oobFill = TensorMapOobFill::Zero;
};

// A rank-2 map of a row-major rows x cols matrix (row pitch `rowBytes`, usually cols * element bytes) read
// in boxRows x boxCols tiles.
TensorMapSpec tensorMap2d(const std::string& buffer, TensorMapDtype dtype, uint64_t rows, uint64_t cols,
                          uint64_t rowBytes, uint32_t boxRows, uint32_t boxCols,
                          TensorMapSwizzle swizzle = TensorMapSwizzle::None);

int tensorMapElementBytes(TensorMapDtype dtype);
bool isFloatTensorMapDtype(TensorMapDtype dtype);
// Protocol words: f16 bf16 f32 f32ftz tf32 tf32ftz f64 u8 i8 u16 i16 u32 i32 u64 i64 (i8/i16 as u8/u16:
// a tile copy does not care about signedness); none 16B 32B; none 32B 64B 128B; none 64B 128B 256B; zero nan.
const char* tensorMapDtypeName(TensorMapDtype dtype);
bool parseTensorMapDtype(const std::string& text, TensorMapDtype& out);

// Empty when the spec satisfies cuTensorMapEncodeTiled's documented requirements for a map at
// `globalAddress` (pass the buffer's address plus the offset; the client passes 0, the alignment of the
// buffer itself being the runner's), else what is wrong: "box[0] is 72 elements x 2 bytes = 144 bytes,
// more than the 128B swizzle span". `bufferBytes` (when nonzero) also rejects a map whose last element lies
// beyond the buffer, which the driver would not notice but the kernel would fault on.
std::string tensorMapProblem(const TensorMapSpec& spec, uint64_t globalAddress, uint64_t bufferBytes = 0);

// "tensormap <name> <buffer> dtype=f16 rank=2 dims=4096,4096 strides=8192 box=64,128 elem_strides=1,1
// interleave=none swizzle=128B l2=128B oob=zero offset=0"
std::string formatTensorMapRequest(const std::string& name, const TensorMapSpec& spec);
// From a parsed `tensormap` request; false with `error` (a bad-request message) on malformed text. The
// rules of tensorMapProblem are not applied here.
bool parseTensorMapRequest(const ProtocolLine& request, std::string& name, TensorMapSpec& spec,
                           std::string& error);

} // namespace tb::gpu
