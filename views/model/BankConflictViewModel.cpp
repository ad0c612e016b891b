// Builds the bank table from KernelPlan::sharedAccesses and the punch cards from BankPunchCard.
#include "views/model/BankConflictViewModel.h"

#include "engine/ir/IrQueries.h"
#include "engine/ir/Stmt.h"
#include "views/model/Color.h"
#include "views/model/SvgWriter.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tb::views {

std::vector<int> BankConflictViewModel::rowsOfLine(uint32_t line) const {
    std::vector<int> out;
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].line == line && line != 0)
            out.push_back(int(i));
    return out;
}

namespace {

// A reduce's all-reduce partials live in the kernel's scratch (red_buf), not in a buffer of the program:
// name the reduce it serves.
std::string scratchName(const layout::SharedAccessPlan& a) {
    if (a.op && a.op->kind == ir::StmtKind::Reduce && a.op->srcBuffer)
        return "reduction scratch (T.reduce of " + a.op->srcBuffer->name + ")";
    return "shared scratch";
}

} // namespace

std::vector<int> sortedBankRows(const BankConflictViewModel& model, BankColumn column, bool descending) {
    std::vector<int> order(model.rows.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    // Numbers compare as numbers, text as text; a missing measurement sorts as -1.
    auto number = [column](const BankAccessRow& r) -> int64_t {
        switch (column) {
        case BankColumn::Line:
            return r.line;
        case BankColumn::InstructionsPerBlock:
            return r.instructionsPerBlock;
        case BankColumn::Wavefronts:
            return r.wavefronts;
        case BankColumn::Ideal:
            return r.idealWavefronts;
        case BankColumn::Excess:
            return r.excessWavefronts();
        case BankColumn::Ways:
            return r.conflictWays;
        case BankColumn::Unswizzled:
            return r.wavefrontsUnswizzled;
        case BankColumn::Measured:
            return r.measuredWavefronts.value_or(-1);
        case BankColumn::MeasuredIdeal:
            return r.measuredIdealWavefronts.value_or(-1);
        default:
            return 0;
        }
    };
    auto text = [column](const BankAccessRow& r) -> const std::string& {
        switch (column) {
        case BankColumn::Buffer:
            return r.buffer;
        case BankColumn::Role:
            return r.role;
        case BankColumn::SuggestedFix:
            return r.suggestedFix;
        default:
            return r.instruction;
        }
    };
    const bool byText = column == BankColumn::Buffer || column == BankColumn::Role ||
                        column == BankColumn::Instruction || column == BankColumn::SuggestedFix;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const BankAccessRow& x = model.rows[size_t(a)];
        const BankAccessRow& y = model.rows[size_t(b)];
        int c = byText ? text(x).compare(text(y)) : (number(x) < number(y) ? -1 : number(x) > number(y));
        if (c != 0)
            return descending ? c > 0 : c < 0;
        return x.line < y.line;
    });
    return order;
}

BankConflictViewModel buildBankConflictView(const layout::KernelPlan& kernel, const SourceManager& sources,
                                            int selected) {
    BankConflictViewModel model;
    model.title = "shared-memory accesses of " + std::string(kernel.func ? kernel.func->name : "kernel");
    for (const layout::SharedAccessPlan& a : kernel.sharedAccesses) {
        BankAccessRow row;
        row.op = a.op;
        row.range = a.range;
        if (a.range.valid && a.range.file < sources.fileCount())
            row.line = sources.file(a.range.file).lineCol(a.range.begin).line;
        row.buffer = a.buffer ? a.buffer->name : scratchName(a);
        if (a.buffer) {
            row.shape = ir::constantShape(*a.buffer).value_or(std::vector<int64_t>{});
            row.elementBytes = std::max(1, ir::dtypeBytes(a.buffer->dtype));
        }
        row.role = a.role;
        row.instruction = a.instruction;
        row.isStore = a.isStore;
        row.instructionsPerBlock = a.instructionsPerBlock;
        row.wavefronts = a.wavefrontsPerBlock;
        row.idealWavefronts = a.idealWavefrontsPerBlock;
        row.wavefrontsUnswizzled = a.wavefrontsPerBlockUnswizzled;
        row.conflictWays = a.hardware.conflictWays;
        row.conflictWaysUnswizzled = a.hardwareUnswizzled.conflictWays;
        row.access = a.access;
        row.accessUnswizzled = a.accessUnswizzled;
        model.rows.push_back(std::move(row));
    }
    std::stable_sort(model.rows.begin(), model.rows.end(),
                     [](const BankAccessRow& x, const BankAccessRow& y) {
                         return std::tie(x.line, x.buffer, x.role) < std::tie(y.line, y.buffer, y.role);
                     });
    if (selected < 0) {
        int64_t worst = -1;
        for (size_t i = 0; i < model.rows.size(); ++i)
            if (model.rows[i].excessWavefronts() > worst) {
                worst = model.rows[i].excessWavefronts();
                selected = int(i);
            }
    }
    selectBankRow(model, selected);
    return model;
}

