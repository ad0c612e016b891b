// SVG text generation. Numbers are formatted by hand so the locale never changes a golden file.
#include "views/model/SvgWriter.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tb::views {

SvgWriter::SvgWriter(double width, double height) : m_width(width), m_height(height) {}

std::string SvgWriter::number(double value) {
    long long hundredths = std::llround(value * 100);
    bool negative = hundredths < 0;
    if (negative)
        hundredths = -hundredths;
    std::string s = (negative ? "-" : "") + std::to_string(hundredths / 100);
    int frac = int(hundredths % 100);
    if (frac != 0) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%02d", frac);
        std::string f = buf;
        if (f.back() == '0')
            f.pop_back();
        s += "." + f;
    }
    return s;
}

std::string SvgWriter::escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

void SvgWriter::rect(double x, double y, double w, double h, const Rgba& fill, const Rgba* stroke,
                     double strokeWidth) {
    m_body += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(w) + "\" height=\"" +
              number(h) + "\" fill=\"" + fill.hex() + "\"";
    if (fill.a != 255)
        m_body += " fill-opacity=\"" + number(fill.a / 255.0) + "\"";
    if (stroke)
        m_body += " stroke=\"" + stroke->hex() + "\" stroke-width=\"" + number(strokeWidth) + "\"";
    m_body += "/>\n";
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const Rgba& stroke, double width,
                     bool dashed) {
    m_body += "<line x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) + "\" y2=\"" +
              number(y2) + "\" stroke=\"" + stroke.hex() + "\" stroke-width=\"" + number(width) + "\"";
    if (dashed)
        m_body += " stroke-dasharray=\"6 4\"";
    m_body += "/>\n";
}

void SvgWriter::text(double x, double y, const std::string& text, double size, const Rgba& fill,
                     const char* anchor, bool bold) {
    m_body += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"" + number(size) +
              "\" fill=\"" + fill.hex() + "\" text-anchor=\"" + anchor + "\"";
    if (bold)
        m_body += " font-weight=\"bold\"";
    m_body += ">" + escape(text) + "</text>\n";
}

void SvgWriter::circle(double cx, double cy, double r, const Rgba& fill) {
    m_body += "<circle cx=\"" + number(cx) + "\" cy=\"" + number(cy) + "\" r=\"" + number(r) + "\" fill=\"" +
              fill.hex() + "\"/>\n";
}

void SvgWriter::beginGroup(const std::string& id) {
    m_body += "<g id=\"" + escape(id) + "\">\n";
}
void SvgWriter::endGroup() {
    m_body += "</g>\n";
}
void SvgWriter::title(const std::string& text) {
    m_body += "<title>" + escape(text) + "</title>\n";
}

void SvgWriter::embed(double x, double y, const std::string& document) {
    const size_t root = document.find("<svg ");
    const size_t bodyStart = root == std::string::npos ? root : document.find(">\n", root);
    const size_t bodyEnd = document.rfind("</svg>");
    if (bodyStart == std::string::npos || bodyEnd == std::string::npos || bodyEnd < bodyStart + 2)
        return;
    m_body += "<g transform=\"translate(" + number(x) + " " + number(y) + ")\">\n";
    m_body.append(document, bodyStart + 2, bodyEnd - bodyStart - 2);
    m_body += "</g>\n";
}

bool SvgWriter::documentSize(const std::string& document, double& width, double& height) {
    const size_t root = document.find("<svg ");
    if (root == std::string::npos)
        return false;
    const auto attribute = [&](const char* name, double& value) {
        const std::string key = std::string(" ") + name + "=\"";
        const size_t at = document.find(key, root);
        if (at == std::string::npos)
            return false;
        // from_chars, not strtod: the app's locale may use a decimal comma.
        const char* first = document.data() + at + key.size();
        const char* last = document.data() + document.size();
        auto [end, error] = std::from_chars(first, last, value);
        return error == std::errc() && end != last && *end == '"';
    };
    return attribute("width", width) && attribute("height", height);
}

std::string SvgWriter::str() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
           number(m_width) + "\" height=\"" + number(m_height) + "\" viewBox=\"0 0 " + number(m_width) + " " +
           number(m_height) + "\" font-family=\"DejaVu Sans Mono, monospace\">\n" + m_body + "</svg>\n";
}

} // namespace tb::views
