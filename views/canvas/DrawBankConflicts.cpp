// The bank-conflict canvas: the access table, then the punch cards of the selected access.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <string>

namespace tb::views {

namespace {

void drawPunchCard(const BankPunchCard& card, const char* title) {
    ImGui::BeginGroup();
    ImGui::Text("%s: %d wavefronts (ideal %d), %d-way", title, card.cost.wavefronts,
                card.cost.idealWavefronts, card.cost.conflictWays);
    const float cell = 11;
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
            if (c.word >= 0 && ImGui::IsMouseHoveringRect(a, ImVec2(a.x + cell, a.y + cell)))
                ImGui::SetTooltip("lane %d, bank %d: word %lld, phase %d, wavefront %d%s", lane, bank,
                                  static_cast<long long>(c.word), c.phase, c.wavefront,
                                  c.conflicted ? " (conflict)" : "");
        }
    }
    ImGui::Dummy(ImVec2(28 + cell * kSharedBanks + 8, 14 + cell * kWarpLanes + 4));
    ImGui::EndGroup();
}

} // namespace

void drawBankConflicts(const BankConflictViewModel& model, BankViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    if (model.rows.empty()) {
        ImGui::TextDisabled("no shared-memory accesses");
        return;
    }
    float tableHeight =
        std::min(ImGui::GetContentRegionAvail().y * 0.45f, 22.0f * float(model.rows.size() + 1) + 4);
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
    state.clickedLine = 0;
    if (model.measured)
        ImGui::TextDisabled("measured: SASS shared wavefronts per block of each line%s%s",
                            model.measuredNote.empty() ? "" : "; ", model.measuredNote.c_str());
    int columns = model.measured ? 11 : 9;
    if (ImGui::BeginTable("accesses", columns, flags, ImVec2(0, tableHeight))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        for (const char* h : {"line", "buffer", "role", "instruction", "instr/blk", "wavefronts", "ideal",
                              "N-way", "swizzle off"})
            ImGui::TableSetupColumn(h);
        if (model.measured) {
            ImGui::TableSetupColumn("measured");
            ImGui::TableSetupColumn("meas. ideal");
        }
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < model.rows.size(); ++i) {
            const BankAccessRow& r = model.rows[i];
            ImGui::TableNextRow();
            if (state.highlightLine != 0 && r.line == state.highlightLine)
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 90, 20, 200));
            ImGui::TableNextColumn();
            std::string id = std::to_string(r.line) + "##row" + std::to_string(i);
            if (ImGui::Selectable(id.c_str(), int(i) == model.selected,
                                  ImGuiSelectableFlags_SpanAllColumns)) {
                state.selected = int(i);
                state.clickedLine = r.line;
            }
            ImVec4 color = r.excessWavefronts() > 0 ? ImVec4(1, 0.45f, 0.45f, 1)
                                                    : ImGui::GetStyle().Colors[ImGuiCol_Text];
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
            cellText(std::to_string(r.conflictWays) + "-way");
            cellText(std::to_string(r.wavefrontsUnswizzled) + " (" +
                     std::to_string(r.conflictWaysUnswizzled) + "-way)");
            if (model.measured) {
                cellText(r.measuredWavefronts
                             ? std::to_string(*r.measuredWavefronts) + (r.measuredLineShared ? " (line)" : "")
                             : "-");
                cellText(r.measuredIdealWavefronts ? std::to_string(*r.measuredIdealWavefronts) : "-");
            }
        }
        ImGui::EndTable();
    }
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
    drawPunchCard(model.card, "chosen layout");
    if (state.showUnswizzled) {
        ImGui::SameLine(0, 24);
        drawPunchCard(model.cardUnswizzled, "swizzle off");
    }
}

} // namespace tb::views
