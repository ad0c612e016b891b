// The palette: deterministic, distinct neighbours, readable text.
#include "views/model/Color.h"

#include "views/model/SvgWriter.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace tb::views {

TEST(Color, CategoricalColorsAreDeterministicAndDistinct) {
    std::set<std::string> seen;
    for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(categoricalColor(i, 32), categoricalColor(i + 32, 32));
        seen.insert(categoricalColor(i, 32).hex());
    }
    EXPECT_EQ(seen.size(), 32u);
    for (int i = 0; i + 1 < 128; ++i)
        EXPECT_NE(categoricalColor(i, 128), categoricalColor(i + 1, 128));
    EXPECT_EQ(bankColor(3), categoricalColor(3, 32));
}

TEST(Color, TextColourContrastsWithBackground) {
    EXPECT_EQ(textColorOn({255, 255, 255, 255}), (Rgba{0, 0, 0, 255}));
    EXPECT_EQ(textColorOn({0, 0, 40, 255}), (Rgba{255, 255, 255, 255}));
    EXPECT_EQ((Rgba{255, 0, 16, 255}).hex(), "#ff0010");
    EXPECT_EQ(mix({0, 0, 0, 255}, {200, 100, 50, 255}, 0.5), (Rgba{100, 50, 25, 255}));
}

TEST(SvgWriter, NumbersAreLocaleFreeAndShort) {
    EXPECT_EQ(SvgWriter::number(3), "3");
    EXPECT_EQ(SvgWriter::number(3.5), "3.5");
    EXPECT_EQ(SvgWriter::number(3.25), "3.25");
    EXPECT_EQ(SvgWriter::number(-0.5), "-0.5");
    EXPECT_EQ(SvgWriter::escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    SvgWriter svg(10, 20);
    svg.rect(1, 2, 3, 4, {255, 0, 0, 255});
    EXPECT_NE(svg.str().find("<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"#ff0000\"/>"),
              std::string::npos);
    EXPECT_EQ(svg.str().rfind("</svg>\n"), svg.str().size() - 7);
}

} // namespace tb::views
