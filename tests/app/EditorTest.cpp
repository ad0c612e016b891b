// The editor on its own (no GL): diagnostics underline and markers, next-diagnostic, auto-indent,
// T.* completion, bracket highlight.
#include "app/CodeEditor.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QTest>
#include <QTextBlock>
#include <gtest/gtest.h>
#include <vector>

namespace tb::app {

TEST(CodeEditor, DiagnosticsUnderlineAndNavigate) {
    CodeEditor editor;
    editor.setPlainText("a = 1\nb = T.copy(x)\nc = 3\n");
    EditorDiagnostic d;
    d.line = d.endLine = 2;
    d.column = 5;
    d.endColumn = 11;
    d.code = "copy-arity";
    d.message = "T.copy takes 2 arguments, got 1";
    editor.setDiagnostics({d});
    bool underlined = false;
    for (const QTextEdit::ExtraSelection& s : editor.extraSelections())
        if (s.format.underlineStyle() == QTextCharFormat::WaveUnderline) {
            underlined = true;
            EXPECT_EQ(s.cursor.selectedText(), "T.copy");
            EXPECT_TRUE(s.format.toolTip().contains("T.copy takes 2 arguments"));
        }
    EXPECT_TRUE(underlined);
    EXPECT_NE(editor.diagnosticAt(2, 7), nullptr);
    EXPECT_EQ(editor.diagnosticAt(2, 11), nullptr);
    EXPECT_EQ(editor.diagnosticAt(1, 5), nullptr);
    editor.gotoLine(3);
    ASSERT_TRUE(editor.gotoNextDiagnostic()); // wraps around
    EXPECT_EQ(editor.currentLine(), 2);
    EXPECT_EQ(editor.textCursor().positionInBlock(), 4);
}

TEST(CodeEditor, AutoIndentAfterColon) {
    CodeEditor editor;
    editor.show();
    editor.setPlainText("    for i in range(4):");
    editor.moveCursor(QTextCursor::End);
    QTest::keyClick(&editor, Qt::Key_Return);
    EXPECT_EQ(editor.textCursor().block().text(), "        ");
    QTest::keyClicks(&editor, "x = 1");
    QTest::keyClick(&editor, Qt::Key_Return);
    EXPECT_EQ(editor.textCursor().block().text(), "        ");
}

TEST(CodeEditor, CompletesTilePrimitivesWithSignatures) {
    CodeEditor editor;
    editor.show();
    editor.setPlainText("");
    QTest::keyClicks(&editor, "T.gem");
    QCompleter* c = editor.completer();
    EXPECT_EQ(c->completionPrefix(), "gem");
    ASSERT_GE(c->completionCount(), 1);
    c->setCurrentRow(0);
    EXPECT_TRUE(c->currentIndex().data(Qt::DisplayRole).toString().startsWith("gemm(A, B, C"));
    // Accepting inserts the name only.
    Q_EMIT c->activated(c->currentIndex());
    EXPECT_EQ(editor.toPlainText(), "T.gemm");
    EXPECT_TRUE(CodeEditor::tilePrimitiveSignatures().contains("copy(src, dst)"));
}

TEST(CodeEditor, UndoDoesNotOpenTheCompletionPopup) {
    CodeEditor editor;
    editor.show();
    editor.setPlainText("x = T.gem");
    editor.moveCursor(QTextCursor::End);
    QTest::keyClicks(&editor, " + 1");
    EXPECT_FALSE(editor.completer()->popup()->isVisible());
    // Ctrl+Z puts the cursor back after "T.gem": uninvited, the popup stays closed.
    QTest::keyClick(&editor, Qt::Key_Z, Qt::ControlModifier);
    ASSERT_EQ(editor.toPlainText(), "x = T.gem");
    EXPECT_FALSE(editor.completer()->popup()->isVisible());
    // Typing there invites it.
    QTest::keyClicks(&editor, "m");
    EXPECT_TRUE(editor.completer()->popup()->isVisible());
    EXPECT_EQ(editor.completer()->completionPrefix(), "gemm");
}

TEST(CodeEditor, HighlightsTheMatchingBracket) {
    CodeEditor editor;
    editor.setPlainText("f(a[1], b)");
    QTextCursor c = editor.textCursor();
    c.setPosition(1); // at '('
    editor.setTextCursor(c);
    std::vector<int> bracketPositions;
    for (const QTextEdit::ExtraSelection& s : editor.extraSelections())
        if (s.cursor.hasSelection() && s.cursor.selectedText().size() == 1)
            bracketPositions.push_back(s.cursor.selectionStart());
    EXPECT_EQ(bracketPositions, (std::vector<int>{1, 9}));
}

} // namespace tb::app
