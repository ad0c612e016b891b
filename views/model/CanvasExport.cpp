// The exported frame: a caption strip on top, the picture below it, the veil last so it covers the picture.
#include "views/model/CanvasExport.h"

#include "views/model/Color.h"
#include "views/model/SvgWriter.h"

#include <algorithm>

namespace tb::views {

namespace {

constexpr double kCaptionHeight = 22;
constexpr double kCaptionFont = 11;
constexpr double kCharWidth = 0.62 * kCaptionFont; // DejaVu Sans Mono's advance, to size the strip

} // namespace

std::string framedCanvasSvg(const std::string& picture, const std::string& caption,
                            const std::string& outOfDateReason) {
    double width = 0, height = 0;
    if (!SvgWriter::documentSize(picture, width, height))
        return picture;
    const double captionWidth = 12 + kCharWidth * double(caption.size());
    const double frameWidth = std::max(width, captionWidth);
    SvgWriter svg(frameWidth, height + kCaptionHeight);
    svg.beginGroup("backend-caption");
    svg.rect(0, 0, frameWidth, kCaptionHeight, Rgba{236, 236, 236, 255});
    svg.text(6, 15, caption, kCaptionFont);
    svg.endGroup();
    svg.embed(0, kCaptionHeight, picture);
    if (!outOfDateReason.empty()) {
        svg.beginGroup("out-of-date");
        svg.rect(0, kCaptionHeight, frameWidth, height, Rgba{255, 255, 255, 178});
        svg.rect(0, kCaptionHeight, frameWidth, 44, kOutOfDateBanner);
        svg.text(6, kCaptionHeight + 17, "out of date: the program has errors", kCaptionFont,
                 Rgba{0, 0, 0, 255}, "start", true);
        svg.text(6, kCaptionHeight + 35, outOfDateReason, kCaptionFont);
        svg.endGroup();
    }
    return svg.str();
}

} // namespace tb::views
