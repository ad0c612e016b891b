// The code views: what the backend makes of the tile program, in four docks. "CUDA" (the generated
// source), "PTX" (NVRTC's output with ptxas's registers and spills), "SASS" (the cubin disassembled, where
// the toolkit has nvdisasm or cuobjdump; otherwise the dock says why and what to install) and "Passes"
// (the IR after each pipeline pass, picked from a list). Every line knows the tile-program line it came
// from (engine/pipeline/GeneratedArtifacts.h, engine/pipeline/PassSnapshots.h), so linked selection works
// both ways: the editor's line highlights its lines in all four views, and clicking a line in any of them
// reports its tile line back (lineClicked -> the editor).
//
// Nothing here blocks the UI thread. CUDA and the pass snapshots are made on a worker per analysis; PTX and
// SASS are compiled with NVRTC on another worker, debounced, only while the PTX or SASS dock is visible.
// Each job carries the analysis' generation, and a result for an older one is dropped.
#pragma once

#include "app/CompileService.h"
#include "engine/pipeline/GeneratedArtifacts.h"
#include "engine/pipeline/PassSnapshots.h"

#include <QObject>
#include <QPlainTextEdit>
#include <QThreadPool>
#include <QTimer>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QLabel;

namespace tb::app {

class CodeDiffPanel;

// A read-only monospace listing whose lines link to tile-program lines.
class LinkedCodeView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit LinkedCodeView(const QFont& font, QWidget* parent = nullptr);

    // `tileLines` has one entry per line (0: no link).
    void setContent(const QString& text, std::vector<int> tileLines);
    // A message instead of code (compiling, unavailable, errors): no links.
    void setMessage(const QString& message);
    // Highlights every line linked to `tileLine` and scrolls to the first (unless the cursor is already
    // on one of them, e.g. after the user clicked there).
    void setLinkedTileLine(int tileLine);
    void setDarkTheme(bool dark);

    int tileLineOf(int line) const;                                            // 1-based line; 0 when none
    const std::vector<int>& highlightedLines() const { return m_highlighted; } // 1-based, ascending
    bool showsCode() const { return m_code; }

Q_SIGNALS:
    void tileLineClicked(int tileLine);

protected:
    // A click reports its line even when the cursor was already there (cursorPositionChanged would not).
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void applyHighlight();

    std::vector<int> m_tileLines;
    std::vector<int> m_highlighted;
    int m_linkedTileLine = 0;
    bool m_code = false;
    bool m_dark = true;
    bool m_updating = false;
};

class CodeViews : public QObject {
    Q_OBJECT
public:
    explicit CodeViews(const QFont& font, QObject* parent = nullptr);
    ~CodeViews() override;

    // The dock contents (a status line above each listing).
    QWidget* cudaPanel() const { return m_cudaPanel; }
    QWidget* ptxPanel() const { return m_ptxPanel; }
    QWidget* sassPanel() const { return m_sassPanel; }
    QWidget* passesPanel() const { return m_passesPanel; }
    bool ownsPanel(const QWidget* widget) const;

    LinkedCodeView* cudaView() const { return m_cuda; }
    LinkedCodeView* ptxView() const { return m_ptx; }
    LinkedCodeView* sassView() const { return m_sass; }
    LinkedCodeView* passView() const { return m_pass; }
    QComboBox* passPicker() const { return m_picker; }
    CodeDiffPanel* diffPanel() const { return m_diff; } // the CUDA dock's Compare row
    QLabel* ptxStatus() const { return m_ptxStatus; }
    QLabel* sassStatus() const { return m_sassStatus; }

    void setAnalysis(const AnalysisPtr& analysis);
    void setLinkedLine(int tileLine);
    void setDarkTheme(bool dark);

    // Waits (processing events) until the CUDA and pass snapshots of the latest analysis are shown, and,
    // when the PTX or SASS dock is visible, its machine code too. For tests and screenshots.
    bool waitForIdle(int timeoutMs);
    int machineCodeCompiles() const { return m_machineCompiles; } // NVRTC jobs started
    int droppedStale() const { return m_dropped; }
    const GeneratedCuda* cuda() const { return m_cudaResult.get(); }
    const GeneratedMachineCode* machineCode() const { return m_machine.get(); }
    const std::vector<PassSnapshot>& snapshots() const { return m_snapshots; }

    // Compiles the current CUDA with NVRTC once even while the PTX and SASS docks are hidden (the budget
    // view asks for ptxas's registers).
    void requestMachineCode();

Q_SIGNALS:
    void lineClicked(int tileLine);
    // NVRTC compiled the CUDA of the analysis with that generation (ProgramAnalysis::generation).
    void machineCodeReady(quint64 analysisGeneration, std::shared_ptr<const GeneratedMachineCode> code);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct CodeResult;
    void showCode(const std::shared_ptr<CodeResult>& result);
    void showPass();
    void scheduleMachineCode(int debounceMs);
    void startMachineCode();
    void showMachineCode(uint64_t generation, std::shared_ptr<const GeneratedMachineCode> code);
    bool machineCodeWanted() const;
    bool ptxVisible() const;
    bool sassVisible() const;

    LinkedCodeView* m_cuda;
    LinkedCodeView* m_ptx;
    LinkedCodeView* m_sass;
    LinkedCodeView* m_pass;
    QWidget* m_cudaPanel;
    QWidget* m_ptxPanel;
    QWidget* m_sassPanel;
    QWidget* m_passesPanel;
    QLabel* m_cudaStatus;
    CodeDiffPanel* m_diff;
    QLabel* m_ptxStatus;
    QLabel* m_sassStatus;
    QLabel* m_passStatus;
    QComboBox* m_picker;

    QThreadPool m_codePool;    // CUDA + pass snapshots
    QThreadPool m_machinePool; // NVRTC + disassembly
    QTimer m_machineDebounce;
    uint64_t m_generation = 0;     // of the latest analysis
    uint64_t m_codeGeneration = 0; // of the code shown
    std::string m_arch = "sm_90a";
    std::shared_ptr<const GeneratedCuda> m_cudaResult;
    std::vector<PassSnapshot> m_snapshots;
    std::shared_ptr<const GeneratedMachineCode> m_machine;
    uint64_t m_machineGeneration = 0; // of the machine code shown
    uint64_t m_codeAnalysisGeneration = 0, m_machineAnalysisGeneration = 0;
    bool m_machineRequested = false;
    bool m_machineHasSass = false;
    int m_codeRunning = 0, m_machineRunning = 0;
    int m_machineCompiles = 0, m_dropped = 0;
    int m_linkedLine = 0;
};

} // namespace tb::app
