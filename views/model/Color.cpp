// Palette arithmetic: HSL -> RGB with hues on a golden-angle walk.
#include "views/model/Color.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tb::views {

namespace {

Rgba fromHsl(double h, double s, double l) {
    auto channel = [&](double n) {
        double k = std::fmod(n + h / 30.0, 12.0);
        double a = s * std::min(l, 1 - l);
        double v = l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
        return uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255));
    };
    return {channel(0), channel(8), channel(4), 255};
}

} // namespace

std::string Rgba::hex() const {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
    return buf;
}

Rgba categoricalColor(int64_t index, int64_t count) {
    if (count < 1)
        count = 1;
    int64_t i = ((index % count) + count) % count;
    // Spread hues evenly for small counts; a golden-angle walk keeps large counts from looking banded.
    double hue = count <= 12 ? 360.0 * double(i) / double(count) : std::fmod(137.508 * double(i), 360.0);
    double lightness = (i % 2 == 0) ? 0.62 : 0.48;
    return fromHsl(hue, 0.62, lightness);
}

Rgba bankColor(int bank) {
    return categoricalColor(bank, 32);
}

Rgba textColorOn(const Rgba& background) {
    double luma = 0.299 * background.r + 0.587 * background.g + 0.114 * background.b;
    return luma > 140 ? Rgba{0, 0, 0, 255} : Rgba{255, 255, 255, 255};
}

Rgba mix(const Rgba& a, const Rgba& b, double t) {
    auto lerp = [t](uint8_t x, uint8_t y) { return uint8_t(std::lround(x + (double(y) - x) * t)); };
    return {lerp(a.r, b.r), lerp(a.g, b.g), lerp(a.b, b.b), lerp(a.a, b.a)};
}

} // namespace tb::views
