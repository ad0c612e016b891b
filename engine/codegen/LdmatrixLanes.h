// Which (row, col) of an mma operand tile each lane hands to ldmatrix, written once for both of its uses:
// with numbers, to solve the addressing of every thread, and with C text, to emit the lane's offset (or the
// per-load formula when the addressing cannot be solved). The two can therefore never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace tb::codegen {

// An integer expression as C text. Operands of * / % that are themselves operations get parentheses; those
// of + need none (nothing here binds looser than +).
struct CText {
    std::string text;
    bool compound = false;

    static CText var(std::string name) { return {std::move(name), false}; }
};

namespace ctext_detail {
inline std::string operand(const CText& t) {
    return t.compound ? "(" + t.text + ")" : t.text;
}
inline CText binary(const CText& a, const char* op, const CText& b) {
    return {operand(a) + op + operand(b), true};
}
inline CText number(int64_t v) {
    return {std::to_string(v), false};
}
} // namespace ctext_detail

inline CText operator+(const CText& a, const CText& b) {
    return {a.text + " + " + b.text, true};
}
inline CText operator*(const CText& a, int64_t b) {
    return ctext_detail::binary(a, " * ", ctext_detail::number(b));
}
inline CText operator*(int64_t a, const CText& b) {
    return ctext_detail::binary(ctext_detail::number(a), " * ", b);
}
inline CText operator/(const CText& a, int64_t b) {
    return ctext_detail::binary(a, " / ", ctext_detail::number(b));
}
inline CText operator%(const CText& a, int64_t b) {
    return ctext_detail::binary(a, " % ", ctext_detail::number(b));
}

// `chunk` is the elements of one 16-byte matrix row: 8 for 16-bit operands, 16 for 8-bit ones. ldmatrix
// moves 8x8 matrices of 16-bit elements; an 8-bit operand stored K-major is read as 16-bit pairs of k, which
// is the register map of mma m16n8k32 (GemmFragments.h), so only the K-direction offsets scale. (MN-major
// 8-bit operands would need a byte transpose ldmatrix does not do; the warp partition refuses them.)

// Operand A (m16 x k16 atom at m0, k0, k32 for 8-bit; ldmatrix.x4): (row, col) in the region's last two
// dimensions, which are (m, k), or (k, m) when A is transposed.
template <typename V>
std::pair<V, V> ldmatrixLaneA(bool transposed, const V& m0, const V& k0, const V& lane, int64_t chunk = 8) {
    if (!transposed)
        return {m0 + lane % 16, k0 + (lane / 16) * chunk};
    return {k0 + 8 * (lane / 16) + lane % 8, m0 + 8 * ((lane % 16) / 8)};
}

// Operand B (k16 x n16 atom with ldmatrix.x4, k16 x n8 with .x2, at n0, k0; k32 for 8-bit): (row, col) in the
// region's last two dimensions, which are (k, n), or (n, k) when B is transposed. With .x2 lanes 16..31 give
// no address.
template <typename V>
std::pair<V, V> ldmatrixLaneB(bool transposed, bool x4, const V& n0, const V& k0, const V& lane,
                              int64_t chunk = 8) {
    if (!transposed)
        return {k0 + lane % 16, x4 ? n0 + (lane / 16) * 8 : n0};
    if (x4)
        return {n0 + 8 * (lane / 16) + lane % 8, k0 + chunk * ((lane % 16) / 8)};
    return {n0 + lane % 8, k0 + chunk * ((lane / 8) % 2)};
}

} // namespace tb::codegen
