// The bank-conflict canvas: the access table, then the punch cards of the selected access.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tb::views {

namespace {

constexpr float kPunchCell = 11;
constexpr float kPunchCardWidth = 28 + kPunchCell * kSharedBanks + 8;

void drawPunchCard(const BankPunchCard& card, const char* title, const BankAccessRow& row) {
    ImGui::BeginGroup();
    ImGui::Text("%s: %d wavefronts (ideal %d), %d-way", title, card.cost.wavefronts,
                card.cost.idealWavefronts, card.cost.conflictWays);
    const float cell = kPunchCell;
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    float gx = origin.x + 28, gy = origin.y + 14;
    for (int b = 0; b < kSharedBanks; b += 8)
        draw->AddText(ImVec2(gx + cell * float(b), origin.y), IM_COL32(160, 160, 160, 255),
                      ("b" + std::to_string(b)).c_str());
    int maxWave = std::max(1, card.cost.wavefronts);
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        if (lane % 8 == 0)
            draw->AddText(ImVec2(origin.x, gy + cell * float(lane) - 2), IM_COL32(160, 160, 160, 255),
                          ("L" + std::to_string(lane)).c_str());
        for (int bank = 0; bank < kSharedBanks; ++bank) {
            const BankPunchCell& c = card.cells[size_t(lane)][size_t(bank)];
            Rgba fill{60, 60, 60, 255};
            if (c.word >= 0)
                fill = c.conflicted
                           ? mix(kConflictRed, Rgba{255, 200, 200, 255}, double(c.wavefront) / maxWave)
                           : mix(kOkGreen, Rgba{200, 240, 200, 255}, double(c.wavefront) / maxWave);
            ImVec2 a(gx + cell * float(bank), gy + cell * float(lane));
            draw->AddRectFilled(a, ImVec2(a.x + cell - 1, a.y + cell - 1), fill.packed());
            if (c.word >= 0 && ImGui::IsMouseHoveringRect(a, ImVec2(a.x + cell, a.y + cell))) {
                const std::string elements = bankLaneElements(row, lane);
                ImGui::SetTooltip("lane %d, bank %d: %s%sword %lld, phase %d, wavefront %d%s", lane, bank,
                                  elements.c_str(), elements.empty() ? "" : ", ",
                                  static_cast<long long>(c.word), c.phase, c.wavefront,
                                  c.conflicted ? " (conflict)" : "");
            }
        }
    }
    ImGui::Dummy(ImVec2(kPunchCardWidth, 14 + cell * kWarpLanes + 4));
    ImGui::EndGroup();
}

