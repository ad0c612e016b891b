// The TileBench main window: the editor in the middle, every other panel a QDockWidget (Issues,
// Parameters, Tile IR, Run, and the five canvases) that the user can rearrange; the arrangement, theme
// and recent files persist in QSettings. It owns the document (the latest ProgramAnalysis from the
// CompileService) and the shared selection (the current tile-program line), and passes both to the views.
#pragma once

#include "app/CanvasPanels.h"
#include "app/CodeEditor.h"
#include "app/CodeViews.h"
#include "app/CompileService.h"
#include "app/Recovery.h"
#include "app/RunPanel.h"
#include "engine/target/Backend.h"

#include <QList>
#include <QMainWindow>
#include <QUrl>
#include <map>
#include <string>
#include <vector>

class QAction;
class QDockWidget;
class QFormLayout;
class QLabel;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace tb::app {

class FindBar;
class LessonPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(Recovery recovery = Recovery(), QWidget* parent = nullptr);
    ~MainWindow() override;

    // Every path that replaces or closes the document (open, open sample, recent files, new, a dropped
    // file, recovery, quit) first asks about unsaved changes (confirmReplacingDocument); false when the
    // user cancelled or the file could not be read, and then nothing changed.
    bool openFile(const QString& path);
    // A sample opens as an untitled copy (no file path: Save asks where), never in place.
    bool openSample(const QString& name);
    // Help > Lessons: the lesson's exercise opens as an untitled copy (like a sample) and the Lesson dock
    // shows what to look at and the task. False when the user kept the current document.
    bool openLesson(int number);
    bool newDocument();
    bool openDroppedFiles(const QList<QUrl>& urls);
    bool saveTo(const QString& path);
    // For a modified document: "Save changes to NAME before WHAT?" with Save (a failed or cancelled save
    // stops), Discard and Cancel. True when the caller may replace the document. The autosave stays on disk
    // until the user has decided (Cancel keeps it and the edits).
    // `autosaveFirst` false keeps the recovery file as it is (while offering that file back).
    bool confirmReplacingDocument(const QString& what, bool autosaveFirst = true);
    bool isModified() const { return m_dirty; }
    void setDarkTheme(bool dark);
    bool darkTheme() const { return m_dark; }
    // The instruction set every compile plans and emits for (tilec's --backend): View > Backend and the
    // canvases' backend strips set it; the document recompiles with it.
    void setBackend(Backend backend);
    Backend backend() const { return m_backend; }
    // Compiles now (no debounce) and waits; for tests and screenshots.
    bool compileNow(int timeoutMs = 20000);
    // Offers the recovery file; `ask` false takes it without a dialog (tests).
    bool recoverUnsavedWork(bool ask);
    void autosaveNow();
    // Renders every dock (and the whole window) to DIR/<name>.png.
    bool saveScreenshots(const QString& directory);
    // Run in the Run panel (GPU when one is picked, else the CPU reference); waitForRun blocks (with
    // events) until it finished.
    void runProgram();
    bool waitForRun(int timeoutMs);

    CodeEditor* editor() const { return m_editor; }
    FindBar* findBar() const { return m_findBar; }
    // View > Reset Layout: every dock back where buildDocks put it, shown or hidden as it was then.
    void resetLayout();
    CompileService& compiler() { return m_compiler; }
    CanvasPanels& canvases() { return *m_canvases; }
    CodeViews& codeViews() { return *m_codeViews; }
    QListWidget* issues() const { return m_issues; }
    QPlainTextEdit* irView() const { return m_irView; }
    QLabel* gpuLabel() const { return m_gpuLabel; }
    QPlainTextEdit* runOutput() const { return m_runOutput; }
    QListWidget* runHistory() const { return m_history; }
    RunPanel* runPanel() const { return m_runPanel; }
    LessonPanel* lessonPanel() const { return m_lessonPanel; }
    QWidget* parametersPanel() const { return m_parameters; }
    const std::vector<int>& irLinkedLines() const { return m_irLinked; }
    void setOverride(const QString& name, const QString& value);
    // A stage-sweep point was clicked: a jit parameter num_stages is overridden; a num_stages literal in
    // the source is edited (one undo step).
    void openStagesVariant(int stages);
    QDockWidget* dock(const QString& objectName) const;
    const QString& filePath() const { return m_path; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void buildEditMenu();
    void buildDocks();
    void scheduleCompile(int debounceMs = 150);
    void showAnalysis(const AnalysisPtr& analysis);
    void updateParameters(const AnalysisPtr& analysis);
    void linkSourceLine(int line);
    void linkIrLine(int irLine);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();
    // Puts `text` in the editor as the new document (unmodified, its own undo history).
    void replaceDocument(const QString& text, const QString& path, const QString& displayName);
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);

    CodeEditor* m_editor;
    FindBar* m_findBar = nullptr;
    QByteArray m_defaultLayout; // the docks as buildDocks placed them
    CompileService m_compiler;
    CanvasPanels* m_canvases;
    CodeViews* m_codeViews = nullptr; // CUDA, PTX, SASS and Passes docks
    Recovery m_recovery;
    QListWidget* m_issues = nullptr;
    QWidget* m_parameters = nullptr;
    QFormLayout* m_parameterForm = nullptr;
    QPlainTextEdit* m_irView = nullptr;
    QLabel* m_gpuLabel = nullptr;
    RunPanel* m_runPanel = nullptr; // the Run dock: GPU picker, run/bench/profile/sweep, history
    LessonPanel* m_lessonPanel = nullptr;
    QPlainTextEdit* m_runOutput = nullptr;
    QListWidget* m_history = nullptr;
    QMenu* m_recentMenu = nullptr;
    std::vector<QDockWidget*> m_docks;
    std::map<std::string, std::string> m_overrides;
    std::vector<int> m_irLinked;
    QString m_path;
    QString m_displayName = "untitled.py";
    bool m_dark = true;
    bool m_sampleCopy = false; // the document is an untitled copy of a bundled sample
    Backend m_backend = defaultBackend(targetSm90a());
    std::vector<QAction*> m_backendActions; // View > Backend, one per knownBackendNames()
    bool m_dirty = false;
    bool m_updatingIr = false;
    QByteArray m_parameterSignature;
};

} // namespace tb::app
