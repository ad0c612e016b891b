// Editor behaviour. Extra selections carry the current line, the linked lines, the matching bracket and
// the diagnostics' wavy underlines; they are recomputed whenever one of them changes.
#include "app/CodeEditor.h"

#include "app/PythonHighlighter.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QHelpEvent>
#include <QMimeData>
#include <QPainter>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>
#include <utility>

namespace tb::app {

namespace {

class Gutter : public QWidget {
public:
    explicit Gutter(CodeEditor* editor) : QWidget(editor), m_editor(editor) {}
    QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }

private:
    CodeEditor* m_editor;
};

} // namespace

QString EditorDiagnostic::tooltip() const {
    QString s = QString("%1: %2 [%3]").arg(error ? "error" : "warning", message, code);
    if (!hint.isEmpty())
        s += "\nhint: " + hint;
    return s;
}

QStringList CodeEditor::tilePrimitiveSignatures() {
    return {"Kernel(*grid, threads=128)",
            "alloc_shared(shape, dtype)",
            "alloc_fragment(shape, dtype)",
            "alloc_local(shape, dtype)",
            "alloc_var(dtype, init=None)",
            "copy(src, dst)",
            "gemm(A, B, C, transpose_A=False, transpose_B=False, policy=T.GemmWarpPolicy.Square, "
            "clear_accum=False)",
            "fill(buffer, value)",
            "clear(buffer)",
            "reduce_max(src, dst, dim=-1, clear=True)",
            "reduce_sum(src, dst, dim=-1, clear=True)",
            "reduce_min(src, dst, dim=-1, clear=True)",
            "reduce_abssum(src, dst, dim=-1)",
            "reduce_absmax(src, dst, dim=-1)",
            "Parallel(*extents)",
            "Pipelined(extent, num_stages=2)",
            "serial(extent)",
            "unroll(extent)",
            "annotate_layout({buffer: layout})",
            "use_swizzle(panel_size=8, order=\"row\")",
            "atomic_add(dst, value)",
            "ceildiv(a, b)",
            "max(a, b)",
            "min(a, b)",
            "exp2(x)",
            "exp(x)",
            "log2(x)",
            "rsqrt(x)",
            "sigmoid(x)",
            "infinity(dtype)",
            "if_then_else(cond, a, b)",
            "Tensor(shape, dtype)",
            "prim_func",
            "macro",
            "print(value, msg=\"\")",
            "GemmWarpPolicy.Square",
            "GemmWarpPolicy.FullRow",
            "GemmWarpPolicy.FullCol"};
}

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent) {
    m_gutter = new Gutter(this);
    m_highlighter = new PythonHighlighter(document());
    QFont font("DejaVu Sans Mono");
    font.setStyleHint(QFont::Monospace);
    font.setPointSize(10);
    setFont(font);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabStopDistance(fontMetrics().horizontalAdvance(' ') * 4);

    auto* model = new QStandardItemModel(this);
    for (const QString& signature : tilePrimitiveSignatures()) {
        auto* item = new QStandardItem(signature);
        QString name = signature.section('(', 0, 0);
        item->setData(name, Qt::EditRole);
        item->setData(signature, Qt::DisplayRole);
        item->setData(name, Qt::UserRole);
        model->appendRow(item);
    }
    m_completer = new QCompleter(this);
    m_completer->setModel(model);
    m_completer->setCompletionRole(Qt::UserRole);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setWidget(this);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    connect(m_completer, qOverload<const QModelIndex&>(&QCompleter::activated), this,
            [this](const QModelIndex& index) { insertCompletion(index.data(Qt::UserRole).toString()); });

    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        updateExtraSelections();
        int line = currentLine();
        if (line != m_lastLine) {
            m_lastLine = line;
            Q_EMIT cursorLineChanged(line);
        }
    });
    updateGutterWidth();
    setDarkTheme(true);
}

void CodeEditor::setDarkTheme(bool dark) {
    m_dark = dark;
    // Re-highlighting reformats every block inside an edit block; new colours are never an edit, so the
    // document's own modified flag is kept as it was, whatever the reformat reports.
    const bool modified = document()->isModified();
    m_highlighter->setDarkTheme(dark);
    document()->setModified(modified);
    updateExtraSelections();
    m_gutter->update();
}

int CodeEditor::gutterWidth() const {
    int digits = QString::number(std::max(1, blockCount())).size();
    return 18 + fontMetrics().horizontalAdvance('9') * std::max(3, digits);
}

