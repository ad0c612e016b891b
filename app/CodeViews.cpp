// The CUDA, PTX, SASS and Passes docks: the listings, their links to the tile program, and the two
// workers that fill them (see CodeViews.h).
#include "app/CodeViews.h"

#include "app/CodeDiffPanel.h"
#include "app/FindBar.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QLabel>
#include <QMetaObject>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace tb::app {

// ---- LinkedCodeView ----

LinkedCodeView::LinkedCodeView(const QFont& font, QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(font);
    // Keyboard navigation moves the cursor too, so arrowing through a listing walks the tile program.
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (m_updating || !m_code)
            return;
        if (int tile = tileLineOf(textCursor().blockNumber() + 1))
            Q_EMIT tileLineClicked(tile);
    });
}

void LinkedCodeView::mouseReleaseEvent(QMouseEvent* event) {
    QPlainTextEdit::mouseReleaseEvent(event);
    if (m_code && event->button() == Qt::LeftButton && !textCursor().hasSelection())
        if (int tile = tileLineOf(cursorForPosition(event->position().toPoint()).blockNumber() + 1))
            Q_EMIT tileLineClicked(tile);
}

void LinkedCodeView::setContent(const QString& text, std::vector<int> tileLines) {
    m_updating = true;
    int scroll = verticalScrollBar() ? verticalScrollBar()->value() : 0;
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setPlainText(text);
    m_tileLines = std::move(tileLines);
    m_code = true;
    verticalScrollBar()->setValue(scroll); // a recompile of the same program keeps the place
    m_updating = false;
    applyHighlight();
}

void LinkedCodeView::setMessage(const QString& message) {
    m_updating = true;
    setLineWrapMode(QPlainTextEdit::WidgetWidth); // messages wrap; code does not
    setPlainText(message);
    m_tileLines.clear();
    m_code = false;
    m_updating = false;
    applyHighlight();
}

void LinkedCodeView::setLinkedTileLine(int tileLine) {
    m_linkedTileLine = tileLine;
    applyHighlight();
}

void LinkedCodeView::setDarkTheme(bool dark) {
    m_dark = dark;
    applyHighlight();
}

int LinkedCodeView::tileLineOf(int line) const {
    return line >= 1 && size_t(line) <= m_tileLines.size() ? m_tileLines[size_t(line) - 1] : 0;
}

void LinkedCodeView::applyHighlight() {
    m_highlighted = linesLinkedTo(m_tileLines, m_linkedTileLine);
    QList<QTextEdit::ExtraSelection> selections;
    QColor background = m_dark ? QColor("#3a3d1e") : QColor("#fff3a0");
    for (int line : m_highlighted) {
        QTextEdit::ExtraSelection s;
        s.format.setBackground(background);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(document()->findBlockByNumber(line - 1));
        selections.append(s);
    }
    setExtraSelections(selections);
    if (m_highlighted.empty())
        return;
    int current = textCursor().blockNumber() + 1;
    if (std::binary_search(m_highlighted.begin(), m_highlighted.end(), current))
        return; // the user is on one of them (they clicked it): leave the view where it is
    m_updating = true;
    setTextCursor(QTextCursor(document()->findBlockByNumber(m_highlighted.front() - 1)));
    centerCursor();
    m_updating = false;
}

// ---- CodeViews ----

struct CodeViews::CodeResult {
    uint64_t generation = 0;
    uint64_t analysisGeneration = 0;           // ProgramAnalysis::generation of the analysis it was made from
    std::shared_ptr<const GeneratedCuda> cuda; // null when the program has errors
    std::vector<PassSnapshot> snapshots;
    std::string arch;
    double milliseconds = 0;
};

namespace {

QWidget* makePanel(const QString& name, QLabel* status, QWidget* picker, QWidget* view,
                   QWidget* below = nullptr) {
    auto* panel = new QWidget;
    panel->setObjectName(name);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    status->setWordWrap(true);
    status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (picker)
        layout->addWidget(picker);
    layout->addWidget(status);
    layout->addWidget(view, 1);
    if (auto* text = qobject_cast<QPlainTextEdit*>(view))
        layout->addWidget(new FindBar(text, panel)); // Edit > Find while the view has focus
    if (below)
        layout->addWidget(below);
    return panel;
}

QString resourcesLine(const GeneratedMachineCode& code) {
    QStringList parts;
    for (const KernelResources& k : code.kernels)
        parts << QString("%1: %2 registers, %3 B static shared, %4 B spill stores, %5 B spill loads")
                     .arg(QString::fromStdString(k.name))
                     .arg(k.registers)
                     .arg(k.sharedBytes)
                     .arg(k.spillStoreBytes)
                     .arg(k.spillLoadBytes);
    return parts.join("\n");
}

} // namespace

