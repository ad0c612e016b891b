// Export of the canvases from their context menus: SVG from the view models (vector, searchable, the same
// picture the canvas draws) and PNG from the canvas' framebuffer.
#include "app/CanvasPanels.h"
#include "views/model/BankConflictViewModel.h"
#include "views/model/BudgetViewModel.h"
#include "views/model/CanvasExport.h"
#include "views/model/DataMovementViewModel.h"
#include "views/model/LayoutViewModel.h"
#include "views/model/PipelineScheduleViewModel.h"
#include "views/model/SweepPlotModel.h"
#include "views/model/WarpPartitionViewModel.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStandardPaths>
#include <string>

namespace tb::app {

std::string CanvasPanels::canvasSvg(const views::ImGuiCanvas* canvas) const {
    std::string picture;
    if (canvas == m_layoutCanvas)
        picture = views::layoutViewToSvg(m_layout);
    else if (canvas == m_bankCanvas)
        picture = views::bankConflictViewToSvg(m_bank);
    else if (canvas == m_warpCanvas)
        picture = views::warpPartitionViewToSvg(m_warp);
    else if (canvas == m_budgetCanvas)
        picture = views::budgetViewToSvg(m_budget);
    else if (canvas == m_sweepCanvas)
        picture = views::sweepPlotToSvg(m_sweep, m_sweepState.metric);
    else if (canvas == m_movementCanvas)
        picture = views::dataMovementViewToSvg(m_movement);
    else if (canvas == m_scheduleCanvas)
        picture = views::pipelineScheduleViewToSvg(m_schedule);
    else
        return {};
    return views::framedCanvasSvg(picture, backendBar(canvas).caption, outOfDate(canvas) ? m_outOfDate : "");
}

bool CanvasPanels::exportCanvas(views::ImGuiCanvas* canvas, const QString& path) {
    if (canvasIndex(canvas) >= canvases().size())
        return false;
    if (QFileInfo(path).suffix().compare("png", Qt::CaseInsensitive) == 0)
        return canvas->savePng(path);
    const std::string svg = canvasSvg(canvas);
    QFile file(path);
    if (svg.empty() || !file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(svg.data(), qint64(svg.size())) == qint64(svg.size());
}

QMenu* CanvasPanels::exportMenu(views::ImGuiCanvas* canvas) {
    auto* menu = new QMenu(canvas);
    menu->setObjectName("canvasExportMenu");
    const QString base = canvas->objectName().chopped(QString("Canvas").size()); // "layoutCanvas" -> "layout"
    const auto addExport = [this, menu, canvas, base](const QString& label, const QString& suffix,
                                                      const QString& filter) {
        menu->addAction(label, canvas, [this, canvas, base, suffix, filter] {
            const QString suggested = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation) +
                                      "/" + base + "." + suffix;
            const QString path =
                QFileDialog::getSaveFileName(canvas, "Export " + base + " view", suggested, filter);
            if (!path.isEmpty() && !exportCanvas(canvas, path))
                Q_EMIT exportFailed("cannot write " + path);
        });
    };
    addExport("Export &SVG...", "svg", "SVG images (*.svg)");
    addExport("Export &PNG...", "png", "PNG images (*.png)");
    return menu;
}

void CanvasPanels::installExportMenu(views::ImGuiCanvas* canvas) {
    canvas->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(canvas, &QWidget::customContextMenuRequested, this, [this, canvas](const QPoint& at) {
        QMenu* menu = exportMenu(canvas);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(canvas->mapToGlobal(at));
    });
}

} // namespace tb::app