void CodeEditor::updateGutterWidth() {
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void CodeEditor::paintGutter(QPaintEvent* event) {
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), m_dark ? QColor("#252526") : QColor("#eeeeee"));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    int current = currentLine();
    while (block.isValid() && top <= event->rect().bottom()) {
        int line = block.blockNumber() + 1;
        if (block.isVisible() && bottom >= event->rect().top()) {
            painter.setPen(line == current ? (m_dark ? Qt::white : Qt::black) : QColor("#858585"));
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(line));
            // A marker for the worst diagnostic on the line.
            int severity = 0;
            for (const EditorDiagnostic& d : m_diagnostics)
                if (d.line == line)
                    severity = std::max(severity, d.error ? 2 : 1);
            if (severity) {
                painter.setBrush(severity == 2 ? QColor("#e51400") : QColor("#e5b400"));
                painter.setPen(Qt::NoPen);
                int h = fontMetrics().height();
                painter.drawEllipse(QPoint(7, top + h / 2), 4, 4);
            }
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

int CodeEditor::currentLine() const {
    return textCursor().blockNumber() + 1;
}

void CodeEditor::gotoLine(int line, int column) {
    QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
    if (!block.isValid())
        return;
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   std::clamp(column - 1, 0, block.length() - 1));
    setTextCursor(c);
    centerCursor();
}

bool CodeEditor::gotoNextDiagnostic() {
    if (m_diagnostics.empty())
        return false;
    int line = currentLine(), column = textCursor().positionInBlock() + 1;
    const EditorDiagnostic* next = nullptr;
    for (const EditorDiagnostic& d : m_diagnostics)
        if (d.line > line || (d.line == line && d.column > column))
            if (!next || d.line < next->line || (d.line == next->line && d.column < next->column))
                next = &d;
    if (!next) // wrap around to the first
        for (const EditorDiagnostic& d : m_diagnostics)
            if (!next || d.line < next->line || (d.line == next->line && d.column < next->column))
                next = &d;
    gotoLine(next->line, next->column);
    return true;
}

const EditorDiagnostic* CodeEditor::diagnosticAt(int line, int column) const {
    for (const EditorDiagnostic& d : m_diagnostics) {
        bool afterStart = line > d.line || (line == d.line && column >= d.column);
        bool beforeEnd =
            line < d.endLine || (line == d.endLine && column < std::max(d.endColumn, d.column + 1));
        if (afterStart && beforeEnd)
            return &d;
    }
    return nullptr;
}

void CodeEditor::setDiagnostics(std::vector<EditorDiagnostic> diagnostics) {
    m_diagnostics = std::move(diagnostics);
    updateExtraSelections();
    m_gutter->update();
}

void CodeEditor::setLinkedLines(std::vector<int> lines) {
    m_linked = std::move(lines);
    updateExtraSelections();
}

void CodeEditor::updateExtraSelections() {
    QList<QTextEdit::ExtraSelection> selections;
    QTextEdit::ExtraSelection current;
    current.format.setBackground(m_dark ? QColor("#2a2d2e") : QColor("#fff8dc"));
    current.format.setProperty(QTextFormat::FullWidthSelection, true);
    current.cursor = textCursor();
    current.cursor.clearSelection();
    selections.append(current);
    for (int line : m_linked) {
        QTextBlock block = document()->findBlockByNumber(line - 1);
        if (!block.isValid())
            continue;
        QTextEdit::ExtraSelection linked;
        linked.format.setBackground(m_dark ? QColor("#3a3d1e") : QColor("#fff3a0"));
        linked.format.setProperty(QTextFormat::FullWidthSelection, true);
        linked.cursor = QTextCursor(block);
        selections.append(linked);
    }
    // Bracket match: the bracket at or before the cursor and its partner.
    QString text = toPlainText();
    int pos = textCursor().position();
    auto isOpen = [](QChar c) { return c == '(' || c == '[' || c == '{'; };
    auto isClose = [](QChar c) { return c == ')' || c == ']' || c == '}'; };
    int at = -1;
    if (pos < text.size() && (isOpen(text[pos]) || isClose(text[pos])))
        at = pos;
    else if (pos > 0 && (isOpen(text[pos - 1]) || isClose(text[pos - 1])))
        at = pos - 1;
    if (at >= 0) {
        int dir = isOpen(text[at]) ? 1 : -1, depth = 0, match = -1;
        for (int i = at, steps = 0; i >= 0 && i < text.size() && steps < 100000; i += dir, ++steps) {
            if (isOpen(text[i]))
                depth += dir;
            else if (isClose(text[i]))
                depth -= dir;
            if (depth == 0) {
                match = i;
                break;
            }
        }
        for (int p : {at, match}) {
            if (p < 0)
                continue;
            QTextEdit::ExtraSelection b;
            b.format.setBackground(match >= 0 ? QColor("#3f6f3f") : QColor("#8f2f2f"));
            b.cursor = QTextCursor(document());
            b.cursor.setPosition(p);
            b.cursor.setPosition(p + 1, QTextCursor::KeepAnchor);
            selections.append(b);
        }
    }
    for (const EditorDiagnostic& d : m_diagnostics) {
        QTextBlock start = document()->findBlockByNumber(d.line - 1);
        QTextBlock end = document()->findBlockByNumber(d.endLine - 1);
        if (!start.isValid())
            continue;
        if (!end.isValid())
            end = start;
        QTextEdit::ExtraSelection s;
        s.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        s.format.setUnderlineColor(d.error ? QColor("#e51400") : QColor("#e5b400"));
        s.format.setToolTip(d.tooltip());
        s.cursor = QTextCursor(document());
        int a = start.position() + std::clamp(d.column - 1, 0, std::max(0, start.length() - 1));
        int b = end.position() + std::clamp(d.endColumn - 1, 0, std::max(0, end.length() - 1));
        if (b <= a) // an empty range still gets one character underlined
            b = std::min(a + 1, document()->characterCount() - 1);
        s.cursor.setPosition(a);
        s.cursor.setPosition(b, QTextCursor::KeepAnchor);
        selections.append(s);
    }
    setExtraSelections(selections);
}

