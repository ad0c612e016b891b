// A minimal SVG 1.1 writer for the view models' export: rectangles, lines, text and groups, with
// numbers printed in a fixed, locale-free format so that the output is byte-stable for golden tests.
#pragma once

#include "views/model/Color.h"

#include <string>

namespace tb::views {

class SvgWriter {
public:
    SvgWriter(double width, double height);

    void rect(double x, double y, double w, double h, const Rgba& fill, const Rgba* stroke = nullptr,
              double strokeWidth = 1);
    void line(double x1, double y1, double x2, double y2, const Rgba& stroke, double width = 1,
              bool dashed = false);
    // anchor: "start", "middle" or "end"; text is XML-escaped.
    void text(double x, double y, const std::string& text, double size = 10,
              const Rgba& fill = {0, 0, 0, 255}, const char* anchor = "start", bool bold = false);
    void circle(double cx, double cy, double r, const Rgba& fill);
    void beginGroup(const std::string& id);
    void endGroup();
    // A <title> child: tooltips in browsers, and a searchable description of the element before it.
    void title(const std::string& text);
    // Another writer's finished document drawn with its origin at (x, y): its body, in a translated group.
    void embed(double x, double y, const std::string& document);

    // The finished document.
    std::string str() const;

    static std::string escape(const std::string& text);
    // The width and height of a document this writer made; false for any other text.
    static bool documentSize(const std::string& document, double& width, double& height);
    // Shortest fixed form with at most 2 decimals: 3, 3.5, 3.25.
    static std::string number(double value);

private:
    double m_width, m_height;
    std::string m_body;
};

} // namespace tb::views
