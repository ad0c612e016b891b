// TMA tensor-map parameters, their protocol text and the driver's rules (see TensorMapSpec.h).
#include "engine/gpu/TensorMapSpec.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tb::gpu {

namespace {

struct DtypeName {
    const char* name;
    TensorMapDtype dtype;
};

constexpr DtypeName kDtypes[] = {
    {"u8", TensorMapDtype::U8},         {"i8", TensorMapDtype::U8},     {"u16", TensorMapDtype::U16},
    {"i16", TensorMapDtype::U16},       {"u32", TensorMapDtype::U32},   {"i32", TensorMapDtype::I32},
    {"u64", TensorMapDtype::U64},       {"i64", TensorMapDtype::I64},   {"f16", TensorMapDtype::F16},
    {"f32", TensorMapDtype::F32},       {"f64", TensorMapDtype::F64},   {"bf16", TensorMapDtype::BF16},
    {"f32ftz", TensorMapDtype::F32Ftz}, {"tf32", TensorMapDtype::TF32}, {"tf32ftz", TensorMapDtype::TF32Ftz},
};

const char* interleaveName(TensorMapInterleave i) {
    switch (i) {
    case TensorMapInterleave::None:
        return "none";
    case TensorMapInterleave::B16:
        return "16B";
    case TensorMapInterleave::B32:
        return "32B";
    }
    return "none";
}

const char* swizzleName(TensorMapSwizzle s) {
    switch (s) {
    case TensorMapSwizzle::None:
        return "none";
    case TensorMapSwizzle::B32:
        return "32B";
    case TensorMapSwizzle::B64:
        return "64B";
    case TensorMapSwizzle::B128:
        return "128B";
    }
    return "none";
}

const char* l2Name(TensorMapL2Promotion p) {
    switch (p) {
    case TensorMapL2Promotion::None:
        return "none";
    case TensorMapL2Promotion::B64:
        return "64B";
    case TensorMapL2Promotion::B128:
        return "128B";
    case TensorMapL2Promotion::B256:
        return "256B";
    }
    return "none";
}

int swizzleSpanBytes(TensorMapSwizzle s) {
    return s == TensorMapSwizzle::B32    ? 32
           : s == TensorMapSwizzle::B64  ? 64
           : s == TensorMapSwizzle::B128 ? 128
                                         : 0;
}

template <typename T, size_t N>
std::string joined(const std::array<T, N>& values, int count) {
    std::string s;
    for (int i = 0; i < count; ++i)
        s += (i ? "," : "") + std::to_string(values[static_cast<size_t>(i)]);
    return s;
}

// "4096,4096" -> values; false when a part is not a decimal number or the count differs from `count`.
template <typename T, size_t N>
bool parseList(const std::string& text, int count, uint64_t max, std::array<T, N>& out) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (static_cast<int>(parts.size()) != count || count > static_cast<int>(N))
        return false;
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        if (p.empty() || p.size() > 20)
            return false;
        unsigned __int128 v = 0;
        for (char c : p) {
            if (c < '0' || c > '9')
                return false;
            v = v * 10 + static_cast<unsigned>(c - '0');
        }
        if (v > max)
            return false;
        out[i] = static_cast<T>(v);
    }
    return true;
}

} // namespace

int tensorMapElementBytes(TensorMapDtype dtype) {
    switch (dtype) {
    case TensorMapDtype::U8:
        return 1;
    case TensorMapDtype::U16:
    case TensorMapDtype::F16:
    case TensorMapDtype::BF16:
        return 2;
    case TensorMapDtype::U32:
    case TensorMapDtype::I32:
    case TensorMapDtype::F32:
    case TensorMapDtype::F32Ftz:
    case TensorMapDtype::TF32:
    case TensorMapDtype::TF32Ftz:
        return 4;
    case TensorMapDtype::U64:
    case TensorMapDtype::I64:
    case TensorMapDtype::F64:
        return 8;
    }
    return 0;
}

bool isFloatTensorMapDtype(TensorMapDtype dtype) {
    switch (dtype) {
    case TensorMapDtype::F16:
    case TensorMapDtype::F32:
    case TensorMapDtype::F64:
    case TensorMapDtype::BF16:
    case TensorMapDtype::F32Ftz:
    case TensorMapDtype::TF32:
    case TensorMapDtype::TF32Ftz:
        return true;
    default:
        return false;
    }
}

const char* tensorMapDtypeName(TensorMapDtype dtype) {
    for (const DtypeName& d : kDtypes)
        if (d.dtype == dtype)
            return d.name;
    return "?";
}

bool parseTensorMapDtype(const std::string& text, TensorMapDtype& out) {
    for (const DtypeName& d : kDtypes)
        if (text == d.name) {
            out = d.dtype;
            return true;
        }
    return false;
}