bool CodeEditor::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QTextCursor c = cursorForPosition(help->pos() - QPoint(viewportMargins().left(), 0));
        if (const EditorDiagnostic* d = diagnosticAt(c.blockNumber() + 1, c.positionInBlock() + 1))
            QToolTip::showText(help->globalPos(), d->tooltip(), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QPlainTextEdit::event(event);
}

QString CodeEditor::wordBeforeCursor(bool* afterTDot) const {
    QTextCursor c = textCursor();
    QString line = c.block().text().left(c.positionInBlock());
    int i = int(line.size());
    while (i > 0 && (line[i - 1].isLetterOrNumber() || line[i - 1] == '_'))
        --i;
    *afterTDot = i >= 2 && line.mid(i - 2, 2) == "T." && (i == 2 || !line[i - 3].isLetterOrNumber());
    return line.mid(i);
}

void CodeEditor::insertCompletion(const QString& completion) {
    bool afterTDot = false;
    QString prefix = wordBeforeCursor(&afterTDot);
    QTextCursor c = textCursor();
    c.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, int(prefix.size()));
    c.insertText(completion);
    setTextCursor(c);
}

void CodeEditor::keyPressEvent(QKeyEvent* event) {
    if (m_completer->popup()->isVisible()) {
        switch (event->key()) {
        case Qt::Key_Enter:
        case Qt::Key_Return:
        case Qt::Key_Escape:
        case Qt::Key_Tab:
        case Qt::Key_Backtab:
            event->ignore();
            return; // the completer handles them
        default:
            break;
        }
    }
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        // Auto-indent: keep the line's indentation, one level more after a ':'.
        QString line = textCursor().block().text().left(textCursor().positionInBlock());
        QString indent;
        for (QChar ch : line) {
            if (ch != ' ' && ch != '\t')
                break;
            indent += ch;
        }
        if (line.trimmed().endsWith(':'))
            indent += "    ";
        textCursor().insertText("\n" + indent);
        ensureCursorVisible();
        return;
    }
    if (event->key() == Qt::Key_Tab && !(event->modifiers() & Qt::ShiftModifier)) {
        textCursor().insertText("    ");
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
    bool afterTDot = false;
    QString prefix = wordBeforeCursor(&afterTDot);
    bool forced = event->key() == Qt::Key_Space && (event->modifiers() & Qt::ControlModifier);
    // Only typing invites the popup (or Backspace while it is open): Ctrl+Z, Ctrl+V and other commands
    // carry control characters as their text and must not open it where the cursor lands.
    const Qt::KeyboardModifiers commands = Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier;
    bool typed =
        !event->text().isEmpty() && event->text().at(0).isPrint() && !(event->modifiers() & commands);
    bool refining = event->key() == Qt::Key_Backspace && m_completer->popup()->isVisible();
    if (!afterTDot || !(typed || refining || forced)) {
        m_completer->popup()->hide();
        return;
    }
    if (prefix != m_completer->completionPrefix()) {
        m_completer->setCompletionPrefix(prefix);
        m_completer->popup()->setCurrentIndex(m_completer->completionModel()->index(0, 0));
    }
    QRect r = cursorRect();
    r.setWidth(m_completer->popup()->sizeHintForColumn(0) +
               m_completer->popup()->verticalScrollBar()->sizeHint().width());
    m_completer->complete(r);
}

namespace {

bool hasLocalFiles(const QMimeData* source) {
    if (!source->hasUrls())
        return false;
    for (const QUrl& url : source->urls())
        if (url.isLocalFile())
            return true;
    return false;
}

} // namespace

bool CodeEditor::canInsertFromMimeData(const QMimeData* source) const {
    return hasLocalFiles(source) || QPlainTextEdit::canInsertFromMimeData(source);
}

void CodeEditor::insertFromMimeData(const QMimeData* source) {
    if (hasLocalFiles(source)) {
        Q_EMIT filesDropped(source->urls());
        return;
    }
    QPlainTextEdit::insertFromMimeData(source);
}

} // namespace tb::app
