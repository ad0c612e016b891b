// Syntax highlighting for tile programs: Python keywords, strings, numbers and comments, with TileLang's
// T.* primitives (T.copy, T.gemm, T.Pipelined, ...) marked in their own colour so the data movement
// stands out. Colours follow the app's theme.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace tb::app {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* document);
    void setDarkTheme(bool dark);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> m_rules;
    QTextCharFormat m_comment, m_string;
};

} // namespace tb::app
