// Window assembly, the document flow (edit -> debounced compile -> every view) and the panels' actions.
#include "app/MainWindow.h"

#include "app/FindBar.h"
#include "app/LessonPanel.h"
#include "engine/catalog/LessonCatalog.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/gpu/CudaDriver.h"
#include "engine/profile/SweepVariants.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFont>
#include <QFormLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTextBlock>
#include <QTextDocument>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// Resources of a static library must be registered explicitly (outside any namespace).
static void initTileBenchResources() {
    Q_INIT_RESOURCE(tilebench);
}

namespace tb::app {

namespace {

const char* kSettingsGeometry = "window/geometry";
const char* kSettingsState = "window/state";
const char* kSettingsDark = "window/dark";
const char* kSettingsRecent = "files/recent";
// Marks an Issues row that is the hint of the diagnostic above it.
constexpr int kIssueHintRole = Qt::UserRole + 2;

QPalette themePalette(bool dark) {
    if (!dark)
        return QApplication::style()->standardPalette();
    QPalette p;
    p.setColor(QPalette::Window, QColor(37, 37, 38));
    p.setColor(QPalette::WindowText, QColor(220, 220, 220));
    p.setColor(QPalette::Base, QColor(30, 30, 30));
    p.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
    p.setColor(QPalette::Text, QColor(212, 212, 212));
    p.setColor(QPalette::Button, QColor(51, 51, 55));
    p.setColor(QPalette::ButtonText, QColor(220, 220, 220));
    p.setColor(QPalette::Highlight, QColor(38, 79, 120));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 60));
    p.setColor(QPalette::ToolTipText, Qt::white);
    return p;
}

EditorDiagnostic toEditorDiagnostic(const views::ProgramAnalysis& a, const Diagnostic& d) {
    EditorDiagnostic e;
    e.error = d.severity == Severity::Error;
    e.code = QString::fromStdString(d.code);
    e.message = QString::fromStdString(d.message);
    e.hint = QString::fromStdString(d.hint);
    if (d.range.valid && d.range.file < a.sources().fileCount()) {
        const SourceFile& f = a.sources().file(d.range.file);
        LineCol begin = f.lineCol(d.range.begin), end = f.lineCol(std::max(d.range.end, d.range.begin));
        e.line = int(begin.line);
        e.column = int(begin.column);
        e.endLine = int(end.line);
        e.endColumn = int(end.column);
    }
    return e;
}

} // namespace

