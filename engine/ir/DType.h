// Element types of tile programs, spelled as TileLang spells them ("float16", "bfloat16", "float32",
// "int32", ...). Aliases that TileLang accepts ("float" = float32, "half" = float16, ...) are parsed too.
#pragma once

#include <optional>
#include <string_view>

namespace tb::ir {

enum class DType : unsigned char {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float8E4M3,
    Float8E5M2,
    Float16,
    BFloat16,
    Float32,
    Float64,
};

const char* dtypeName(DType type);
int dtypeBits(DType type);
inline int dtypeBytes(DType type) {
    return (dtypeBits(type) + 7) / 8;
}
bool isFloat(DType type);
bool isSignedInt(DType type);
bool isUnsignedInt(DType type);
inline bool isInteger(DType type) {
    return isSignedInt(type) || isUnsignedInt(type);
}
inline bool isFloat8(DType type) {
    return type == DType::Float8E4M3 || type == DType::Float8E5M2;
}
// "float16", "half", "float", "fp32", "torch.float16", ... -> DType.
std::optional<DType> parseDType(std::string_view name);

} // namespace tb::ir
