// The Lesson dock: the open lesson's explanation, which view to look at for what, the exercise's task, and
// its hint behind a button (a learner tries first). Help > Lessons opens a lesson into it.
#pragma once

#include "engine/catalog/LessonCatalog.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace tb::app {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget* parent = nullptr);

    void showLesson(const Lesson& lesson);
    int lessonNumber() const { return m_number; }
    QTextBrowser* text() const { return m_text; }
    QPushButton* hintButton() const { return m_hintButton; }
    QLabel* hint() const { return m_hint; }

private:
    int m_number = 0;
    QTextBrowser* m_text;
    QPushButton* m_hintButton;
    QLabel* m_hint;
};

} // namespace tb::app
