// The CUDA dock's Compare: the generated CUDA of GEMM against num_stages=2 (a literal in the sample, edited
// as the stage sweep edits it) in a diff window with the stage count and the arena's offsets changed;
// a name the program does not have says so; malformed settings are refused before any compile.
#include "AppTestSupport.h"
#include "app/CodeDiffPanel.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>
#include <gtest/gtest.h>

namespace tb::app {

namespace {

struct CodeDiffFixture : test::WindowFixture {
    CodeDiffPanel* panel() { return window->codeViews().diffPanel(); }
    void openGemm() {
        ASSERT_TRUE(window->openSample("gemm_relu"));
        ASSERT_TRUE(window->compileNow());
        ASSERT_TRUE(window->codeViews().waitForIdle(20000));
    }
    bool waitForDiff() {
        for (int i = 0; i < 400 && panel()->busy(); ++i)
            QTest::qWait(25);
        return !panel()->busy();
    }
};

} // namespace

TEST_F(CodeDiffFixture, GemmAgainstTwoStagesShowsTheStageCountAndTheArena) {
    openGemm();
    panel()->settingsEdit()->setText("num_stages=2");
    QTest::mouseClick(panel()->compareButton(), Qt::LeftButton);
    ASSERT_TRUE(waitForDiff());
    ASSERT_NE(panel()->window(), nullptr);
    EXPECT_TRUE(panel()->window()->isVisible());
    const QString diff = panel()->window()->view()->toPlainText();
    EXPECT_TRUE(diff.contains("-    // T.Pipelined(num_stages=3)")) << diff.left(2000).toStdString();
    EXPECT_TRUE(diff.contains("+    // T.Pipelined(num_stages=2)"));
    EXPECT_TRUE(diff.contains("+++ ") && diff.contains("num_stages=2"));
    EXPECT_TRUE(diff.contains("98304 bytes of dynamic shared memory")); // 3 stages, the removed line
    EXPECT_TRUE(diff.contains("65536 bytes of dynamic shared memory")); // 2 stages, the added line
    EXPECT_TRUE(panel()->window()->summary()->text().contains("removed"));
    EXPECT_FALSE(panel()->window()->view()->extraSelections().isEmpty()); // the colour bands
    EXPECT_TRUE(panel()->status()->text().startsWith("-"));
}

TEST_F(CodeDiffFixture, ANameTheProgramDoesNotHaveIsNamedInTheAnswer) {
    openGemm();
    panel()->compareWith("no_such_parameter=4");
    ASSERT_TRUE(waitForDiff());
    EXPECT_TRUE(panel()->status()->text().contains("no_such_parameter"))
        << panel()->status()->text().toStdString();
    EXPECT_TRUE(panel()->window()->view()->toPlainText().isEmpty());
}

TEST_F(CodeDiffFixture, MalformedSettingsAreRefusedBeforeCompiling) {
    openGemm();
    panel()->compareWith("num_stages");
    EXPECT_FALSE(panel()->busy());
    EXPECT_TRUE(panel()->status()->text().contains("NAME=VALUE"));
    QString error;
    auto pairs = CodeDiffPanel::parseSettings(" num_stages = 2, block_N=64 ", error);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].first, "num_stages");
    EXPECT_EQ(pairs[0].second, "2");
    EXPECT_EQ(pairs[1].first, "block_N");
    EXPECT_TRUE(error.isEmpty());
}

} // namespace tb::app
