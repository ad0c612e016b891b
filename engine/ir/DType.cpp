#include "engine/ir/DType.h"

#include <string>

namespace tb::ir {

const char* dtypeName(DType type) {
    switch (type) {
    case DType::Bool:
        return "bool";
    case DType::Int8:
        return "int8";
    case DType::Int16:
        return "int16";
    case DType::Int32:
        return "int32";
    case DType::Int64:
        return "int64";
    case DType::UInt8:
        return "uint8";
    case DType::UInt16:
        return "uint16";
    case DType::UInt32:
        return "uint32";
    case DType::UInt64:
        return "uint64";
    case DType::Float8E4M3:
        return "float8_e4m3";
    case DType::Float8E5M2:
        return "float8_e5m2";
    case DType::Float16:
        return "float16";
    case DType::BFloat16:
        return "bfloat16";
    case DType::Float32:
        return "float32";
    case DType::Float64:
        return "float64";
    }
    return "?";
}

int dtypeBits(DType type) {
    switch (type) {
    case DType::Bool:
        return 8;
    case DType::Int8:
    case DType::UInt8:
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return 8;
    case DType::Int16:
    case DType::UInt16:
    case DType::Float16:
    case DType::BFloat16:
        return 16;
    case DType::Int32:
    case DType::UInt32:
    case DType::Float32:
        return 32;
    case DType::Int64:
    case DType::UInt64:
    case DType::Float64:
        return 64;
    }
    return 32;
}

bool isFloat(DType type) {
    switch (type) {
    case DType::Float8E4M3:
    case DType::Float8E5M2:
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
        return true;
    default:
        return false;
    }
}

bool isSignedInt(DType type) {
    return type == DType::Int8 || type == DType::Int16 || type == DType::Int32 || type == DType::Int64;
}

bool isUnsignedInt(DType type) {
    return type == DType::UInt8 || type == DType::UInt16 || type == DType::UInt32 || type == DType::UInt64;
}

std::optional<DType> parseDType(std::string_view name) {
    if (name.starts_with("torch."))
        name.remove_prefix(6);
    struct Entry {
        std::string_view spelling;
        DType type;
    };
    static const Entry table[] = {
        {"bool", DType::Bool},
        {"int8", DType::Int8},
        {"int16", DType::Int16},
        {"int32", DType::Int32},
        {"int", DType::Int32},
        {"int64", DType::Int64},
        {"long", DType::Int64},
        {"uint8", DType::UInt8},
        {"uint16", DType::UInt16},
        {"uint32", DType::UInt32},
        {"uint64", DType::UInt64},
        {"float16", DType::Float16},
        {"half", DType::Float16},
        {"fp16", DType::Float16},
        {"bfloat16", DType::BFloat16},
        {"bf16", DType::BFloat16},
        {"float32", DType::Float32},
        {"float", DType::Float32},
        {"fp32", DType::Float32},
        {"float64", DType::Float64},
        {"double", DType::Float64},
        {"float8_e4m3", DType::Float8E4M3},
        {"float8_e4m3fn", DType::Float8E4M3},
        {"e4m3_float8", DType::Float8E4M3},
        {"float8_e5m2", DType::Float8E5M2},
        {"e5m2_float8", DType::Float8E5M2},
    };
    for (const Entry& e : table)
        if (e.spelling == name)
            return e.type;
    return std::nullopt;
}

} // namespace tb::ir