CodeViews::CodeViews(const QFont& font, QObject* parent)
    : QObject(parent), m_cuda(new LinkedCodeView(font)), m_ptx(new LinkedCodeView(font)),
      m_sass(new LinkedCodeView(font)), m_pass(new LinkedCodeView(font)), m_cudaStatus(new QLabel),
      m_diff(new CodeDiffPanel(font)), m_ptxStatus(new QLabel), m_sassStatus(new QLabel),
      m_passStatus(new QLabel), m_picker(new QComboBox) {
    m_cuda->setObjectName("cudaView");
    m_ptx->setObjectName("ptxView");
    m_sass->setObjectName("sassView");
    m_pass->setObjectName("passView");
    m_picker->setObjectName("passPicker");
    for (const PassInfo& p : pipelinePasses()) {
        m_picker->addItem(p.name);
        m_picker->setItemData(m_picker->count() - 1, QString(p.summary), Qt::ToolTipRole);
    }
    m_picker->setCurrentText("elaborate");
    m_cudaPanel = makePanel("cudaPanel", m_cudaStatus, nullptr, m_cuda, m_diff);
    m_ptxPanel = makePanel("ptxPanel", m_ptxStatus, nullptr, m_ptx);
    m_sassPanel = makePanel("sassPanel", m_sassStatus, nullptr, m_sass);
    m_passesPanel = makePanel("passesPanel", m_passStatus, m_picker, m_pass);
    for (LinkedCodeView* v : {m_cuda, m_ptx, m_sass, m_pass}) {
        v->setMessage("no program yet");
        connect(v, &LinkedCodeView::tileLineClicked, this, &CodeViews::lineClicked);
    }
    connect(m_picker, &QComboBox::currentIndexChanged, this, [this] { showPass(); });

    m_codePool.setMaxThreadCount(1);
    m_machinePool.setMaxThreadCount(1);
    m_machineDebounce.setSingleShot(true);
    connect(&m_machineDebounce, &QTimer::timeout, this, &CodeViews::startMachineCode);
    // Compile PTX/SASS when their dock appears (shown, or raised from a tab).
    m_ptxPanel->installEventFilter(this);
    m_sassPanel->installEventFilter(this);
}

CodeViews::~CodeViews() {
    m_machineDebounce.stop();
    m_codePool.waitForDone();
    m_machinePool.waitForDone();
}

bool CodeViews::ownsPanel(const QWidget* widget) const {
    return widget == m_cudaPanel || widget == m_ptxPanel || widget == m_sassPanel || widget == m_passesPanel;
}

bool CodeViews::eventFilter(QObject* watched, QEvent* event) {
    // A dock tab that is not current keeps its widgets "visible" but moves them off screen, so raising the
    // tab (or floating the dock) shows up as a move or resize; showing a hidden dock as a Show.
    // The tab's move is the dock's (the panel keeps its place inside it), so the docks are watched too.
    bool machinePanel = watched == m_ptxPanel || watched == m_sassPanel;
    bool machineDock =
        watched && (watched == m_ptxPanel->parentWidget() || watched == m_sassPanel->parentWidget());
    QEvent::Type type = event->type();
    if ((machinePanel || machineDock) &&
        (type == QEvent::Show || type == QEvent::Move || type == QEvent::Resize))
        scheduleMachineCode(50);
    if (machinePanel && type == QEvent::ParentChange)
        if (QWidget* parent = static_cast<QWidget*>(watched)->parentWidget())
            parent->installEventFilter(this); // installing twice still filters once
    return QObject::eventFilter(watched, event);
}

namespace {

bool onScreen(const QWidget* panel) {
    return panel->isVisible() && !panel->visibleRegion().isEmpty();
}

} // namespace

bool CodeViews::ptxVisible() const {
    return onScreen(m_ptxPanel);
}
bool CodeViews::sassVisible() const {
    return onScreen(m_sassPanel);
}

