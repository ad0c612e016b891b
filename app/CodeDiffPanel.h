// Compare the generated CUDA with another parameter setting: a row under the CUDA dock ("compare with
// num_stages=2" and a Compare button) and a window with the unified diff, removed lines red, added green.
// The other setting is applied as the stage sweep applies it (an override, or the program's literals
// edited: engine/profile/CodeDiff.h), so it works where `num_stages` is a literal too. The diff is made on a
// worker thread from the analysis the CUDA dock shows.
#pragma once

#include "app/CompileService.h"
#include "engine/profile/CodeDiff.h"

#include <QDialog>
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace tb::app {

// The window of one diff.
class CodeDiffWindow : public QDialog {
    Q_OBJECT
public:
    explicit CodeDiffWindow(const QFont& font, QWidget* parent = nullptr);
    void showDiff(const profile::GeneratedCodeDiff& diff);
    QPlainTextEdit* view() const { return m_view; }
    QLabel* summary() const { return m_summary; }

private:
    QLabel* m_summary;
    QPlainTextEdit* m_view;
};

class CodeDiffPanel : public QWidget {
    Q_OBJECT
public:
    explicit CodeDiffPanel(const QFont& font, QWidget* parent = nullptr);
    ~CodeDiffPanel() override;

    void setAnalysis(const AnalysisPtr& analysis) { m_analysis = analysis; }
    // Compares with `settings` ("num_stages=2, block_N=64"); the window opens when the diff is ready.
    void compareWith(const QString& settings);
    // "a=1, b = 2" as name/value pairs; empty and `error` set when it is not that form.
    static std::vector<std::pair<std::string, std::string>> parseSettings(const QString& settings,
                                                                          QString& error);

    QLineEdit* settingsEdit() const { return m_settings; }
    QPushButton* compareButton() const { return m_compare; }
    QLabel* status() const { return m_status; }
    CodeDiffWindow* window() const { return m_window; } // null until the first diff
    bool busy() const { return m_running > 0; }

private:
    void show(const std::shared_ptr<const profile::GeneratedCodeDiff>& diff);

    QFont m_font;
    AnalysisPtr m_analysis;
    QLineEdit* m_settings;
    QPushButton* m_compare;
    QLabel* m_status;
    CodeDiffWindow* m_window = nullptr;
    int m_running = 0;
    QThreadPool m_pool; // one diff at a time; waited for before the panel goes
};

} // namespace tb::app
