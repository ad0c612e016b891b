// A canvas exported as the user sees it: the view model's picture under the canvas' backend strip, and,
// while the picture no longer matches the program, the out-of-date veil and banner over it. The SVG a
// context menu saves must not claim more than the canvas on screen does.
#pragma once

#include <string>

namespace tb::views {

// `picture` is a view model's SVG document (SvgWriter); `caption` the backend strip's text
// (backendCaption); `outOfDateReason` empty while the picture is current.
std::string framedCanvasSvg(const std::string& picture, const std::string& caption,
                            const std::string& outOfDateReason);

} // namespace tb::views
