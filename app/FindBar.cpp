// The find bar's searches go through QTextDocument::find (plain text, optional case sensitivity), so a
// match is exactly what the editor would select by hand.
#include "app/FindBar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextCursor>

namespace tb::app {

FindBar::FindBar(QPlainTextEdit* editor, QWidget* parent)
    : QWidget(parent), m_editor(editor), m_find(new QLineEdit), m_replace(new QLineEdit),
      m_caseSensitive(new QCheckBox("Match case")), m_replaceOne(new QPushButton("Replace")),
      m_replaceEvery(new QPushButton("Replace All")), m_status(new QLabel) {
    setObjectName("findBar");
    m_find->setObjectName("findField");
    m_replace->setObjectName("replaceField");
    m_find->setPlaceholderText("Find");
    m_replace->setPlaceholderText("Replace with");
    m_find->setClearButtonEnabled(true);
    auto* previous = new QPushButton("Previous");
    auto* next = new QPushButton("Next");
    auto* closeButton = new QPushButton("Close");
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 2, 4, 2);
    row->addWidget(m_find, 2);
    row->addWidget(previous);
    row->addWidget(next);
    row->addWidget(m_caseSensitive);
    row->addWidget(m_replace, 2);
    row->addWidget(m_replaceOne);
    row->addWidget(m_replaceEvery);
    row->addWidget(m_status, 1);
    row->addWidget(closeButton);

    connect(m_find, &QLineEdit::textChanged, this, [this] {
        // Search as the user types, from where the current match starts, so that typing extends it.
        QTextCursor c = m_editor->textCursor();
        c.setPosition(c.selectionStart());
        m_editor->setTextCursor(c);
        if (m_find->text().isEmpty() || !findNext()) // findNext counts the matches itself
            updateStatus();
    });
    connect(m_find, &QLineEdit::returnPressed, this, [this] { findNext(); });
    connect(m_replace, &QLineEdit::returnPressed, this, [this] { replaceCurrent(); });
    connect(next, &QPushButton::clicked, this, [this] { findNext(); });
    connect(previous, &QPushButton::clicked, this, [this] { findNext(true); });
    connect(m_replaceOne, &QPushButton::clicked, this, [this] { replaceCurrent(); });
    connect(m_replaceEvery, &QPushButton::clicked, this, [this] { replaceAll(); });
    connect(m_caseSensitive, &QCheckBox::toggled, this, [this] { updateStatus(); });
    connect(closeButton, &QPushButton::clicked, this, [this] {
        hide();
        m_editor->setFocus();
    });
    connect(m_editor, &QPlainTextEdit::textChanged, this, [this] {
        if (isVisible() && !m_replacingAll) // Replace All counts once, at its end
            updateStatus();
    });
    hide();
}

void FindBar::openFind() {
    setReplaceVisible(false);
    // A selection within one line is what the user wants to find.
    const QString selected = m_editor->textCursor().selectedText();
    if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator))
        m_find->setText(selected);
    show();
    m_find->setFocus();
    m_find->selectAll();
    updateStatus();
}

void FindBar::openReplace() {
    openFind();
    setReplaceVisible(!m_editor->isReadOnly());
}

FindBar* FindBar::nearest(QWidget* focus) {
    for (QWidget* w = focus; w; w = w->parentWidget())
        if (auto* bar = w->findChild<FindBar*>(QString(), Qt::FindDirectChildrenOnly))
            return bar;
    return nullptr;
}

void FindBar::setReplaceVisible(bool visible) {
    m_replace->setVisible(visible);
    m_replaceOne->setVisible(visible);
    m_replaceEvery->setVisible(visible);
}

QTextDocument::FindFlags FindBar::flags(bool backward) const {
    QTextDocument::FindFlags f;
    if (backward)
        f |= QTextDocument::FindBackward;
    if (m_caseSensitive->isChecked())
        f |= QTextDocument::FindCaseSensitively;
    return f;
}

bool FindBar::findNext(bool backward) {
    const QString pattern = m_find->text();
    if (pattern.isEmpty())
        return false;
    QTextDocument* doc = m_editor->document();
    QTextCursor found = doc->find(pattern, m_editor->textCursor(), flags(backward));
    if (found.isNull()) { // wrap around
        QTextCursor from(doc);
        if (backward)
            from.movePosition(QTextCursor::End);
        found = doc->find(pattern, from, flags(backward));
    }
    if (found.isNull()) {
        updateStatus();
        return false;
    }
    m_editor->setTextCursor(found);
    m_editor->centerCursor();
    updateStatus();
    return true;
}

bool FindBar::selectionIsMatch() const {
    const QString selected = m_editor->textCursor().selectedText();
    const Qt::CaseSensitivity cs = m_caseSensitive->isChecked() ? Qt::CaseSensitive : Qt::CaseInsensitive;
    return !m_find->text().isEmpty() && selected.compare(m_find->text(), cs) == 0;
}

bool FindBar::replaceCurrent() {
    if (m_editor->isReadOnly() || (!selectionIsMatch() && !findNext()))
        return false;
    QTextCursor c = m_editor->textCursor();
    c.insertText(m_replace->text());
    m_editor->setTextCursor(c);
    findNext();
    return true;
}

int FindBar::replaceAll() {
    const QString pattern = m_find->text();
    if (pattern.isEmpty() || m_editor->isReadOnly())
        return 0;
    QTextDocument* doc = m_editor->document();
    QTextCursor edit(doc);
    edit.beginEditBlock();
    m_replacingAll = true;
    int count = 0;
    for (QTextCursor at = doc->find(pattern, QTextCursor(doc), flags(false)); !at.isNull();
         at = doc->find(pattern, at, flags(false))) {
        at.insertText(m_replace->text()); // leaves `at` after the replacement: no rematch inside it
        ++count;
    }
    edit.endEditBlock();
    m_replacingAll = false;
    m_status->setText(QString("%1 replaced").arg(count));
    return count;
}

int FindBar::matchCount() const {
    const QString pattern = m_find->text();
    if (pattern.isEmpty())
        return 0;
    QTextDocument* doc = m_editor->document();
    int count = 0;
    for (QTextCursor at = doc->find(pattern, QTextCursor(doc), flags(false)); !at.isNull();
         at = doc->find(pattern, at, flags(false)))
        ++count;
    return count;
}

QString FindBar::statusText() const {
    return m_status->text();
}

void FindBar::updateStatus() {
    if (m_find->text().isEmpty()) {
        m_status->clear();
        return;
    }
    const int n = matchCount();
    m_status->setText(n == 0   ? QString("not found")
                      : n == 1 ? QString("1 match")
                               : QString("%1 matches").arg(n));
}

void FindBar::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape) {
        hide();
        m_editor->setFocus();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace tb::app
