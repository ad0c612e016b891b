// Runs the engine off the UI thread for the current editor text. Edits are debounced (150 ms); each
// request gets a generation number, and a finished analysis older than the newest request is dropped,
// so a slow compile can never overwrite a newer one. The document is a shared, immutable
// ProgramAnalysis (views/model/ProgramAnalysis.h).
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "views/model/ProgramAnalysis.h"

#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <cstdint>
#include <memory>

namespace tb::app {

using AnalysisPtr = std::shared_ptr<const views::ProgramAnalysis>;

class CompileService : public QObject {
    Q_OBJECT
public:
    explicit CompileService(QObject* parent = nullptr);
    ~CompileService() override;

    // Schedules a compile after the debounce interval (0 = now).
    void request(QString fileName, QString text, CompileOptions options, int debounceMs = 150);
    uint64_t latestGeneration() const { return m_generation; }
    const AnalysisPtr& current() const { return m_current; }
    // Waits for queued work (tests, screenshots).
    bool waitForIdle(int timeoutMs);
    int droppedStale() const { return m_dropped; }

Q_SIGNALS:
    void analysisReady(tb::app::AnalysisPtr analysis);

private:
    void start();

    QTimer m_debounce;
    QThreadPool m_pool;
    QString m_fileName, m_text;
    CompileOptions m_options;
    uint64_t m_generation = 0;
    std::atomic<int> m_running{0};
    int m_dropped = 0;
    AnalysisPtr m_current;
};

} // namespace tb::app

Q_DECLARE_METATYPE(tb::app::AnalysisPtr)