TensorMapSpec tensorMap2d(const std::string& buffer, TensorMapDtype dtype, uint64_t rows, uint64_t cols,
                          uint64_t rowBytes, uint32_t boxRows, uint32_t boxCols, TensorMapSwizzle swizzle) {
    TensorMapSpec s;
    s.buffer = buffer;
    s.dtype = dtype;
    s.rank = 2;
    s.dims = {cols, rows, 0, 0, 0};
    s.strides = {rowBytes, 0, 0, 0};
    s.box = {boxCols, boxRows, 0, 0, 0};
    s.swizzle = swizzle;
    return s;
}

std::string tensorMapProblem(const TensorMapSpec& spec, uint64_t globalAddress, uint64_t bufferBytes) {
    const int rank = spec.rank;
    if (rank < 1 || rank > 5)
        return "rank " + std::to_string(rank) + " is not 1..5";
    if (spec.interleave != TensorMapInterleave::None && rank < 3)
        return "an interleaved map (interleave=" + std::string(interleaveName(spec.interleave)) +
               ") needs rank 3..5, not " + std::to_string(rank);
    const uint64_t addressAlign = spec.interleave == TensorMapInterleave::B32 ? 32 : 16;
    if (globalAddress % addressAlign != 0)
        return "the global address 0x" +
               [&] {
                   char buf[32];
                   std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(globalAddress));
                   return std::string(buf);
               }() +
               " (buffer + offset " + std::to_string(spec.offsetBytes) + ") is not " +
               std::to_string(addressAlign) + "-byte aligned";
    for (int i = 0; i < rank; ++i) {
        uint64_t d = spec.dims[static_cast<size_t>(i)];
        if (d == 0 || d > (uint64_t(1) << 32))
            return "dims[" + std::to_string(i) + "] = " + std::to_string(d) + " is not 1..2^32";
    }
    const uint64_t strideAlign = spec.interleave == TensorMapInterleave::B32 ? 32 : 16;
    for (int i = 0; i + 1 < rank; ++i) {
        uint64_t s = spec.strides[static_cast<size_t>(i)];
        if (s % strideAlign != 0)
            return "strides[" + std::to_string(i) + "] = " + std::to_string(s) + " bytes (of dim " +
                   std::to_string(i + 1) + ") is not a multiple of " + std::to_string(strideAlign);
        if (s >= (uint64_t(1) << 40))
            return "strides[" + std::to_string(i) + "] = " + std::to_string(s) + " bytes is not below 2^40";
    }
    const int elem = tensorMapElementBytes(spec.dtype);
    for (int i = 0; i < rank; ++i) {
        uint32_t b = spec.box[static_cast<size_t>(i)];
        if (b == 0 || b > 256)
            return "box[" + std::to_string(i) + "] = " + std::to_string(b) + " is not 1..256";
    }
    const uint64_t innerBytes = uint64_t(spec.box[0]) * uint64_t(elem);
    if (spec.interleave == TensorMapInterleave::None && innerBytes % 16 != 0)
        return "box[0] is " + std::to_string(spec.box[0]) + " elements x " + std::to_string(elem) +
               " bytes = " + std::to_string(innerBytes) + " bytes, not a multiple of 16";
    for (int i = 0; i < rank; ++i) {
        uint32_t e = spec.elementStrides[static_cast<size_t>(i)];
        if (e == 0 || e > 8)
            return "elem_strides[" + std::to_string(i) + "] = " + std::to_string(e) + " is not 1..8";
    }
    if (spec.interleave == TensorMapInterleave::None && spec.swizzle != TensorMapSwizzle::None &&
        innerBytes > static_cast<uint64_t>(swizzleSpanBytes(spec.swizzle)))
        return "box[0] is " + std::to_string(spec.box[0]) + " elements x " + std::to_string(elem) +
               " bytes = " + std::to_string(innerBytes) + " bytes, more than the " +
               swizzleName(spec.swizzle) + " swizzle span";
    if (spec.interleave == TensorMapInterleave::B32 && spec.swizzle != TensorMapSwizzle::B32)
        return "interleave=32B needs swizzle=32B, not swizzle=" + std::string(swizzleName(spec.swizzle));
    if (spec.oobFill == TensorMapOobFill::Nan && !isFloatTensorMapDtype(spec.dtype))
        return "oob=nan needs a floating-point dtype, not " + std::string(tensorMapDtypeName(spec.dtype));
    if (bufferBytes) {
        unsigned __int128 end = static_cast<unsigned __int128>(spec.offsetBytes) +
                                static_cast<unsigned __int128>(spec.dims[0]) * static_cast<unsigned>(elem);
        for (int i = 1; i < rank; ++i)
            end += static_cast<unsigned __int128>(spec.dims[static_cast<size_t>(i)] - 1) *
                   spec.strides[static_cast<size_t>(i - 1)];
        if (end > bufferBytes)
            return "the tensor reaches byte " +
                   (end > UINT64_MAX ? std::string("2^64 or more")
                                     : std::to_string(static_cast<uint64_t>(end))) +
                   " of buffer '" + spec.buffer + "', which has " + std::to_string(bufferBytes);
    }
    return {};
}