std::string bankLaneElements(const BankAccessRow& row, int lane) {
    if (row.shape.empty() || row.elementBytes <= 0 || lane < 0 || lane >= kWarpLanes ||
        !(participatingLanes(row.accessUnswizzled) >> lane & 1u))
        return {};
    int64_t element = row.accessUnswizzled.address[size_t(lane)] / row.elementBytes;
    const int64_t count = std::max(1, laneBytes(row.accessUnswizzled) / row.elementBytes);
    std::vector<int64_t> index(row.shape.size());
    for (size_t d = row.shape.size(); d-- > 0;) {
        const int64_t extent = std::max<int64_t>(row.shape[d], 1);
        index[d] = element % extent;
        element /= extent;
    }
    std::string out = row.buffer + "[";
    for (size_t d = 0; d < index.size(); ++d) {
        out += (d ? ", " : "") + std::to_string(index[d]);
        if (d + 1 == index.size() && count > 1)
            out += ".." + std::to_string(index[d] + count - 1);
    }
    return out + "]";
}

void applyBankFixes(BankConflictViewModel& model, const std::vector<BankFix>& fixes) {
    for (BankAccessRow& r : model.rows)
        for (const BankFix& f : fixes)
            if (f.op == r.op && f.role == r.role && f.buffer && f.buffer->name == r.buffer)
                r.suggestedFix = f.remedy;
}

void selectBankRow(BankConflictViewModel& model, int row) {
    if (model.rows.empty()) {
        model.selected = -1;
        model.card = {};
        model.cardUnswizzled = {};
        return;
    }
    model.selected = std::clamp(row, 0, int(model.rows.size()) - 1);
    const BankAccessRow& r = model.rows[size_t(model.selected)];
    model.card = makeBankPunchCard(r.access, BankModelKind::Hardware);
    model.cardUnswizzled = makeBankPunchCard(r.accessUnswizzled, BankModelKind::Hardware);
}

void clearMeasuredWavefronts(BankConflictViewModel& model) {
    model.measured = false;
    model.measuredNote.clear();
    model.measuredLines.clear();
    for (BankAccessRow& r : model.rows) {
        r.measuredWavefronts.reset();
        r.measuredIdealWavefronts.reset();
        r.measuredLineShared = false;
    }
}

void setMeasuredWavefronts(BankConflictViewModel& model, const std::vector<MeasuredLineTotals>& lines,
                           int64_t blocks, std::string note) {
    clearMeasuredWavefronts(model);
    blocks = std::max<int64_t>(blocks, 1);
    auto perBlock = [&](uint64_t total) {
        return int64_t((total + uint64_t(blocks) / 2) / uint64_t(blocks));
    };
    std::map<uint32_t, BankConflictViewModel::MeasuredLine> byLine;
    for (const MeasuredLineTotals& t : lines) {
        if (t.line == 0 || t.sharedWavefronts == 0)
            continue;
        BankConflictViewModel::MeasuredLine& m = byLine[t.line];
        m.line = t.line;
        m.wavefronts += perBlock(t.sharedWavefronts);
        m.ideal += perBlock(t.sharedWavefrontsIdeal);
    }
    for (BankAccessRow& r : model.rows) {
        if (r.line == 0)
            continue;
        auto it = byLine.find(r.line);
        if (it == byLine.end()) {
            // Profiled, and no shared-memory traffic was measured on this line.
            r.measuredWavefronts = 0;
            r.measuredIdealWavefronts = 0;
        } else {
            it->second.hasRow = true;
            r.measuredWavefronts = it->second.wavefronts;
            r.measuredIdealWavefronts = it->second.ideal;
        }
        r.measuredLineShared = model.rowsOfLine(r.line).size() > 1;
    }
    for (const auto& [line, m] : byLine)
        model.measuredLines.push_back(m);
    model.measured = true;
    model.measuredNote = std::move(note);
}

