// Nothing is lost: every path that replaces or closes a modified document (Open, Open Sample, Recent
// Files, New, a dropped file, quitting) asks "Save changes?"; Cancel keeps the edits and their autosave,
// Discard replaces the document, Save writes the file first. The real dialog is answered as a user would
// (a timer finds the modal QMessageBox and clicks the button), and the autosave is checked while the
// question is still open.
#include "AppTestSupport.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>
#include <gtest/gtest.h>
#include <memory>
#include <utility>

namespace tb::app {

namespace {

// Answers every "Save changes?" dialog that opens while it lives with `answer`, and records what the
// dialog said and what the recovery file held at that moment.
class DialogAnswerer {
public:
    DialogAnswerer(QMessageBox::StandardButton answer, QString recoveryDir)
        : m_answer(answer), m_recovery(std::move(recoveryDir)) {
        m_timer.setInterval(20);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || box->objectName() != "unsavedChangesDialog")
                return;
            texts << box->text();
            QString text, origin;
            recoveryWhileAsked << (m_recovery.load(text, origin) ? text : QString("<no autosave>"));
            box->button(m_answer)->click();
        });
        m_timer.start();
    }
    QStringList texts;
    QStringList recoveryWhileAsked;

private:
    QMessageBox::StandardButton m_answer;
    Recovery m_recovery;
    QTimer m_timer;
};

struct UnsavedFixture : test::WindowFixture {
    QTemporaryDir files;
    QString edited;
    // Opens the GEMM sample and types an edit; the document is modified and autosaved.
    void SetUp() override {
        test::WindowFixture::SetUp();
        if (HasFatalFailure())
            return;
        ASSERT_TRUE(window->openSample("gemm_relu"));
        edit();
    }
    void edit() {
        QTextCursor c = window->editor()->textCursor();
        c.movePosition(QTextCursor::End);
        window->editor()->setTextCursor(c);
        window->editor()->setFocus();
        QTest::keyClicks(window->editor(), "# my edit");
        edited = window->editor()->toPlainText();
        ASSERT_TRUE(edited.endsWith("# my edit"));
        ASSERT_TRUE(window->isModified());
        window->autosaveNow();
    }
    QString recoveryText() const {
        QString text, origin;
        return Recovery(recoveryDir.path()).load(text, origin) ? text : QString();
    }
    QString writeFile(const QString& name, const QString& text) {
        QString path = files.path() + "/" + name;
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text.toUtf8());
        return path;
    }
    // Cancel left everything as it was: the text, the modified mark and the autosave.
    void expectUnchanged() {
        EXPECT_EQ(window->editor()->toPlainText(), edited);
        EXPECT_TRUE(window->isModified());
        EXPECT_TRUE(window->windowTitle().contains("*"));
        EXPECT_EQ(recoveryText(), edited);
    }
    // What a drag from a file manager delivers: a drag enter (which picks the drop target), then the drop.
    static void dropOn(QWidget* target, const QMimeData& mime) {
        QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(target, &enter);
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(target, &drop);
    }
    QAction* menuAction(const QString& menuTitle, const QString& actionText) {
        for (QMenu* m : window->findChildren<QMenu*>())
            if (m->title() == menuTitle)
                for (QAction* a : m->actions())
                    if (a->text() == actionText)
                        return a;
        return nullptr;
    }
};

} // namespace

TEST_F(UnsavedFixture, OpenSampleAsksAndCancelKeepsTheEditsAndTheAutosave) {
    DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
    EXPECT_FALSE(window->openSample("softmax"));
    ASSERT_EQ(answer.texts.size(), 1);
    EXPECT_TRUE(answer.texts[0].startsWith("Save changes to ")) << answer.texts[0].toStdString();
    EXPECT_EQ(answer.recoveryWhileAsked[0], edited);
    expectUnchanged();
}