void CodeViews::setAnalysis(const AnalysisPtr& analysis) {
    if (!analysis || !analysis->compile)
        return;
    m_diff->setAnalysis(analysis);
    uint64_t generation = ++m_generation;
    ++m_codeRunning;
    m_codePool.start([this, generation, analysis] {
        auto result = std::make_shared<CodeResult>();
        result->generation = generation;
        result->analysisGeneration = analysis->generation;
        result->arch = analysis->plan && !analysis->plan->target.name.empty() ? analysis->plan->target.name
                                                                              : std::string("sm_90a");
        auto start = std::chrono::steady_clock::now();
        if (analysis->ok() && analysis->plan)
            result->cuda = std::make_shared<const GeneratedCuda>(generateCudaText(*analysis->compile));
        result->snapshots = passSnapshots(*analysis->compile);
        result->milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        QMetaObject::invokeMethod(
            this,
            [this, result] {
                --m_codeRunning;
                showCode(result);
            },
            Qt::QueuedConnection);
    });
}

void CodeViews::showCode(const std::shared_ptr<CodeResult>& result) {
    if (result->generation != m_generation) {
        ++m_dropped; // a newer analysis is on its way
        return;
    }
    m_codeGeneration = result->generation;
    m_codeAnalysisGeneration = result->analysisGeneration;
    m_arch = result->arch;
    m_cudaResult = result->cuda;
    m_snapshots = result->snapshots;
    if (!m_cudaResult) {
        m_cuda->setMessage("no CUDA: the program has errors (see Issues)");
        m_cudaStatus->setText("not generated");
    } else if (!m_cudaResult->ok) {
        m_cuda->setMessage("code generation failed:\n" + QString::fromStdString(m_cudaResult->message));
        m_cudaStatus->setText("code generation failed");
    } else {
        m_cuda->setContent(QString::fromStdString(m_cudaResult->text), m_cudaResult->tileLines);
        QStringList kernels;
        for (const GeneratedCudaUnit& u : m_cudaResult->units)
            for (const std::string& k : u.kernels)
                kernels << QString::fromStdString(k);
        m_cudaStatus->setText(
            QString("%1 (%2 backend, planned for %3); generated in %4 ms with the pass snapshots")
                .arg(kernels.join(", "), backendName(m_cudaResult->backend),
                     QString::fromStdString(m_cudaResult->planTarget))
                .arg(result->milliseconds, 0, 'f', 1));
    }
    m_cuda->setLinkedTileLine(m_linkedLine);
    showPass();

    // The machine code shown belongs to an older program now.
    if (m_machine && m_machineGeneration != m_codeGeneration) {
        QString stale = "(for an earlier version of the program; recompiling when this dock is visible)";
        m_ptxStatus->setText(stale);
        m_sassStatus->setText(stale);
    }
    if (!m_cudaResult || !m_cudaResult->ok) {
        QString why = "no PTX/SASS: there is no generated CUDA for this version of the program";
        m_ptx->setMessage(why);
        m_sass->setMessage(why);
        m_ptxStatus->setText("");
        m_sassStatus->setText("");
        m_machine.reset();
        m_machineGeneration = m_codeGeneration;
        return;
    }
    if (!m_machine) {
        QString when = "compiled with NVRTC for %1 while this dock is shown";
        m_ptx->setMessage(when.arg(QString::fromStdString(m_arch)));
        m_sass->setMessage(when.arg(QString::fromStdString(m_arch)) + ", then disassembled");
    }
    scheduleMachineCode(250);
}

void CodeViews::showPass() {
    int index = m_picker->currentIndex();
    if (index < 0 || size_t(index) >= m_snapshots.size()) {
        m_pass->setMessage("no program yet");
        return;
    }
    const PassSnapshot& s = m_snapshots[size_t(index)];
    m_passStatus->setText(QString::fromStdString(s.summary) + (s.ran ? "" : "  (did not run)"));
    m_pass->setContent(QString::fromStdString(s.text), s.tileLines);
    m_pass->setLinkedTileLine(m_linkedLine);
}

bool CodeViews::machineCodeWanted() const {
    if (!m_cudaResult || !m_cudaResult->ok)
        return false;
    bool current = m_machine && m_machineGeneration == m_codeGeneration;
    return ((ptxVisible() || m_machineRequested) && !current) ||
           (sassVisible() && (!current || !m_machineHasSass));
}