namespace {

constexpr double kCell = 14;

// Draws a punch card with its top-left corner at (x, y).
void drawPunchCard(SvgWriter& svg, const BankPunchCard& card, const std::string& title, double x, double y) {
    Rgba black{0, 0, 0, 255}, empty{240, 240, 240, 255}, grid{255, 255, 255, 255};
    svg.text(x, y,
             title + ": " + std::to_string(card.cost.wavefronts) + " wavefronts (ideal " +
                 std::to_string(card.cost.idealWavefronts) + "), " + std::to_string(card.cost.conflictWays) +
                 "-way",
             11, black, "start", true);
    double gx = x + 34, gy = y + 22;
    for (int b = 0; b < kSharedBanks; b += 4)
        svg.text(gx + kCell * b + kCell / 2, gy - 4, "b" + std::to_string(b), 8, black, "middle");
    int maxWave = std::max(1, card.cost.wavefronts);
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        svg.text(gx - 4, gy + kCell * lane + kCell * 0.75, "L" + std::to_string(lane), 8, black, "end");
        for (int bank = 0; bank < kSharedBanks; ++bank) {
            const BankPunchCell& cell = card.cells[size_t(lane)][size_t(bank)];
            Rgba fill = empty;
            if (cell.word >= 0)
                fill = cell.conflicted
                           ? mix(kConflictRed, Rgba{255, 200, 200, 255}, double(cell.wavefront) / maxWave)
                           : mix(kOkGreen, Rgba{200, 240, 200, 255}, double(cell.wavefront) / maxWave);
            svg.rect(gx + kCell * bank, gy + kCell * lane, kCell, kCell, fill, &grid, 0.5);
            if (cell.word >= 0) {
                svg.title("lane " + std::to_string(lane) + ", bank " + std::to_string(bank) + ": word " +
                          std::to_string(cell.word) + ", phase " + std::to_string(cell.phase) +
                          ", wavefront " + std::to_string(cell.wavefront) +
                          (cell.conflicted ? " (conflict)" : ""));
                svg.text(gx + kCell * bank + kCell / 2, gy + kCell * lane + kCell * 0.75,
                         std::to_string(cell.wavefront), 7, textColorOn(fill), "middle");
            }
        }
    }
}

constexpr double kCardWidth = 34 + kCell * kSharedBanks + 20;
constexpr double kCardHeight = 22 + kCell * kWarpLanes + 12;

} // namespace

std::string bankPunchCardToSvg(const BankPunchCard& card, const std::string& title) {
    SvgWriter svg(kCardWidth + 20, kCardHeight + 30);
    drawPunchCard(svg, card, title, 10, 20);
    return svg.str();
}

std::string bankConflictViewToSvg(const BankConflictViewModel& model) {
    double rowH = 16, tableTop = 46;
    double tableHeight = rowH * double(model.rows.size() + 1);
    double width = std::max(2 * kCardWidth + 40, model.measured ? 1060.0 : 900.0);
    double height = tableTop + tableHeight + 20 + (model.selected >= 0 ? kCardHeight + 30 : 0);
    SvgWriter svg(width, height);
    Rgba black{0, 0, 0, 255};
    svg.text(10, 20, model.title, 14, black, "start", true);
    svg.text(10, 36, "wavefronts per block, hardware rule; excess = wavefronts - ideal", 10);
    const double cols[] = {10, 60, 160, 420, 560, 650, 730, 800, 860};
    const char* headers[] = {"line",       "buffer", "role",  "instruction", "instr/blk",
                             "wavefronts", "ideal",  "N-way", "off"};
    for (int c = 0; c < 9; ++c)
        svg.text(cols[c], tableTop + 12, headers[c], 10, black, "start", true);
    if (model.measured) {
        svg.text(920, tableTop + 12, "measured", 10, black, "start", true);
        svg.text(990, tableTop + 12, "meas. ideal", 10, black, "start", true);
    }
    for (size_t i = 0; i < model.rows.size(); ++i) {
        const BankAccessRow& r = model.rows[i];
        double y = tableTop + rowH * double(i + 1);
        if (int(i) == model.selected)
            svg.rect(6, y, width - 12, rowH, Rgba{255, 236, 160, 255});
        Rgba fg = r.excessWavefronts() > 0 ? kConflictRed : black;
        std::string cells[] = {std::to_string(r.line),
                               r.buffer,
                               r.role,
                               r.instruction,
                               std::to_string(r.instructionsPerBlock),
                               std::to_string(r.wavefronts),
                               std::to_string(r.idealWavefronts),
                               std::to_string(r.conflictWays) + "-way",
                               std::to_string(r.conflictWaysUnswizzled) + "-way"};
        for (int c = 0; c < 9; ++c)
            svg.text(cols[c], y + 12, cells[c], 10, fg);
        if (r.measuredWavefronts) {
            std::string shared = r.measuredLineShared ? " (line)" : "";
            svg.text(920, y + 12, std::to_string(*r.measuredWavefronts) + shared, 10, fg);
            svg.text(990, y + 12, std::to_string(r.measuredIdealWavefronts.value_or(0)), 10, fg);
        }
    }
    if (model.selected >= 0) {
        double y = tableTop + tableHeight + 30;
        drawPunchCard(svg, model.card, "chosen layout", 10, y);
        drawPunchCard(svg, model.cardUnswizzled, "swizzle off", 20 + kCardWidth, y);
    }
    return svg.str();
}

} // namespace tb::views
