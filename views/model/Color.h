// Colours shared by every view model: a categorical palette for threads, warps and buffers, a palette of
// 32 bank colours, and the text colour that stays readable on a cell. The same colours go to the ImGui
// canvases and the SVG export, so a slide matches the screen.
#pragma once

#include <cstdint>
#include <string>

namespace tb::views {

struct Rgba {
    uint8_t r = 0, g = 0, b = 0, a = 255;

    // "#rrggbb" (alpha is written separately in SVG as fill-opacity).
    std::string hex() const;
    // ImGui's packed colour (IM_COL32 layout: a<<24 | b<<16 | g<<8 | r).
    uint32_t packed() const { return uint32_t(a) << 24 | uint32_t(b) << 16 | uint32_t(g) << 8 | r; }
    bool operator==(const Rgba&) const = default;
};

// Colour `index` of `count` categories: hues spread around the wheel, alternating lightness so that
// neighbours (thread t and t+1) stay distinguishable. Deterministic; index is taken modulo count.
Rgba categoricalColor(int64_t index, int64_t count);
// The colour of bank 0..31 (categoricalColor(bank, 32)).
Rgba bankColor(int bank);
// Black or white, whichever contrasts more with `background`.
Rgba textColorOn(const Rgba& background);
// A linear blend: t = 0 gives a, t = 1 gives b.
Rgba mix(const Rgba& a, const Rgba& b, double t);

// Fixed colours with a meaning.
inline constexpr Rgba kConflictRed{214, 39, 40, 255};
inline constexpr Rgba kOkGreen{44, 160, 44, 255};
inline constexpr Rgba kNeutralGrey{160, 160, 160, 255};
inline constexpr Rgba kLimitLine{220, 50, 32, 255};
// The out-of-date banner, on canvases and in their exports (tests look for it in the framebuffer).
inline constexpr Rgba kOutOfDateBanner{230, 160, 20, 255};

} // namespace tb::views
