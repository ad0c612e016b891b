// The lesson text as rich text: title, explanation, the views to look at, the task; the hint on request.
#include "app/LessonPanel.h"

#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace tb::app {

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
    m_text = new QTextBrowser;
    m_text->setObjectName("lessonText");
    m_text->setPlaceholderText(
        "Help > Lessons opens a lesson here: what to look at in which view, and an exercise "
        "to fill in and Run.");
    m_hintButton = new QPushButton("Show the hint");
    m_hintButton->setObjectName("lessonHintButton");
    m_hintButton->setEnabled(false);
    m_hint = new QLabel;
    m_hint->setObjectName("lessonHint");
    m_hint->setWordWrap(true);
    m_hint->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_hintButton);
    layout->addWidget(m_hint);
    connect(m_hintButton, &QPushButton::clicked, this, [this] { m_hint->show(); });
}

void LessonPanel::showLesson(const Lesson& lesson) {
    m_number = lesson.number;
    QString html = QString("<h3>Lesson %1: %2</h3><p>%3</p><p><b>Look at</b></p><ul>")
                       .arg(lesson.number)
                       .arg(QString::fromStdString(lesson.title).toHtmlEscaped(),
                            QString::fromStdString(lesson.explanation).toHtmlEscaped());
    for (const LessonView& v : lesson.views)
        html += QString("<li><b>%1</b>: %2</li>")
                    .arg(QString::fromStdString(v.view).toHtmlEscaped(),
                         QString::fromStdString(v.what).toHtmlEscaped());
    html +=
        QString("</ul><p><b>Your task</b> (the TODO line in the editor): %1. Then Run: the result is checked "
                "against the sample's reference on the CPU (or on the GPU when one is picked).</p>")
            .arg(QString::fromStdString(lesson.task).toHtmlEscaped());
    m_text->setHtml(html);
    m_hint->setText("Hint: " + QString::fromStdString(lesson.hint));
    m_hint->hide();
    m_hintButton->setEnabled(true);
}

} // namespace tb::app