MainWindow::MainWindow(Recovery recovery, QWidget* parent)
    : QMainWindow(parent), m_editor(new CodeEditor), m_canvases(new CanvasPanels(this)),
      m_recovery(std::move(recovery)) {
    initTileBenchResources();
    setObjectName("mainWindow");
    setWindowIcon(QIcon(":/tilebench.svg"));
    // The editor with its find bar below it.
    auto* central = new QWidget;
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(m_editor);
    m_findBar = new FindBar(m_editor, central);
    column->addWidget(m_findBar);
    setCentralWidget(central);
    m_editor->setObjectName("editor");
    setAcceptDrops(true); // a dropped .py file opens (after asking about unsaved changes)
    setDockNestingEnabled(true);
    buildDocks();
    buildMenus();
    resize(1560, 960);
    m_defaultLayout = saveState(); // View > Reset Layout returns here, whatever the settings restored

    // "Modified" is the document's own flag: set by edits, cleared when Ctrl+Z returns to the saved text,
    // untouched by re-highlighting. The unsaved-changes question relies on it.
    connect(m_editor->document(), &QTextDocument::modificationChanged, this, [this](bool modified) {
        m_dirty = modified;
        updateTitle();
    });
    connect(m_editor, &QPlainTextEdit::textChanged, this, [this] { scheduleCompile(); });
    connect(m_editor, &CodeEditor::cursorLineChanged, this, [this](int line) { linkSourceLine(line); });
    connect(m_editor, &CodeEditor::filesDropped, this,
            [this](const QList<QUrl>& urls) { openDroppedFiles(urls); });
    connect(&m_compiler, &CompileService::analysisReady, this, &MainWindow::showAnalysis);
    connect(m_canvases, &CanvasPanels::lineClicked, this, [this](int line) { m_editor->gotoLine(line); });
    connect(m_canvases, &CanvasPanels::stagesVariantRequested, this, &MainWindow::openStagesVariant);
    connect(m_canvases, &CanvasPanels::exportFailed, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    connect(m_canvases, &CanvasPanels::backendRequested, this, [this](const QString& name) {
        if (std::optional<Backend> b = parseBackend(name.toStdString()))
            setBackend(*b);
    });

    auto* autosave = new QTimer(this);
    connect(autosave, &QTimer::timeout, this, [this] {
        if (m_dirty)
            autosaveNow();
    });
    autosave->start(3000);

    QSettings settings;
    restoreGeometry(settings.value(kSettingsGeometry).toByteArray());
    restoreState(settings.value(kSettingsState).toByteArray());
    setDarkTheme(settings.value(kSettingsDark, true).toBool());
    rebuildRecentMenu();
    updateTitle();
}

MainWindow::~MainWindow() {
    m_compiler.waitForIdle(0);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* widget,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_docks.push_back(dock);
    return dock;
}

QDockWidget* MainWindow::dock(const QString& objectName) const {
    for (QDockWidget* d : m_docks)
        if (d->objectName() == objectName)
            return d;
    return nullptr;
}

void MainWindow::buildDocks() {
    m_issues = new QListWidget;
    m_issues->setObjectName("issues");
    connect(m_issues, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        m_editor->gotoLine(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
        m_editor->setFocus();
    });
    connect(m_issues, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        m_editor->gotoLine(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
    });

    m_parameters = new QWidget;
    m_parameters->setObjectName("parameters");
    m_parameterForm = new QFormLayout(m_parameters);

    m_irView = new QPlainTextEdit;
    m_irView->setObjectName("irView");
    m_irView->setReadOnly(true);
    m_irView->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_irView->setFont(m_editor->font());
    connect(m_irView, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (!m_updatingIr)
            linkIrLine(m_irView->textCursor().blockNumber());
    });

    m_runPanel = new RunPanel(m_canvases);
    m_gpuLabel = m_runPanel->gpuLabel();
    m_runOutput = m_runPanel->output();
    m_history = m_runPanel->history();
    connect(m_runPanel, &RunPanel::actionFinished, this,
            [this](const QString& summary) { statusBar()->showMessage(summary, 8000); });

    QDockWidget* issues = addDock("Issues", "issuesDock", m_issues, Qt::BottomDockWidgetArea);
    QDockWidget* params = addDock("Parameters", "parametersDock", m_parameters, Qt::LeftDockWidgetArea);
    QDockWidget* runDock = addDock("Run", "runDock", m_runPanel, Qt::LeftDockWidgetArea);
    m_lessonPanel = new LessonPanel;
    QDockWidget* lessonDock = addDock("Lesson", "lessonDock", m_lessonPanel, Qt::LeftDockWidgetArea);
    lessonDock->hide(); // Help > Lessons shows it
    QDockWidget* ir = addDock("Tile IR", "irDock", m_irView, Qt::BottomDockWidgetArea);
    tabifyDockWidget(issues, ir);
    issues->raise();
    splitDockWidget(params, runDock, Qt::Vertical);
    QDockWidget* layout =
        addDock("Layout", "layoutDock", m_canvases->layoutCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* bank =
        addDock("Bank conflicts", "bankDock", m_canvases->bankCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* warp =
        addDock("Warp partition", "warpDock", m_canvases->warpCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* budget =
        addDock("Shared-memory budget", "budgetDock", m_canvases->budgetCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* sweep =
        addDock("Stage sweep", "sweepDock", m_canvases->sweepCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* movement =
        addDock("Data movement", "movementDock", m_canvases->movementCanvas(), Qt::RightDockWidgetArea);
    QDockWidget* schedule =
        addDock("Pipeline schedule", "scheduleDock", m_canvases->scheduleCanvas(), Qt::RightDockWidgetArea);
    tabifyDockWidget(layout, bank);
    tabifyDockWidget(bank, warp);
    tabifyDockWidget(warp, movement);
    splitDockWidget(layout, budget, Qt::Vertical);
    tabifyDockWidget(budget, sweep);
    tabifyDockWidget(sweep, schedule);
    layout->raise();
    budget->raise();
    resizeDocks({layout}, {720}, Qt::Horizontal);
    resizeDocks({params}, {300}, Qt::Horizontal);
    resizeDocks({params, runDock}, {180, 600}, Qt::Vertical);
    resizeDocks({layout, budget}, {600, 300}, Qt::Vertical);

    // Code views: generated CUDA, PTX, SASS and the IR after each pass, tabbed with the Tile IR.
    m_codeViews = new CodeViews(m_editor->font(), this);
    QDockWidget* cudaDock = addDock("CUDA", "cudaDock", m_codeViews->cudaPanel(), Qt::BottomDockWidgetArea);
    QDockWidget* ptxDock = addDock("PTX", "ptxDock", m_codeViews->ptxPanel(), Qt::BottomDockWidgetArea);
    QDockWidget* sassDock = addDock("SASS", "sassDock", m_codeViews->sassPanel(), Qt::BottomDockWidgetArea);
    QDockWidget* passesDock =
        addDock("Passes", "passesDock", m_codeViews->passesPanel(), Qt::BottomDockWidgetArea);
    tabifyDockWidget(ir, cudaDock);
    tabifyDockWidget(cudaDock, ptxDock);
    tabifyDockWidget(ptxDock, sassDock);
    tabifyDockWidget(sassDock, passesDock);
    issues->raise();
    connect(m_codeViews, &CodeViews::lineClicked, this, [this](int line) { m_editor->gotoLine(line); });
    // ptxas's registers reach the budget view's occupancy; its button asks for a compile.
    connect(m_codeViews, &CodeViews::machineCodeReady, this,
            [this](quint64 generation, std::shared_ptr<const GeneratedMachineCode> code) {
                if (code && code->ptxOk && !code->kernels.empty())
                    m_canvases->setKernelRegisters(generation, code->kernels.front().registers,
                                                   "ptxas for " + code->arch);
            });
    connect(m_canvases, &CanvasPanels::registersRequested, m_codeViews, &CodeViews::requestMachineCode);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&New", QKeySequence::New, this, [this] { newDocument(); });
    file->addAction("&Open...", QKeySequence::Open, this, [this] {
        QString path =
            QFileDialog::getOpenFileName(this, "Open tile program", QString(), "Tile programs (*.py)");
        if (!path.isEmpty())
            openFile(path);
    });
    file->addAction("&Save", QKeySequence::Save, this, [this] {
        QString path = m_path;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this, "Save tile program", m_displayName,
                                                "Tile programs (*.py)");
        if (!path.isEmpty())
            saveTo(path);
    });
    file->addAction("Save &As...", QKeySequence::SaveAs, this, [this] {
        QString path =
            QFileDialog::getSaveFileName(this, "Save tile program", m_displayName, "Tile programs (*.py)");
        if (!path.isEmpty())
            saveTo(path);
    });
    m_recentMenu = file->addMenu("Recent &Files");
    QMenu* samples = file->addMenu("Open &Sample");
    for (const SampleInfo& s : listSamples()) {
        QAction* a = samples->addAction(QString::fromStdString(s.fileName), this,
                                        [this, name = QString::fromStdString(s.name)] { openSample(name); });
        a->setToolTip(QString::fromStdString(s.description));
    }
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    buildEditMenu();

    QMenu* run = menuBar()->addMenu("&Run");
    run->addAction("&Run", QKeySequence("Ctrl+R"), this, &MainWindow::runProgram);
    run->addAction("&Bench", QKeySequence("Ctrl+B"), this, [this] { m_runPanel->bench(); });
    run->addAction("&Profile", QKeySequence("Ctrl+P"), this, [this] { m_runPanel->profile(); });
    run->addAction("S&weep num_stages", this, [this] { m_runPanel->sweep(); });
    run->addAction("&Cancel", QKeySequence("Ctrl+."), this, [this] { m_runPanel->cancel(); });
    run->addAction("Next &Diagnostic", QKeySequence(Qt::Key_F8), this,
                   [this] { m_editor->gotoNextDiagnostic(); });

    QMenu* view = menuBar()->addMenu("&View");
    QAction* dark = view->addAction("&Dark Theme");
    dark->setCheckable(true);
    dark->setChecked(true);
    connect(dark, &QAction::toggled, this, [this](bool on) { setDarkTheme(on); });
    QMenu* backends = view->addMenu("&Backend");
    auto* group = new QActionGroup(this);
    for (const std::string& name : knownBackendNames()) {
        QAction* a = backends->addAction(QString::fromStdString(name));
        a->setCheckable(true);
        a->setChecked(parseBackend(name) == m_backend);
        a->setActionGroup(group);
        connect(a, &QAction::triggered, this, [this, name] { setBackend(*parseBackend(name)); });
        m_backendActions.push_back(a);
    }
    view->addAction("&Reset Layout", this, [this] { resetLayout(); });
    view->addSeparator();
    for (QDockWidget* d : m_docks)
        view->addAction(d->toggleViewAction());

    QMenu* help = menuBar()->addMenu("&Help");
    QMenu* lessonMenu = help->addMenu("&Lessons");
    for (const Lesson& l : lessons())
        lessonMenu->addAction(QString("%1. %2").arg(l.number).arg(QString::fromStdString(l.title)), this,
                              [this, number = l.number] { openLesson(number); });
}

void MainWindow::buildEditMenu() {
    QMenu* edit = menuBar()->addMenu("&Edit");
    QAction* undo = edit->addAction("&Undo", QKeySequence::Undo, m_editor, &QPlainTextEdit::undo);
    QAction* redo = edit->addAction("&Redo", QKeySequence::Redo, m_editor, &QPlainTextEdit::redo);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(m_editor, &QPlainTextEdit::undoAvailable, undo, &QAction::setEnabled);
    connect(m_editor, &QPlainTextEdit::redoAvailable, redo, &QAction::setEnabled);
    edit->addSeparator();
    edit->addAction("Cu&t", QKeySequence::Cut, m_editor, &QPlainTextEdit::cut);
    edit->addAction("&Copy", QKeySequence::Copy, m_editor, &QPlainTextEdit::copy);
    edit->addAction("&Paste", QKeySequence::Paste, m_editor, &QPlainTextEdit::paste);
    edit->addAction("Select &All", QKeySequence::SelectAll, m_editor, &QPlainTextEdit::selectAll);
    edit->addSeparator();
    // The bar beside whatever has focus: the editor's, or a code view's.
    const auto bar = [this] {
        FindBar* near = FindBar::nearest(focusWidget()); // the window's focus child, active or not
        return near ? near : m_findBar;
    };
    edit->addAction("&Find...", QKeySequence::Find, this, [bar] { bar()->openFind(); });
    edit->addAction("Find &Next", QKeySequence::FindNext, this, [bar] { bar()->findNext(); });
    edit->addAction("Find Pre&vious", QKeySequence::FindPrevious, this, [bar] { bar()->findNext(true); });
    edit->addAction("R&eplace...", QKeySequence("Ctrl+H"), this, [bar] { bar()->openReplace(); });
    edit->addAction("&Go to Line...", QKeySequence("Ctrl+G"), this, [this] {
        bool ok = false;
        const int last = m_editor->document()->blockCount();
        const int line = QInputDialog::getInt(this, "Go to Line", QString("Line (1-%1):").arg(last),
                                              m_editor->currentLine(), 1, last, 1, &ok);
        if (ok)
            m_editor->gotoLine(line);
    });
}

void MainWindow::resetLayout() {
    restoreState(m_defaultLayout);
    for (QDockWidget* d : m_docks)
        if (d->isFloating())
            d->setFloating(false);
    statusBar()->showMessage("window layout reset", 3000);
}

bool MainWindow::openLesson(int number) {
    const Lesson* lesson = findLesson(number);
    if (!lesson)
        return false;
    std::string error;
    const std::string exercise = lessonExercise(*lesson, error);
    if (exercise.empty()) {
        statusBar()->showMessage(QString::fromStdString(error), 5000);
        return false;
    }
    if (!confirmReplacingDocument(QString("opening lesson %1").arg(number)))
        return false;
    replaceDocument(QString::fromStdString(exercise), QString(),
                    QString("lesson%1_%2.py").arg(number).arg(QString::fromStdString(lesson->sample)));
    m_sampleCopy = true;
    updateTitle();
    m_lessonPanel->showLesson(*lesson);
    if (QDockWidget* d = dock("lessonDock")) {
        d->show();
        d->raise();
    }
    return true;
}

void MainWindow::setBackend(Backend backend) {
    for (QAction* a : m_backendActions)
        a->setChecked(parseBackend(a->text().toStdString()) == backend);
    m_canvases->setBackend(backendName(backend));
    if (backend == m_backend)
        return;
    m_backend = backend;
    statusBar()->showMessage(QString("re-planning for the %1 backend").arg(backendName(backend)), 4000);
    scheduleCompile(0);
}

void MainWindow::setDarkTheme(bool dark) {
    m_dark = dark;
    qApp->setPalette(themePalette(dark));
    m_editor->setDarkTheme(dark);
    m_canvases->setDarkTheme(dark);
    if (m_codeViews)
        m_codeViews->setDarkTheme(dark);
}

void MainWindow::updateTitle() {
    setWindowTitle(QString("%1%2%3 - TileBench")
                       .arg(m_displayName, m_sampleCopy ? " (copy of the sample, not saved yet)" : "",
                            m_dirty ? " *" : ""));
}

bool MainWindow::confirmReplacingDocument(const QString& what, bool autosaveFirst) {
    if (!m_dirty)
        return true;
    if (autosaveFirst)
        autosaveNow(); // the latest edits are on disk while the question is open
    QMessageBox box(QMessageBox::Warning, "Unsaved changes",
                    QString("Save changes to %1 before %2?").arg(m_displayName, what),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName("unsavedChangesDialog");
    box.setInformativeText("Discard loses the edits; Cancel keeps them.");
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save: {
        QString path = m_path.isEmpty() ? QFileDialog::getSaveFileName(this, "Save tile program",
                                                                       m_displayName, "Tile programs (*.py)")
                                        : m_path;
        if (path.isEmpty() || !saveTo(path)) {
            if (!path.isEmpty())
                statusBar()->showMessage("cannot write " + path + ": the document was kept", 8000);
            return false;
        }
        return true;
    }
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::replaceDocument(const QString& text, const QString& path, const QString& displayName) {
    m_path = path;
    m_sampleCopy = false;
    m_displayName = displayName;
    m_overrides.clear();
    m_editor->setPlainText(text);
    m_editor->document()->setModified(false);
    m_dirty = false;
    // The user has decided about the old document (saved or discarded): its autosave can go.
    m_recovery.clear();
    updateTitle();
    scheduleCompile(0);
}

bool MainWindow::openFile(const QString& path) {
    std::string text;
    if (!readTextFile(path.toStdString(), text)) {
        statusBar()->showMessage("cannot read " + path, 5000);
        return false;
    }
    if (!confirmReplacingDocument("opening " + QFileInfo(path).fileName()))
        return false;
    replaceDocument(QString::fromStdString(text), QFileInfo(path).absoluteFilePath(),
                    QFileInfo(path).fileName());
    addRecentFile(m_path);
    return true;
}

bool MainWindow::newDocument() {
    if (!confirmReplacingDocument("starting a new file"))
        return false;
    replaceDocument(QString(), QString(), "untitled.py");
    return true;
}

bool MainWindow::openDroppedFiles(const QList<QUrl>& urls) {
    for (const QUrl& url : urls)
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
            return openFile(url.toLocalFile()); // one document at a time: the first file
    return false;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) {
            event->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent* event) {
    if (openDroppedFiles(event->mimeData()->urls()))
        event->acceptProposedAction();
}

bool MainWindow::openSample(const QString& name) {
    auto sample = findSample(name.toStdString());
    if (!sample) {
        statusBar()->showMessage("no sample named " + name, 5000);
        return false;
    }
    std::string text;
    if (!readTextFile(sample->path, text)) {
        statusBar()->showMessage("cannot read " + QString::fromStdString(sample->path), 5000);
        return false;
    }
    const QString fileName = QString::fromStdString(sample->fileName);
    if (!confirmReplacingDocument("opening the sample " + fileName))
        return false;
    // A sample opens as an untitled copy: Save asks where to put it, so a lesson is never overwritten.
    replaceDocument(QString::fromStdString(text), QString(), fileName);
    m_sampleCopy = true;
    updateTitle();
    return true;
}

bool MainWindow::saveTo(const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(m_editor->toPlainText().toUtf8());
    if (!file.commit())
        return false;
    m_path = QFileInfo(path).absoluteFilePath();
    m_displayName = QFileInfo(path).fileName();
    m_sampleCopy = false;
    m_editor->document()->setModified(false);
    m_dirty = false;
    m_recovery.clear();
    addRecentFile(m_path);
    updateTitle();
    statusBar()->showMessage("saved " + m_path, 4000);
    return true;
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(kSettingsRecent).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10)
        recent.removeLast();
    settings.setValue(kSettingsRecent, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (const QString& path : QSettings().value(kSettingsRecent).toStringList())
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::setOverride(const QString& name, const QString& value) {
    if (value.trimmed().isEmpty())
        m_overrides.erase(name.toStdString());
    else
        m_overrides[name.toStdString()] = value.trimmed().toStdString();
    scheduleCompile(0);
}

void MainWindow::openStagesVariant(int stages) {
    AnalysisPtr a = m_compiler.current();
    const QString value = QString::number(stages);
    bool jitParameter = false;
    if (a && a->compile && a->compile->module)
        for (const ir::SpecializationParam& p : a->compile->module->specialization)
            jitParameter = jitParameter || p.name == "num_stages";
    std::vector<profile::KeywordLiteral> literals;
    if (a && a->compile && !jitParameter)
        literals = profile::findKeywordLiterals(*a->compile, "num_stages");
    if (literals.empty()) {
        setOverride("num_stages", value); // a jit parameter: re-specialize
        return;
    }
    // A literal: edit it as the user would, in one undoable step (Ctrl+Z restores it). An override of the
    // same name would change nothing (unused-override): it goes.
    m_overrides.erase("num_stages");
    const std::string& text = a->sources().file(a->compile->file).text();
    if (QString::fromStdString(text) != m_editor->toPlainText()) {
        statusBar()->showMessage("the program changed since it was analysed; click the point again", 5000);
        return;
    }
    QTextCursor cursor(m_editor->document());
    cursor.beginEditBlock();
    for (auto it = literals.rbegin(); it != literals.rend(); ++it) {
        // Byte offsets of the UTF-8 text -> positions in the editor's UTF-16 text.
        int begin = int(QString::fromUtf8(text.data(), qsizetype(it->begin)).size());
        int end = int(QString::fromUtf8(text.data(), qsizetype(it->end)).size());
        cursor.setPosition(begin);
        cursor.setPosition(end, QTextCursor::KeepAnchor);
        cursor.insertText(value);
    }
    cursor.endEditBlock();
    statusBar()->showMessage(
        QString("num_stages=%1 written at line %2 (Ctrl+Z undoes)").arg(value).arg(literals.front().line),
        5000);
}

void MainWindow::scheduleCompile(int debounceMs) {
    CompileOptions options;
    options.backend = m_backend;
    for (const auto& [name, value] : m_overrides)
        options.elaborate.overrides.push_back({name, value});
    m_compiler.request(m_displayName, m_editor->toPlainText(), options, debounceMs);
}

bool MainWindow::compileNow(int timeoutMs) {
    scheduleCompile(0);
    return m_compiler.waitForIdle(timeoutMs);
}

void MainWindow::showAnalysis(const AnalysisPtr& analysis) {
    // Issues dock and editor diagnostics.
    std::vector<EditorDiagnostic> editorDiagnostics;
    m_issues->clear();
    for (const Diagnostic& d : analysis->diagnostics()) {
        EditorDiagnostic e = toEditorDiagnostic(*analysis, d);
        auto* item = new QListWidgetItem(QString("%1:%2: %3: %4 [%5]")
                                             .arg(e.line)
                                             .arg(e.column)
                                             .arg(severityName(d.severity), e.message, e.code));
        item->setToolTip(e.tooltip());
        item->setData(Qt::UserRole, e.line);
        item->setData(Qt::UserRole + 1, e.column);
        item->setForeground(e.error ? QColor("#f14c4c") : QColor("#cca700"));
        m_issues->addItem(item);
        // The hint is the fix: a child row under its diagnostic, not only a tooltip.
        if (!e.hint.isEmpty()) {
            auto* hint = new QListWidgetItem("      hint: " + e.hint);
            hint->setToolTip(e.tooltip());
            hint->setData(Qt::UserRole, e.line);
            hint->setData(Qt::UserRole + 1, e.column);
            hint->setData(kIssueHintRole, true);
            QFont italic = hint->font();
            italic.setItalic(true);
            hint->setFont(italic);
            m_issues->addItem(hint);
        }
        editorDiagnostics.push_back(e);
    }
    const int diagnosticCount = int(editorDiagnostics.size());
    m_editor->setDiagnostics(std::move(editorDiagnostics));
    if (QDockWidget* d = dock("issuesDock"))
        d->setWindowTitle(QString("Issues (%1)").arg(diagnosticCount));

    // IR listing.
    if (analysis->compile->module) {
        QStringList lines;
        for (const ir::PrintedLine& l : analysis->irLines)
            lines << QString::fromStdString(l.text);
        m_updatingIr = true;
        m_irView->setPlainText(lines.join('\n'));
        m_updatingIr = false;
    } else {
        // No Tile IR for this text: the old listing would be of another program.
        m_updatingIr = true;
        m_irView->setPlainText("out of date: the program has errors (see Issues); no Tile IR was built");
        m_updatingIr = false;
    }
    updateParameters(analysis);
    m_canvases->setAnalysis(analysis);
    m_runPanel->setAnalysis(analysis, m_displayName);
    m_codeViews->setAnalysis(analysis);
    linkSourceLine(m_editor->currentLine());
    statusBar()->showMessage(QString("compiled in %1 ms, layouts planned in %2 ms%3")
                                 .arg(analysis->compileMilliseconds, 0, 'f', 1)
                                 .arg(analysis->planMilliseconds, 0, 'f', 1)
                                 .arg(analysis->ok() ? "" : " (errors: see Issues)"));
}

void MainWindow::updateParameters(const AnalysisPtr& analysis) {
    if (!analysis->compile->module)
        return;
    const auto& params = analysis->compile->module->specialization;
    // Rebuild the form only when the parameter list changed, so editing a field keeps its focus.
    QByteArray signature;
    for (const ir::SpecializationParam& p : params)
        signature +=
            QByteArray::fromStdString(p.name + "=" + p.text + "/" + ir::paramOriginName(p.origin) + ";");
    if (signature == m_parameterSignature)
        return;
    m_parameterSignature = signature;
    while (m_parameterForm->rowCount() > 0)
        m_parameterForm->removeRow(0);
    if (!analysis->compile->module->jitFunction.empty())
        m_parameterForm->addRow(
            new QLabel("jit function " + QString::fromStdString(analysis->compile->module->jitFunction)));
    for (const ir::SpecializationParam& p : params) {
        auto* edit = new QLineEdit(QString::fromStdString(p.text));
        edit->setObjectName("param_" + QString::fromStdString(p.name));
        edit->setToolTip(QString("origin: %1").arg(ir::paramOriginName(p.origin)));
        connect(
            edit, &QLineEdit::editingFinished, this,
            [this, edit, name = QString::fromStdString(p.name), original = QString::fromStdString(p.text)] {
                if (edit->text() != original || m_overrides.count(name.toStdString()))
                    setOverride(name, edit->text());
            });
        m_parameterForm->addRow(
            QString("%1 [%2]").arg(QString::fromStdString(p.name), ir::paramOriginName(p.origin)), edit);
    }
}

void MainWindow::linkSourceLine(int line) {
    AnalysisPtr a = m_compiler.current();
    m_canvases->setLinkedLine(line);
    m_codeViews->setLinkedLine(line);
    if (!a)
        return;
    m_irLinked = a->irLinesOfSourceLine(uint32_t(std::max(0, line)));
    QList<QTextEdit::ExtraSelection> selections;
    for (int irLine : m_irLinked) {
        QTextEdit::ExtraSelection s;
        s.format.setBackground(m_dark ? QColor("#3a3d1e") : QColor("#fff3a0"));
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(m_irView->document()->findBlockByNumber(irLine));
        selections.append(s);
    }
    m_irView->setExtraSelections(selections);
    if (!m_irLinked.empty()) {
        m_updatingIr = true;
        QTextCursor c(m_irView->document()->findBlockByNumber(m_irLinked.front()));
        m_irView->setTextCursor(c);
        m_irView->ensureCursorVisible();
        m_updatingIr = false;
    }
}

void MainWindow::linkIrLine(int irLine) {
    AnalysisPtr a = m_compiler.current();
    if (!a)
        return;
    uint32_t line = a->sourceLineOfIrLine(irLine);
    m_editor->setLinkedLines(line ? std::vector<int>{int(line)} : std::vector<int>{});
    if (line)
        m_canvases->setLinkedLine(int(line));
}

void MainWindow::runProgram() {
    m_runPanel->run();
}

bool MainWindow::waitForRun(int timeoutMs) {
    return m_runPanel->waitForIdle(timeoutMs);
}

void MainWindow::autosaveNow() {
    if (m_recovery.save(m_editor->toPlainText(), m_path))
        statusBar()->showMessage("autosaved unsaved edits", 1500);
}

bool MainWindow::recoverUnsavedWork(bool ask) {
    QString text, origin;
    if (!m_recovery.exists() || !m_recovery.load(text, origin))
        return false;
    if (ask && QMessageBox::question(
                   this, "Recover unsaved work?",
                   QString("TileBench found unsaved edits%1 from a previous session. Recover them?")
                       .arg(origin.isEmpty() ? "" : " to " + origin)) != QMessageBox::Yes) {
        m_recovery.clear();
        return false;
    }
    if (!confirmReplacingDocument("recovering the unsaved edits", /*autosaveFirst=*/false))
        return false;
    m_path = origin;
    m_displayName = origin.isEmpty() ? "recovered.py" : QFileInfo(origin).fileName();
    m_overrides.clear();
    m_editor->setPlainText(text);
    m_editor->document()->setModified(true);
    m_dirty = true;
    updateTitle();
    scheduleCompile(0);
    return true;
}

bool MainWindow::saveScreenshots(const QString& directory) {
    QDir().mkpath(directory);
    // Let the new analysis reach every panel (the parameter form is rebuilt from it) before the first grab.
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < 500)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    bool ok = grab().save(directory + "/main-window.png");
    for (QDockWidget* d : m_docks) {
        d->show();
        d->raise();
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 300)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_codeViews->ownsPanel(d->widget()))
            m_codeViews->waitForIdle(30000); // PTX/SASS compile once their dock is shown
        QString name = d->objectName();
        name.chop(4); // "layoutDock" -> "layout"
        if (auto* canvas = qobject_cast<views::ImGuiCanvas*>(d->widget()))
            ok = canvas->renderImage().save(directory + "/" + name + ".png") && ok;
        else
            ok = d->widget()->grab().save(directory + "/" + name + ".png") && ok;
    }
    ok = m_editor->grab().save(directory + "/editor.png") && ok;
    return ok;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue(kSettingsGeometry, saveGeometry());
    settings.setValue(kSettingsState, saveState());
    settings.setValue(kSettingsDark, m_dark);
    if (!confirmReplacingDocument("closing")) {
        event->ignore();
        return;
    }
    m_recovery.clear(); // a clean exit leaves nothing to recover
    event->accept();
}

} // namespace tb::app
