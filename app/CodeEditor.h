// The tile-program editor: a QPlainTextEdit with a gutter (line numbers and diagnostic markers),
// current-line and bracket highlight, auto-indent after ':', completion of T.* primitives with their
// signatures, diagnostics as wavy underlines with hover text, and the lines linked from other views
// (the IR view, the canvases) highlighted. It knows nothing about the engine: the owner converts
// diagnostics into EditorDiagnostic values.
#pragma once

#include <QList>
#include <QPlainTextEdit>
#include <QUrl>
#include <vector>

class QCompleter;

namespace tb::app {

class PythonHighlighter;

struct EditorDiagnostic {
    int line = 1, column = 1;       // 1-based start
    int endLine = 1, endColumn = 1; // 1-based, exclusive end column
    bool error = true;
    QString code, message, hint;
    QString tooltip() const;
};

class CodeEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit CodeEditor(QWidget* parent = nullptr);

    void setDiagnostics(std::vector<EditorDiagnostic> diagnostics);
    const std::vector<EditorDiagnostic>& diagnostics() const { return m_diagnostics; }
    // Lines (1-based) highlighted because another view selected them.
    void setLinkedLines(std::vector<int> lines);
    const std::vector<int>& linkedLines() const { return m_linked; }
    // Moves the cursor to the next diagnostic after the cursor (wrapping); false when there is none.
    bool gotoNextDiagnostic();
    void gotoLine(int line, int column = 1);
    int currentLine() const; // 1-based
    // The diagnostic under a document position, or null.
    const EditorDiagnostic* diagnosticAt(int line, int column) const;
    void setDarkTheme(bool dark);
    QCompleter* completer() const { return m_completer; }
    // Completion entries: "copy(src, dst, ...)" with the inserted name in the edit role.
    static QStringList tilePrimitiveSignatures();

    // Gutter support (called by the gutter widget).
    int gutterWidth() const;
    void paintGutter(QPaintEvent* event);

Q_SIGNALS:
    // The user moved the cursor to another line (linked selection).
    void cursorLineChanged(int line);
    // Files were dropped on the editor: the window opens them instead of pasting their paths.
    void filesDropped(const QList<QUrl>& urls);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    bool canInsertFromMimeData(const QMimeData* source) const override;
    void insertFromMimeData(const QMimeData* source) override;

private:
    void updateExtraSelections();
    void updateGutterWidth();
    void insertCompletion(const QString& completion);
    QString wordBeforeCursor(bool* afterTDot) const;

    QWidget* m_gutter;
    PythonHighlighter* m_highlighter;
    QCompleter* m_completer;
    std::vector<EditorDiagnostic> m_diagnostics;
    std::vector<int> m_linked;
    int m_lastLine = 0;
    bool m_dark = true;
};

} // namespace tb::app