void CodeViews::scheduleMachineCode(int debounceMs) {
    m_machineDebounce.start(std::max(0, debounceMs));
}

void CodeViews::startMachineCode() {
    if (!machineCodeWanted())
        return;
    if (m_machineRunning > 0) {
        // One NVRTC job at a time: look again when it finishes (it will be dropped if stale).
        scheduleMachineCode(100);
        return;
    }
    uint64_t generation = m_codeGeneration;
    m_machineAnalysisGeneration = m_codeAnalysisGeneration;
    bool wantSass = sassVisible();
    std::shared_ptr<const GeneratedCuda> cuda = m_cudaResult;
    std::string arch = m_arch;
    QString compiling = QString("compiling with NVRTC for %1...").arg(QString::fromStdString(arch));
    m_ptxStatus->setText(compiling);
    if (wantSass)
        m_sassStatus->setText(compiling + " then disassembling");
    if (!m_machine) {
        m_ptx->setMessage(compiling);
        if (wantSass)
            m_sass->setMessage(compiling);
    }
    ++m_machineRunning;
    ++m_machineCompiles;
    m_machinePool.start([this, generation, wantSass, cuda, arch] {
        auto code = std::make_shared<const GeneratedMachineCode>(compileGeneratedCuda(*cuda, arch, wantSass));
        QMetaObject::invokeMethod(
            this,
            [this, generation, code] {
                --m_machineRunning;
                showMachineCode(generation, code);
            },
            Qt::QueuedConnection);
    });
}

void CodeViews::showMachineCode(uint64_t generation, std::shared_ptr<const GeneratedMachineCode> code) {
    if (generation != m_codeGeneration) {
        ++m_dropped;
        scheduleMachineCode(0); // the current version still needs compiling
        return;
    }
    m_machine = code;
    m_machineGeneration = generation;
    m_machineRequested = false;
    Q_EMIT machineCodeReady(m_machineAnalysisGeneration, code);
    bool sassTried = code->sassRequested;
    m_machineHasSass = sassTried;
    QString arch = QString::fromStdString(code->arch);
    if (!code->ptxOk) {
        m_ptx->setMessage(QString::fromStdString(code->ptxMessage));
        m_ptxStatus->setText("NVRTC failed for " + arch);
    } else {
        m_ptx->setContent(QString::fromStdString(code->ptx), code->ptxTileLines);
        QString when = code->cacheHit
                           ? QString("from the compile cache")
                           : QString("compiled in %1 ms").arg(code->compileMilliseconds, 0, 'f', 0);
        m_ptxStatus->setText(QString("%1, %2\n%3").arg(arch, when, resourcesLine(*code)));
    }
    if (!sassTried) {
        m_sass->setMessage("SASS is disassembled when this dock is visible");
        m_sassStatus->setText("");
    } else if (!code->sassOk) {
        m_sass->setMessage(QString::fromStdString(code->sassMessage));
        m_sassStatus->setText(code->ptxOk ? "SASS unavailable on this machine" : "NVRTC failed for " + arch);
    } else {
        m_sass->setContent(QString::fromStdString(code->sass), code->sassTileLines);
        m_sassStatus->setText(arch +
                              " SASS of the cubin (line info from nvdisasm or the cubin's line table)");
    }
    m_ptx->setLinkedTileLine(m_linkedLine);
    m_sass->setLinkedTileLine(m_linkedLine);
    if (machineCodeWanted())
        scheduleMachineCode(0); // SASS became visible while PTX-only code compiled
}

void CodeViews::requestMachineCode() {
    m_machineRequested = true;
    scheduleMachineCode(0);
}

void CodeViews::setLinkedLine(int tileLine) {
    m_linkedLine = tileLine;
    for (LinkedCodeView* v : {m_cuda, m_ptx, m_sass, m_pass})
        v->setLinkedTileLine(tileLine);
}

void CodeViews::setDarkTheme(bool dark) {
    for (LinkedCodeView* v : {m_cuda, m_ptx, m_sass, m_pass})
        v->setDarkTheme(dark);
}

bool CodeViews::waitForIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        bool codeDone = m_codeRunning == 0 && m_codeGeneration == m_generation;
        bool machineDone = m_machineRunning == 0 && !m_machineDebounce.isActive() && !machineCodeWanted();
        if (codeDone && machineDone)
            return true;
    }
    return false;
}

} // namespace tb::app
