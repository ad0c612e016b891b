// Find and replace in the editor: a bar under it. Ctrl+F opens it on the selection, Ctrl+H with the replace
// field, Enter/F3 finds the next match and Shift+F3 the previous one (both wrap around), Esc
// closes it and returns to the text. The bar counts the matches as the user types; Replace All is one
// undo step, so Ctrl+Z takes it back whole. The code views have one each (find only: they are read-only).
#pragma once

#include <QTextDocument>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace tb::app {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QPlainTextEdit* editor, QWidget* parent = nullptr);

    void openFind();
    // On a read-only view (the code views) the same as openFind: there is nothing to replace.
    void openReplace();
    // The bar that serves `focus`: the one beside the nearest ancestor that has one (the editor's, or a code
    // view's); null when none does.
    static FindBar* nearest(QWidget* focus);
    // Selects the next (or previous) match after the cursor, wrapping around; false when there is none.
    bool findNext(bool backward = false);
    // Replaces the selected match (if the selection is one) and selects the next one.
    bool replaceCurrent();
    // Replaces every match in one undoable edit; returns how many.
    int replaceAll();
    int matchCount() const;

    QLineEdit* findField() const { return m_find; }
    QLineEdit* replaceField() const { return m_replace; }
    QCheckBox* caseSensitiveBox() const { return m_caseSensitive; }
    QString statusText() const;

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QTextDocument::FindFlags flags(bool backward) const;
    bool selectionIsMatch() const;
    void updateStatus();
    void setReplaceVisible(bool visible);

    QPlainTextEdit* m_editor;
    QLineEdit* m_find;
    QLineEdit* m_replace;
    QCheckBox* m_caseSensitive;
    QPushButton* m_replaceOne;
    QPushButton* m_replaceEvery;
    QLabel* m_status;
    bool m_replacingAll = false;
};

} // namespace tb::app
