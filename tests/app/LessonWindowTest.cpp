// Help > Lessons in the window: a lesson opens its exercise as an untitled copy, the Lesson dock explains it
// and names views that exist, the hint waits for its button, filling the gap and running it checks it on the
// CPU; and the data-movement dock pictures the GEMM's tiles.
#include "AppTestSupport.h"
#include "app/LessonPanel.h"
#include "engine/catalog/LessonCatalog.h"

#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QTest>
#include <QTextBrowser>
#include <gtest/gtest.h>
#include <set>
#include <string>

namespace tb::app {

namespace {
struct LessonWindowFixture : test::WindowFixture {};

std::set<std::string> dockTitles(const MainWindow& window) {
    std::set<std::string> titles;
    for (const QDockWidget* d : window.findChildren<QDockWidget*>())
        titles.insert(d->windowTitle().toStdString());
    return titles;
}
} // namespace

TEST_F(LessonWindowFixture, EveryLessonIsInTheHelpMenuAndNamesDocksThatExist) {
    const std::set<std::string> titles = dockTitles(*window);
    QMenu* lessonsMenu = nullptr;
    for (QAction* top : window->menuBar()->actions())
        if (top->menu() && top->text() == "&Help")
            for (QAction* a : top->menu()->actions())
                if (a->menu() && a->text() == "&Lessons")
                    lessonsMenu = a->menu();
    ASSERT_NE(lessonsMenu, nullptr);
    EXPECT_EQ(size_t(lessonsMenu->actions().size()), lessons().size());
    for (const Lesson& l : lessons())
        for (const LessonView& v : l.views)
            EXPECT_TRUE(titles.count(v.view))
                << "lesson " << l.number << " names a view with no dock: " << v.view;
}

TEST_F(LessonWindowFixture, ALessonOpensItsExerciseAndTheFilledGapRunsCorrect) {
    const Lesson* lesson = findLesson(2);
    ASSERT_NE(lesson, nullptr);
    ASSERT_TRUE(window->openLesson(2));
    EXPECT_TRUE(window->filePath().isEmpty());
    const QString text = window->editor()->toPlainText();
    EXPECT_TRUE(text.contains("# TODO (lesson 2)"));
    EXPECT_FALSE(text.contains(QString::fromStdString(lesson->gap)));
    QDockWidget* dock = window->dock("lessonDock");
    ASSERT_NE(dock, nullptr);
    EXPECT_TRUE(dock->isVisible());
    LessonPanel* panel = window->lessonPanel();
    EXPECT_EQ(panel->lessonNumber(), 2);
    EXPECT_TRUE(panel->text()->toPlainText().contains(QString::fromStdString(lesson->title)));
    EXPECT_TRUE(panel->text()->toPlainText().contains(QString::fromStdString(lesson->task)));
    EXPECT_FALSE(panel->hint()->isVisible());
    QTest::mouseClick(panel->hintButton(), Qt::LeftButton);
    EXPECT_TRUE(panel->hint()->isVisible());
    EXPECT_TRUE(panel->hint()->text().contains(QString::fromStdString(lesson->hint)));

    // The exercise as given runs wrong; with the learner's line written back it runs correct.
    ASSERT_TRUE(window->compileNow());
    window->runProgram();
    ASSERT_TRUE(window->waitForRun(60000));
    EXPECT_TRUE(window->runOutput()->toPlainText().contains("WRONG"))
        << window->runOutput()->toPlainText().toStdString();
    QString filled = text;
    const QString todo = "# TODO (lesson 2): " + QString::fromStdString(lesson->task);
    filled.replace(todo, QString::fromStdString(lesson->gap));
    window->editor()->setPlainText(filled);
    ASSERT_TRUE(window->compileNow());
    window->runProgram();
    ASSERT_TRUE(window->waitForRun(60000));
    EXPECT_TRUE(window->runOutput()->toPlainText().contains("correct"))
        << window->runOutput()->toPlainText().toStdString();
}

TEST_F(LessonWindowFixture, TheDataMovementDockPicturesTheGemm) {
    ASSERT_TRUE(window->openSample("gemm_relu"));
    ASSERT_TRUE(window->compileNow());
    ASSERT_NE(window->dock("movementDock"), nullptr);
    const views::DataMovementViewModel& m = window->canvases().movementModel();
    ASSERT_EQ(m.moves.size(), 4u);
    EXPECT_EQ(m.moves[0].to, "A_shared");
    EXPECT_EQ(m.moves[2].op, "gemm");
    ASSERT_EQ(m.pipelines.size(), 1u);
    EXPECT_EQ(m.pipelines[0].stages, 3);
}

} // namespace tb::app