std::string formatTensorMapRequest(const std::string& name, const TensorMapSpec& spec) {
    return "tensormap " + escapeProtocolValue(name) + " " + escapeProtocolValue(spec.buffer) +
           " dtype=" + tensorMapDtypeName(spec.dtype) + " rank=" + std::to_string(spec.rank) +
           " dims=" + joined(spec.dims, spec.rank) + " strides=" + joined(spec.strides, spec.rank - 1) +
           " box=" + joined(spec.box, spec.rank) + " elem_strides=" + joined(spec.elementStrides, spec.rank) +
           " interleave=" + interleaveName(spec.interleave) + " swizzle=" + swizzleName(spec.swizzle) +
           " l2=" + l2Name(spec.l2Promotion) +
           " oob=" + (spec.oobFill == TensorMapOobFill::Nan ? "nan" : "zero") +
           " offset=" + std::to_string(spec.offsetBytes);
}

bool parseTensorMapRequest(const ProtocolLine& r, std::string& name, TensorMapSpec& spec,
                           std::string& error) {
    const std::string usage =
        "usage: tensormap <name> <buffer> dtype=<t> rank=<1..5> dims=d0,.. strides=s1,.. "
        "box=b0,.. [elem_strides=] [interleave=none|16B|32B] [swizzle=none|32B|64B|128B] "
        "[l2=none|64B|128B|256B] [oob=zero|nan] [offset=<bytes>]";
    if (r.words.size() != 2) {
        error = usage;
        return false;
    }
    TensorMapSpec s;
    name = r.words[0];
    s.buffer = r.words[1];
    if (!parseTensorMapDtype(r.field("dtype"), s.dtype)) {
        error = "dtype '" + r.field("dtype") +
                "' is not one of u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f32ftz tf32 "
                "tf32ftz f64";
        return false;
    }
    const std::string rankText = r.field("rank");
    if (rankText.size() != 1 || rankText[0] < '1' || rankText[0] > '5') {
        error = "rank=" + rankText + " is not 1..5";
        return false;
    }
    s.rank = rankText[0] - '0';
    auto list = [&](const char* key, int count, uint64_t max, auto& out, bool required) {
        if (!r.has(key)) {
            if (required)
                error = std::string(key) + "= is missing (" + std::to_string(count) + " values)";
            return !required;
        }
        if (count == 0 && r.field(key).empty())
            return true;
        if (!parseList(r.field(key), count, max, out)) {
            error = std::string(key) + "=" + r.field(key) + " is not " + std::to_string(count) +
                    " comma-separated whole numbers" +
                    (count == 0 ? " (rank 1 has no strides: leave it empty)" : "");
            return false;
        }
        return true;
    };
    if (!list("dims", s.rank, UINT64_MAX, s.dims, true) ||
        !list("strides", s.rank - 1, UINT64_MAX, s.strides, s.rank > 1) ||
        !list("box", s.rank, UINT32_MAX, s.box, true) ||
        !list("elem_strides", s.rank, UINT32_MAX, s.elementStrides, false))
        return false;
    const std::string interleave = r.field("interleave", "none"), swizzle = r.field("swizzle", "none"),
                      l2 = r.field("l2", "128B"), oob = r.field("oob", "zero");
    if (interleave == "none")
        s.interleave = TensorMapInterleave::None;
    else if (interleave == "16B")
        s.interleave = TensorMapInterleave::B16;
    else if (interleave == "32B")
        s.interleave = TensorMapInterleave::B32;
    else {
        error = "interleave=" + interleave + " is not none, 16B or 32B";
        return false;
    }
    if (swizzle == "none")
        s.swizzle = TensorMapSwizzle::None;
    else if (swizzle == "32B")
        s.swizzle = TensorMapSwizzle::B32;
    else if (swizzle == "64B")
        s.swizzle = TensorMapSwizzle::B64;
    else if (swizzle == "128B")
        s.swizzle = TensorMapSwizzle::B128;
    else {
        error = "swizzle=" + swizzle + " is not none, 32B, 64B or 128B";
        return false;
    }
    if (l2 == "none")
        s.l2Promotion = TensorMapL2Promotion::None;
    else if (l2 == "64B")
        s.l2Promotion = TensorMapL2Promotion::B64;
    else if (l2 == "128B")
        s.l2Promotion = TensorMapL2Promotion::B128;
    else if (l2 == "256B")
        s.l2Promotion = TensorMapL2Promotion::B256;
    else {
        error = "l2=" + l2 + " is not none, 64B, 128B or 256B";
        return false;
    }
    if (oob == "zero")
        s.oobFill = TensorMapOobFill::Zero;
    else if (oob == "nan")
        s.oobFill = TensorMapOobFill::Nan;
    else {
        error = "oob=" + oob + " is not zero or nan";
        return false;
    }
    std::array<uint64_t, 1> offset{0};
    if (r.has("offset") && !parseList(r.field("offset"), 1, UINT64_MAX, offset)) {
        error = "offset=" + r.field("offset") + " is not a byte count";
        return false;
    }
    s.offsetBytes = offset[0];
    spec = s;
    return true;
}

} // namespace tb::gpu
