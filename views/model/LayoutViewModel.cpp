// Builds layout grids from the layout algebra's exact tables (FragmentTable, Layout::offset).
#include "views/model/LayoutViewModel.h"

#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/bank/SharedAccess.h"
#include "views/model/SvgWriter.h"

#include <algorithm>
#include <utility>

namespace tb::views {

namespace {

// Rows and columns of the drawn grid: the last dimension is the column, everything before it the row.
void gridShape(const std::vector<int64_t>& shape, int64_t& rows, int64_t& cols) {
    cols = shape.empty() ? 1 : shape.back();
    rows = 1;
    for (size_t d = 0; d + 1 < shape.size(); ++d)
        rows *= shape[d];
}

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

bool tooLarge(LayoutViewModel& model) {
    if (model.rows <= 0 || model.cols <= 0 || model.rows * model.cols > kMaxLayoutCells) {
        model.error = "the grid has " + std::to_string(model.rows * model.cols) + " cells; at most " +
                      std::to_string(kMaxLayoutCells) + " are drawn";
        return true;
    }
    return false;
}

} // namespace

const LayoutCell* LayoutViewModel::cellAt(int64_t row, int64_t col) const {
    if (row < 0 || col < 0 || row >= rows || col >= cols || cells.empty())
        return nullptr;
    return &cells[size_t(row * cols + col)];
}

std::vector<int64_t> LayoutViewModel::logicalIndex(int64_t row, int64_t col) const {
    std::vector<int64_t> index(shape.size(), 0);
    if (shape.empty())
        return index;
    index.back() = col;
    for (size_t d = shape.size() - 1; d-- > 0;) {
        index[d] = row % shape[d];
        row /= shape[d];
    }
    return index;
}

std::string LayoutViewModel::describe(int64_t row, int64_t col) const {
    const LayoutCell* cell = cellAt(row, col);
    if (!cell)
        return {};
    std::vector<int64_t> idx = logicalIndex(row, col);
    std::string s = "(";
    for (size_t i = 0; i < idx.size(); ++i)
        s += (i ? ", " : "") + std::to_string(idx[i]);
    s += ") -> ";
    if (isFragment) {
        s += "thread " + std::to_string(cell->thread) + " (warp " + std::to_string(cell->warp) +
             "), register " + std::to_string(cell->reg);
        if (cell->replicaThreads.size() > 1) {
            s += "; replicated in threads";
            for (int64_t t : cell->replicaThreads)
                s += " " + std::to_string(t);
        }
    } else {
        s += "offset " + std::to_string(cell->offset) + ", bank " + std::to_string(cell->bank);
    }
    return s;
}

LayoutViewModel buildFragmentView(const std::string& name, const layout::Fragment& fragment,
                                  LayoutColoring coloring, int64_t firstThread) {
    LayoutViewModel model;
    model.isFragment = true;
    model.coloring = coloring == LayoutColoring::Warp ? LayoutColoring::Warp : LayoutColoring::Thread;
    model.shape = fragment.inputShape();
    model.title = name + ": fragment " + shapeText(model.shape);
    model.subtitle = fragment.toString();
    gridShape(model.shape, model.rows, model.cols);
    if (tooLarge(model))
        return model;
    auto table = layout::tabulateFragment(fragment);
    if (!table) {
        model.error = table.error().message;
        return model;
    }
    model.threads = table->threadExtent;
    model.registers = table->registers;
    model.replicate = table->replicate;
    int64_t warps = (model.threads + 31) / 32;
    int64_t elements = model.rows * model.cols;
    model.cells.resize(size_t(elements));
    for (int64_t e = 0; e < elements; ++e) {
        LayoutCell& cell = model.cells[size_t(e)];
        const layout::FragmentCell& owner = table->at(e, 0);
        cell.thread = firstThread + owner.thread;
        cell.reg = owner.reg;
        cell.warp = cell.thread / 32;
        for (int64_t rep = 0; rep < table->replicate; ++rep)
            cell.replicaThreads.push_back(firstThread + table->at(e, rep).thread);
        cell.color = model.coloring == LayoutColoring::Warp
                         ? categoricalColor(owner.thread / 32, std::max<int64_t>(warps, 1))
                         : categoricalColor(owner.thread, std::max<int64_t>(model.threads, 1));
        cell.label = "T" + std::to_string(cell.thread) + ":" + std::to_string(cell.reg);
    }
    return model;
}

LayoutViewModel buildSharedView(const std::string& name, const layout::Layout& layout, int elementBits,
                                bool swizzled) {
    LayoutViewModel model;
    model.isFragment = false;
    model.coloring = LayoutColoring::Bank;
    model.swizzled = swizzled;
    model.elementBits = elementBits > 0 ? elementBits : 32;
    model.shape = layout.inputShape();
    model.title = name + ": shared " + shapeText(model.shape) + (swizzled ? "" : " (swizzle off)");
    model.subtitle = layout.toString();
    gridShape(model.shape, model.rows, model.cols);
    if (tooLarge(model))
        return model;
    int64_t elements = model.rows * model.cols;
    model.cells.resize(size_t(elements));
    for (int64_t r = 0; r < model.rows; ++r) {
        for (int64_t c = 0; c < model.cols; ++c) {
            LayoutCell& cell = model.cells[size_t(r * model.cols + c)];
            auto offset = layout.offset(model.logicalIndex(r, c));
            if (!offset) {
                model.error = "the layout cannot be evaluated at row " + std::to_string(r) + ", column " +
                              std::to_string(c);
                model.cells.clear();
                return model;
            }
            cell.offset = *offset;
            cell.bank = bankOf(*offset * model.elementBits / 8);
            cell.color = bankColor(cell.bank);
            cell.label = std::to_string(cell.offset);
        }
    }
    return model;
}

std::optional<std::pair<int64_t, int64_t>> hitTestGrid(const LayoutViewModel& model, const GridGeometry& g,
                                                       double x, double y) {
    if (g.cellW <= 0 || g.cellH <= 0 || x < g.x0 || y < g.y0)
        return std::nullopt;
    auto col = int64_t((x - g.x0) / g.cellW);
    auto row = int64_t((y - g.y0) / g.cellH);
    if (row >= model.rows || col >= model.cols || model.empty())
        return std::nullopt;
    return std::make_pair(row, col);
}

LayoutZoom fitLayoutGrid(int64_t rows, int64_t cols, double width, double height) {
    LayoutZoom fit;
    if (rows <= 0 || cols <= 0 || width <= 0 || height <= 0)
        return fit;
    const double gridW = double(cols) * kLayoutCellWidth, gridH = double(rows) * kLayoutCellHeight;
    fit.zoom = std::clamp(float(std::min(width / gridW, height / gridH)), kLayoutMinZoom, kLayoutMaxZoom);
    fit.panX = float(std::max(0.0, (width - gridW * fit.zoom) / 2));
    fit.panY = float(std::max(0.0, (height - gridH * fit.zoom) / 2));
    return fit;
}

std::string layoutViewToSvg(const LayoutViewModel& model) {
    GridGeometry g{10, 54, 44, 20};
    double width = std::max(420.0, g.x0 * 2 + g.cellW * double(model.cols));
    double height = g.y0 + g.cellH * double(model.rows) + 16;
    SvgWriter svg(width, height);
    Rgba black{0, 0, 0, 255};
    svg.text(g.x0, 18, model.title, 14, black, "start", true);
    svg.text(g.x0, 34, model.subtitle, 10);
    std::string legend;
    if (!model.error.empty())
        legend = "error: " + model.error;
    else if (model.isFragment)
        legend = "colour = " + std::string(model.coloring == LayoutColoring::Warp ? "warp" : "thread") +
                 "; label T<thread>:<register>; " + std::to_string(model.threads) + " threads, " +
                 std::to_string(model.registers) + " registers/thread, replicate " +
                 std::to_string(model.replicate);
    else
        legend = "colour = bank of the element's word; label = offset; " + std::to_string(model.elementBits) +
                 "-bit elements";
    svg.text(g.x0, 48, legend, 10);
    Rgba gridLine{255, 255, 255, 255};
    for (int64_t r = 0; r < model.rows && !model.empty(); ++r) {
        for (int64_t c = 0; c < model.cols; ++c) {
            const LayoutCell& cell = *model.cellAt(r, c);
            double x = g.x0 + g.cellW * double(c), y = g.y0 + g.cellH * double(r);
            svg.rect(x, y, g.cellW, g.cellH, cell.color, &gridLine, 0.5);
            svg.title(model.describe(r, c));
            std::string label = cell.label;
            if (cell.replicaThreads.size() > 1)
                label += "*";
            svg.text(x + g.cellW / 2, y + g.cellH * 0.7, label, 8, textColorOn(cell.color), "middle");
        }
    }
    return svg.str();
}

} // namespace tb::views
