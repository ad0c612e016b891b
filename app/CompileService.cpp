// The worker side: one analysis per request on a single-thread pool; results return through a queued call.
#include "app/CompileService.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace tb::app {

CompileService::CompileService(QObject* parent) : QObject(parent) {
    qRegisterMetaType<AnalysisPtr>("tb::app::AnalysisPtr");
    m_pool.setMaxThreadCount(1);
    m_debounce.setSingleShot(true);
    connect(&m_debounce, &QTimer::timeout, this, &CompileService::start);
}

CompileService::~CompileService() {
    m_pool.waitForDone();
}

void CompileService::request(QString fileName, QString text, CompileOptions options, int debounceMs) {
    m_fileName = std::move(fileName);
    m_text = std::move(text);
    m_options = std::move(options);
    ++m_generation; // anything still running is stale from now on
    m_debounce.start(std::max(0, debounceMs));
}

void CompileService::start() {
    uint64_t generation = m_generation;
    std::string name = m_fileName.toStdString(), text = m_text.toStdString();
    CompileOptions options = m_options;
    ++m_running;
    m_pool.start([this, generation, name, text, options] {
        std::shared_ptr<views::ProgramAnalysis> analysis =
            views::analyzeProgram(name, text, options, generation);
        QMetaObject::invokeMethod(
            this,
            [this, analysis] {
                --m_running;
                if (analysis->generation != m_generation) {
                    ++m_dropped;
                    return;
                }
                m_current = analysis;
                Q_EMIT analysisReady(m_current);
            },
            Qt::QueuedConnection);
    });
}

bool CompileService::waitForIdle(int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (!m_debounce.isActive() && m_running == 0 && m_current && m_current->generation == m_generation)
            return true;
    }
    return false;
}

} // namespace tb::app
