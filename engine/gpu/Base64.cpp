// Base64 encoder and strict decoder: a corrupted payload must be rejected, not silently shortened. Buffer
// contents of several MB travel this way, so both loops write through a pointer into storage sized once
// (no per-character append) and handle all whole groups before the padded last one.
#include "engine/gpu/Base64.h"

#include <array>
#include <cstdint>

namespace tb::gpu {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> makeDecodeTable() {
    std::array<int8_t, 256> table{};
    for (auto& entry : table)
        entry = -1;
    for (int i = 0; i < 64; ++i)
        table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return table;
}

constexpr std::array<int8_t, 256> kDecode = makeDecodeTable();

int decodeChar(char c) {
    return kDecode[static_cast<unsigned char>(c)];
}

} // namespace

void appendBase64(std::string& out, const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    size_t start = out.size();
    out.resize(start + (size + 2) / 3 * 4);
    char* dst = out.data() + start;
    size_t i = 0;
    for (; i + 3 <= size; i += 3, dst += 4) {
        uint32_t v = (uint32_t(bytes[i]) << 16) | (uint32_t(bytes[i + 1]) << 8) | bytes[i + 2];
        dst[0] = kAlphabet[(v >> 18) & 63];
        dst[1] = kAlphabet[(v >> 12) & 63];
        dst[2] = kAlphabet[(v >> 6) & 63];
        dst[3] = kAlphabet[v & 63];
    }
    if (size - i == 0)
        return;
    uint32_t v = uint32_t(bytes[i]) << 16;
    if (size - i == 2)
        v |= uint32_t(bytes[i + 1]) << 8;
    dst[0] = kAlphabet[(v >> 18) & 63];
    dst[1] = kAlphabet[(v >> 12) & 63];
    dst[2] = size - i == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    dst[3] = '=';
}

std::string encodeBase64(const void* data, size_t size) {
    std::string out;
    appendBase64(out, data, size);
    return out;
}

bool decodeBase64(std::string_view text, std::vector<char>& out) {
    out.clear();
    if (text.size() % 4 != 0)
        return false;
    if (text.empty())
        return true;
    // Only the last group may be padded: "x===" is never valid, "xy==" gives one byte, "xyz=" two.
    std::string_view last = text.substr(text.size() - 4);
    int pad = last[3] != '=' ? 0 : last[2] == '=' ? 2 : 1;
    out.resize(text.size() / 4 * 3 - static_cast<size_t>(pad));
    char* dst = out.data();
    const char* src = text.data();
    const char* whole = src + text.size() - (pad ? 4 : 0); // the groups without padding
    for (; src != whole; src += 4, dst += 3) {
        int a = decodeChar(src[0]), b = decodeChar(src[1]), c = decodeChar(src[2]), d = decodeChar(src[3]);
        if ((a | b | c | d) < 0) { // a character outside the alphabet ('=' included)
            out.clear();
            return false;
        }
        uint32_t v = (uint32_t(a) << 18) | (uint32_t(b) << 12) | (uint32_t(c) << 6) | uint32_t(d);
        dst[0] = static_cast<char>(v >> 16);
        dst[1] = static_cast<char>(v >> 8);
        dst[2] = static_cast<char>(v);
    }
    if (pad) {
        int a = decodeChar(src[0]), b = decodeChar(src[1]), c = pad == 1 ? decodeChar(src[2]) : 0;
        if ((a | b | c) < 0) {
            out.clear();
            return false;
        }
        uint32_t v = (uint32_t(a) << 18) | (uint32_t(b) << 12) | (uint32_t(c) << 6);
        dst[0] = static_cast<char>(v >> 16);
        if (pad == 1)
            dst[1] = static_cast<char>(v >> 8);
    }
    return true;
}

std::optional<std::vector<char>> decodeBase64(std::string_view text) {
    std::vector<char> out;
    if (!decodeBase64(text, out))
        return std::nullopt;
    return out;
}

} // namespace tb::gpu
