// Regex rules in priority order; strings and comments are applied last so they win.
#include "app/PythonHighlighter.h"

namespace tb::app {

PythonHighlighter::PythonHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    setDarkTheme(true);
}

void PythonHighlighter::setDarkTheme(bool dark) {
    auto format = [](QColor color, bool bold = false) {
        QTextCharFormat f;
        f.setForeground(color);
        if (bold)
            f.setFontWeight(QFont::Bold);
        return f;
    };
    QColor keyword = dark ? QColor("#c586c0") : QColor("#8b008b");
    QColor tile = dark ? QColor("#4fc1ff") : QColor("#0055aa");
    QColor number = dark ? QColor("#b5cea8") : QColor("#098658");
    QColor decorator = dark ? QColor("#dcdcaa") : QColor("#795e26");
    m_rules.clear();
    m_rules.push_back(
        {QRegularExpression(
             "\\b(and|as|assert|break|class|continue|def|elif|else|for|from|if|import|in|is|lambda|"
             "not|or|pass|return|while|with|yield|True|False|None)\\b"),
         format(keyword, true)});
    m_rules.push_back({QRegularExpression("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b"), format(number)});
    m_rules.push_back({QRegularExpression("@[A-Za-z_][A-Za-z0-9_.]*"), format(decorator)});
    // The primitives: T.<name>, the heart of a tile program.
    m_rules.push_back({QRegularExpression("\\bT\\.[A-Za-z_][A-Za-z0-9_]*"), format(tile, true)});
    m_comment = format(dark ? QColor("#6a9955") : QColor("#008000"));
    m_comment.setFontItalic(true);
    m_string = format(dark ? QColor("#ce9178") : QColor("#a31515"));
    rehighlight();
}

void PythonHighlighter::highlightBlock(const QString& text) {
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), rule.format);
        }
    }
    static const QRegularExpression strings(R"("[^"\\]*(\\.[^"\\]*)*"|'[^'\\]*(\\.[^'\\]*)*')");
    auto it = strings.globalMatch(text);
    int commentFrom = -1;
    int scan = 0;
    while (it.hasNext()) {
        auto m = it.next();
        int hash = text.indexOf('#', scan);
        if (hash >= 0 && hash < m.capturedStart()) {
            commentFrom = hash;
            break;
        }
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_string);
        scan = int(m.capturedEnd());
    }
    if (commentFrom < 0)
        commentFrom = text.indexOf('#', scan);
    if (commentFrom >= 0)
        setFormat(commentFrom, int(text.size()) - commentFrom, m_comment);
}

} // namespace tb::app
