// The CUDA dock's Compare row and its diff window; see CodeDiffPanel.h.
#include "app/CodeDiffPanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBlock>
#include <QVBoxLayout>

namespace tb::app {

CodeDiffWindow::CodeDiffWindow(const QFont& font, QWidget* parent)
    : QDialog(parent), m_summary(new QLabel), m_view(new QPlainTextEdit) {
    setObjectName("codeDiffWindow");
    setModal(false);
    resize(1000, 700);
    m_view->setObjectName("codeDiffView");
    m_view->setReadOnly(true);
    m_view->setFont(font);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);
}

void CodeDiffWindow::showDiff(const profile::GeneratedCodeDiff& diff) {
    setWindowTitle(QString("CUDA: %1 vs %2")
                       .arg(QString::fromStdString(diff.nameA), QString::fromStdString(diff.nameB)));
    if (!diff.ok) {
        m_summary->setText(QString::fromStdString(diff.error));
        m_view->setPlainText({});
        return;
    }
    m_summary->setText(diff.removed + diff.added == 0
                           ? QString("the generated CUDA is the same")
                           : QString("%1 lines removed (red), %2 added (green); unified, 3 lines of context")
                                 .arg(diff.removed)
                                 .arg(diff.added));
    m_view->setPlainText(QString::fromStdString(diff.unified()));
    // Colour bands, as `git diff` colours text: readable in both themes since only the background changes.
    QList<QTextEdit::ExtraSelection> bands;
    for (QTextBlock b = m_view->document()->begin(); b.isValid(); b = b.next()) {
        const QString t = b.text();
        QColor colour;
        if (t.startsWith("@@"))
            colour = QColor(70, 110, 200, 70);
        else if (t.startsWith('-') && !t.startsWith("---"))
            colour = QColor(220, 60, 60, 70);
        else if (t.startsWith('+') && !t.startsWith("+++"))
            colour = QColor(40, 170, 80, 70);
        else
            continue;
        QTextEdit::ExtraSelection band;
        band.cursor = QTextCursor(b);
        band.format.setBackground(colour);
        band.format.setProperty(QTextFormat::FullWidthSelection, true);
        bands.push_back(band);
    }
    m_view->setExtraSelections(bands);
}

CodeDiffPanel::CodeDiffPanel(const QFont& font, QWidget* parent)
    : QWidget(parent), m_font(font), m_settings(new QLineEdit), m_compare(new QPushButton("Compare")),
      m_status(new QLabel) {
    setObjectName("codeDiffPanel");
    m_settings->setObjectName("codeDiffSettings");
    m_settings->setPlaceholderText("compare with NAME=VALUE, e.g. num_stages=2");
    m_settings->setToolTip(
        "The CUDA of another setting, diffed against this one: a jit parameter, or a keyword "
        "literal of the program such as num_stages= (edited as the stage sweep edits it)");
    m_compare->setObjectName("codeDiffCompare");
    m_status->setObjectName("codeDiffStatus");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_settings, 1);
    layout->addWidget(m_compare);
    layout->addWidget(m_status);
    auto compare = [this] { compareWith(m_settings->text()); };
    connect(m_compare, &QPushButton::clicked, this, compare);
    connect(m_settings, &QLineEdit::returnPressed, this, compare);
    m_pool.setMaxThreadCount(1);
}

CodeDiffPanel::~CodeDiffPanel() {
    m_pool.waitForDone();
}

std::vector<std::pair<std::string, std::string>> CodeDiffPanel::parseSettings(const QString& settings,
                                                                              QString& error) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const QString& part : settings.split(',', Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf('=');
        const QString name = part.left(eq).trimmed(), value = part.mid(eq + 1).trimmed();
        if (eq < 0 || name.isEmpty() || value.isEmpty()) {
            error = QString("'%1' is not NAME=VALUE").arg(part.trimmed());
            return {};
        }
        out.emplace_back(name.toStdString(), value.toStdString());
    }
    if (out.empty())
        error = "type the setting to compare with, e.g. num_stages=2";
    return out;
}

void CodeDiffPanel::compareWith(const QString& settings) {
    QString error;
    auto against = parseSettings(settings, error);
    if (against.empty()) {
        m_status->setText(error);
        return;
    }
    if (!m_analysis || !m_analysis->compile) {
        m_status->setText("no program yet");
        return;
    }
    m_status->setText("comparing...");
    ++m_running;
    AnalysisPtr analysis = m_analysis;
    m_pool.start([this, analysis, against] {
        const CompileResult& base = *analysis->compile;
        const SourceFile& file = base.sources.file(base.file);
        auto diff = std::make_shared<const profile::GeneratedCodeDiff>(
            profile::diffGeneratedCuda(file.name(), file.text(), base, analysis->options, against));
        QMetaObject::invokeMethod(
            this, [this, diff] { show(diff); }, Qt::QueuedConnection);
    });
}

void CodeDiffPanel::show(const std::shared_ptr<const profile::GeneratedCodeDiff>& diff) {
    --m_running;
    m_status->setText(diff->ok ? QString("-%1 +%2").arg(diff->removed).arg(diff->added)
                               : QString::fromStdString(diff->error));
    if (!m_window)
        m_window = new CodeDiffWindow(m_font, this);
    m_window->showDiff(*diff);
    m_window->show();
    m_window->raise();
}

} // namespace tb::app
