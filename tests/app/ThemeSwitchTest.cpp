// Switching the theme re-colours the editor; it is not an edit: an unmodified document stays unmodified
// (no "Save changes?" on the next open) and a modified one stays modified, with its undo history intact.
#include "AppTestSupport.h"

#include <QAction>
#include <QTest>
#include <QTextDocument>
#include <gtest/gtest.h>

namespace tb::app {

namespace {
struct ThemeFixture : test::WindowFixture {};
} // namespace

TEST_F(ThemeFixture, ThemeSwitchDoesNotModifyTheDocument) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_FALSE(window->isModified());
    QAction* dark = nullptr;
    for (QAction* a : window->findChildren<QAction*>())
        if (a->text() == "&Dark Theme")
            dark = a;
    ASSERT_NE(dark, nullptr);
    dark->trigger(); // light
    EXPECT_FALSE(window->darkTheme());
    EXPECT_FALSE(window->isModified());
    EXPECT_FALSE(window->editor()->document()->isModified());
    EXPECT_FALSE(window->windowTitle().contains("*"));
    dark->trigger(); // dark again
    EXPECT_FALSE(window->isModified());
    EXPECT_FALSE(window->editor()->document()->isUndoAvailable());

    // Compiled (diagnostics and highlights in place), then an edit undone back to the opened text.
    ASSERT_TRUE(window->compileNow());
    window->editor()->setFocus();
    QTest::keyClicks(window->editor(), "x");
    ASSERT_TRUE(window->isModified());
    QTest::keyClick(window->editor(), Qt::Key_Z, Qt::ControlModifier);
    ASSERT_FALSE(window->isModified());
    dark->trigger();
    EXPECT_FALSE(window->isModified());
    EXPECT_FALSE(window->windowTitle().contains("*"));
    dark->trigger();
    EXPECT_FALSE(window->isModified());

    // A real edit stays an edit across a theme switch.
    window->editor()->setFocus();
    QTest::keyClicks(window->editor(), "# note");
    ASSERT_TRUE(window->isModified());
    window->setDarkTheme(false);
    EXPECT_TRUE(window->isModified());
    EXPECT_TRUE(window->editor()->document()->isUndoAvailable());
}

} // namespace tb::app
