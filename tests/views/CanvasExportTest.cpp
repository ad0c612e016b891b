// A canvas' export carries what the canvas shows beside the picture: the backend caption, and the
// out-of-date banner while the picture is stale.
#include "views/model/CanvasExport.h"

#include "ViewTestSupport.h"
#include "views/model/BackendCaption.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/SvgWriter.h"

#include <gtest/gtest.h>
#include <string>

namespace tb::views {

TEST(CanvasExport, FramesThePictureUnderItsBackendCaption) {
    SvgWriter picture(300, 100);
    picture.rect(10, 10, 50, 20, kOkGreen);
    const std::string framed = framedCanvasSvg(picture.str(), "portable backend: mma.sync m16n8k16", "");
    double width = 0, height = 0;
    ASSERT_TRUE(SvgWriter::documentSize(framed, width, height));
    EXPECT_EQ(width, 300);
    EXPECT_GT(height, 100); // the caption strip sits above the picture
    EXPECT_NE(framed.find(">portable backend: mma.sync m16n8k16</text>"), std::string::npos);
    // The picture's own elements, moved below the strip, and one document (one root element).
    EXPECT_NE(framed.find("<g transform=\"translate(0 22)\">\n<rect x=\"10\" y=\"10\""), std::string::npos);
    EXPECT_EQ(framed.find("<svg", framed.find("<svg") + 1), std::string::npos);
    EXPECT_EQ(framed.find("out of date"), std::string::npos);
}

TEST(CanvasExport, AStalePictureCarriesTheBannerAndTheReason) {
    SvgWriter picture(200, 80);
    picture.text(5, 20, "A_shared");
    const std::string framed = framedCanvasSvg(picture.str(), "hopper backend (sm_90a): wgmma m64n128k16",
                                               "line 12: unknown name 'x'");
    const size_t pictureAt = framed.find(">A_shared</text>");
    const size_t bannerAt = framed.find(">out of date: the program has errors</text>");
    ASSERT_NE(pictureAt, std::string::npos);
    ASSERT_NE(bannerAt, std::string::npos);
    EXPECT_LT(pictureAt, bannerAt); // drawn after the picture, so it covers it
    EXPECT_NE(framed.find(">line 12: unknown name 'x'</text>"), std::string::npos);
    EXPECT_NE(framed.find(kOutOfDateBanner.hex()), std::string::npos);
}

TEST(CanvasExport, ALongCaptionWidensTheFrame) {
    SvgWriter picture(40, 40);
    const std::string caption(100, 'w');
    double width = 0, height = 0;
    ASSERT_TRUE(SvgWriter::documentSize(framedCanvasSvg(picture.str(), caption, ""), width, height));
    EXPECT_GT(width, 40 + 100 * 5);
}

TEST(CanvasExport, ARealViewKeepsItsContent) {
    auto a = test::analyzeSample("gemm_relu", Backend::Portable);
    ASSERT_TRUE(a && a->plan) << (a ? a->compile->formattedDiagnostics() : "");
    const std::string budget = budgetViewToSvg(buildBudgetView(*a->kernel(0), a->plan->target));
    const std::string caption = backendCaption(a->compile->backend, a->plan->target, *a->kernel(0));
    const std::string framed = framedCanvasSvg(budget, caption, "");
    // Every element of the view's body is in the export.
    const size_t body = budget.find(">\n", budget.find("<svg ")) + 2;
    const std::string inner = budget.substr(body, budget.rfind("</svg>") - body);
    EXPECT_NE(framed.find(inner), std::string::npos);
    EXPECT_NE(framed.find(caption), std::string::npos);
}

TEST(CanvasExport, TextThatIsNotAWritersDocumentPassesThrough) {
    EXPECT_EQ(framedCanvasSvg("not svg", "caption", "reason"), "not svg");
}

} // namespace tb::views