void drawAccessTable(const BankConflictViewModel& model, BankViewState& state, float height) {
    // ScrollX keeps every column at its content's width (header included) instead of squeezing the
    // table into the canvas; the user scrolls sideways on a narrow dock.
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_ScrollX | ImGuiTableFlags_Resizable |
                            ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Sortable;
    struct Column {
        const char* header;
        BankColumn id;
    };
    std::vector<Column> columns = {{"line", BankColumn::Line},
                                   {"buffer", BankColumn::Buffer},
                                   {"role", BankColumn::Role},
                                   {"instruction", BankColumn::Instruction},
                                   {"instr/blk", BankColumn::InstructionsPerBlock},
                                   {"wavefronts", BankColumn::Wavefronts},
                                   {"ideal", BankColumn::Ideal},
                                   {"excess", BankColumn::Excess},
                                   {"N-way", BankColumn::Ways},
                                   {"swizzle off", BankColumn::Unswizzled}};
    if (model.measured) {
        columns.push_back({"measured", BankColumn::Measured});
        columns.push_back({"meas. ideal", BankColumn::MeasuredIdeal});
    }
    const bool anyFix = std::any_of(model.rows.begin(), model.rows.end(),
                                    [](const BankAccessRow& r) { return !r.suggestedFix.empty(); });
    if (anyFix)
        columns.push_back({"suggested fix", BankColumn::SuggestedFix});
    if (!ImGui::BeginTable("accesses", int(columns.size()), flags, ImVec2(0, height)))
        return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const Column& c : columns) {
        ImGuiTableColumnFlags f = ImGuiTableColumnFlags_WidthFixed;
        if (c.id == BankColumn::Excess)
            f |= ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending;
        ImGui::TableSetupColumn(c.header, f, 0.0f, ImGuiID(c.id));
    }
    // The header row by hand (what TableHeadersRow does), recording each column's room for the header.
    state.columns.clear();
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (size_t i = 0; i < columns.size(); ++i) {
        if (!ImGui::TableSetColumnIndex(int(i)))
            continue;
        state.columns.push_back(
            {columns[i].header, ImGui::CalcTextSize(columns[i].header).x, ImGui::GetContentRegionAvail().x});
        ImGui::TableHeader(columns[i].header);
    }
    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
        state.sortColumn = BankColumn(specs->Specs[0].ColumnUserID);
        state.sortDescending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    }
    for (int i : sortedBankRows(model, state.sortColumn, state.sortDescending)) {
        const BankAccessRow& r = model.rows[size_t(i)];
        ImGui::TableNextRow();
        if (state.highlightLine != 0 && r.line == state.highlightLine)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 90, 20, 200));
        ImGui::TableNextColumn();
        std::string id = std::to_string(r.line) + "##row" + std::to_string(i);
        if (ImGui::Selectable(id.c_str(), i == model.selected, ImGuiSelectableFlags_SpanAllColumns)) {
            state.selected = i;
            state.clickedLine = r.line;
        }
        ImVec4 color =
            r.excessWavefronts() > 0 ? ImVec4(1, 0.45f, 0.45f, 1) : ImGui::GetStyle().Colors[ImGuiCol_Text];
        auto cellText = [&](const std::string& s) {
            ImGui::TableNextColumn();
            ImGui::TextColored(color, "%s", s.c_str());
        };
        cellText(r.buffer);
        cellText(r.role);
        cellText(r.instruction);
        cellText(std::to_string(r.instructionsPerBlock));
        cellText(std::to_string(r.wavefronts));
        cellText(std::to_string(r.idealWavefronts));
        cellText(std::to_string(r.excessWavefronts()));
        cellText(std::to_string(r.conflictWays) + "-way");
        cellText(std::to_string(r.wavefrontsUnswizzled) + " (" + std::to_string(r.conflictWaysUnswizzled) +
                 "-way)");
        if (model.measured) {
            cellText(r.measuredWavefronts
                         ? std::to_string(*r.measuredWavefronts) + (r.measuredLineShared ? " (line)" : "")
                         : "-");
            cellText(r.measuredIdealWavefronts ? std::to_string(*r.measuredIdealWavefronts) : "-");
        }
        if (anyFix) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.suggestedFix.c_str());
        }
    }
    ImGui::EndTable();
}

} // namespace

void drawBankConflicts(const BankConflictViewModel& model, BankViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    if (model.rows.empty()) {
        ImGui::TextDisabled("no shared-memory accesses");
        return;
    }
    state.clickedLine = 0;
    if (model.measured)
        ImGui::TextDisabled("measured: SASS shared wavefronts per block of each line%s%s",
                            model.measuredNote.empty() ? "" : "; ", model.measuredNote.c_str());
    drawAccessTable(
        model, state,
        std::min(ImGui::GetContentRegionAvail().y * 0.45f, 22.0f * float(model.rows.size() + 2) + 4));
    if (model.measured) {
        std::string others;
        for (const BankConflictViewModel::MeasuredLine& m : model.measuredLines)
            if (!m.hasRow)
                others += (others.empty() ? "" : ", ") + std::string("line ") + std::to_string(m.line) +
                          ": " + std::to_string(m.wavefronts) + " (ideal " + std::to_string(m.ideal) + ")";
        if (!others.empty())
            ImGui::TextWrapped("measured on lines without a predicted access: %s", others.c_str());
    }
    if (model.selected < 0)
        return;
    const BankAccessRow& r = model.rows[size_t(model.selected)];
    ImGui::Text("line %u, %s: %s", r.line, r.buffer.c_str(), r.role.c_str());
    ImGui::SameLine();
    ImGui::Checkbox("compare with swizzle off", &state.showUnswizzled);
    if (!r.suggestedFix.empty())
        ImGui::TextColored(ImVec4(0.5f, 0.9f, 0.5f, 1), "suggested fix: %s", r.suggestedFix.c_str());
    // The cards scroll inside their own region, side by side when both fit, else one under the other: a
    // narrow dock never cuts the swizzle-off card.
    ImGui::BeginChild("punchCards", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    drawPunchCard(model.card, "chosen layout", r);
    if (state.showUnswizzled) {
        if (ImGui::GetContentRegionAvail().x >= 2 * kPunchCardWidth + 24)
            ImGui::SameLine(0, 24);
        drawPunchCard(model.cardUnswizzled, "swizzle off", r);
    }
    ImGui::EndChild();
}

} // namespace tb::views