TEST_F(UnsavedFixture, DiscardReplacesTheDocumentAndOnlyThenDropsTheAutosave) {
    DialogAnswerer answer(QMessageBox::Discard, recoveryDir.path());
    ASSERT_TRUE(window->openSample("softmax"));
    ASSERT_EQ(answer.texts.size(), 1);
    EXPECT_EQ(answer.recoveryWhileAsked[0], edited); // still there while the user decided
    EXPECT_TRUE(window->editor()->toPlainText().contains("T.reduce_max")) << "the softmax sample";
    EXPECT_FALSE(window->isModified());
    EXPECT_FALSE(Recovery(recoveryDir.path()).exists());
}

TEST_F(UnsavedFixture, SaveWritesTheFileBeforeOpeningAnother) {
    QString mine = writeFile("mine.py", "x = 1\n");
    QString other = writeFile("other.py", "y = 2\n");
    {
        DialogAnswerer discard(QMessageBox::Discard, recoveryDir.path());
        ASSERT_TRUE(window->openFile(mine));
    }
    edit();
    DialogAnswerer answer(QMessageBox::Save, recoveryDir.path());
    ASSERT_TRUE(window->openFile(other));
    ASSERT_EQ(answer.texts.size(), 1);
    QFile f(mine);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(f.readAll()), edited);
    EXPECT_EQ(window->editor()->toPlainText(), "y = 2\n");
    EXPECT_FALSE(window->isModified());
}

TEST_F(UnsavedFixture, RecentFilesAsks) {
    QString recent = writeFile("recent.py", "z = 3\n");
    {
        DialogAnswerer discard(QMessageBox::Discard, recoveryDir.path());
        ASSERT_TRUE(window->openFile(recent)); // now in File > Recent Files
    }
    ASSERT_TRUE(window->openSample("gemm_relu"));
    edit();
    QAction* action = menuAction("Recent &Files", QFileInfo(recent).absoluteFilePath());
    ASSERT_NE(action, nullptr);
    DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
    action->trigger();
    EXPECT_EQ(answer.texts.size(), 1);
    expectUnchanged();
}

TEST_F(UnsavedFixture, NewAsks) {
    QAction* action = menuAction("&File", "&New");
    ASSERT_NE(action, nullptr);
    {
        DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
        action->trigger();
        EXPECT_EQ(answer.texts.size(), 1);
        expectUnchanged();
    }
    DialogAnswerer answer(QMessageBox::Discard, recoveryDir.path());
    action->trigger();
    EXPECT_EQ(answer.texts.size(), 1);
    EXPECT_TRUE(window->editor()->toPlainText().isEmpty());
    EXPECT_FALSE(window->isModified());
}

TEST_F(UnsavedFixture, DroppedFileAsksOnTheEditorAndOnTheWindow) {
    QString dropped = writeFile("dropped.py", "w = 4\n");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(dropped)});
    for (QWidget* target :
         {static_cast<QWidget*>(window->editor()->viewport()), static_cast<QWidget*>(window.get())}) {
        SCOPED_TRACE(target->objectName().toStdString());
        DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
        dropOn(target, mime);
        EXPECT_EQ(answer.texts.size(), 1);
        expectUnchanged(); // neither replaced nor the path pasted into the text
    }
    DialogAnswerer answer(QMessageBox::Discard, recoveryDir.path());
    dropOn(window->editor()->viewport(), mime);
    EXPECT_EQ(window->editor()->toPlainText(), "w = 4\n");
}

TEST_F(UnsavedFixture, QuitAsksAndCancelKeepsTheWindow) {
    DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
    EXPECT_FALSE(window->close());
    EXPECT_EQ(answer.texts.size(), 1);
    EXPECT_TRUE(window->isVisible());
    expectUnchanged();
}

TEST_F(UnsavedFixture, AnUnmodifiedDocumentIsReplacedWithoutAsking) {
    DialogAnswerer discard(QMessageBox::Discard, recoveryDir.path());
    ASSERT_TRUE(window->openSample("softmax"));
    DialogAnswerer answer(QMessageBox::Cancel, recoveryDir.path());
    ASSERT_TRUE(window->openSample("gemm_relu"));
    EXPECT_TRUE(answer.texts.isEmpty());
}

} // namespace tb::app
