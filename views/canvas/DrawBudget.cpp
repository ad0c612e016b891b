// The budget canvas: one stacked bar per buffer and the total, the limit line, blocks per SM.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <string>

namespace tb::views {

void drawBudget(const BudgetViewModel& model, BudgetViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    if (!model.source.empty())
        ImGui::TextDisabled("%s", model.source.c_str());
    // Wrapped: an over-limit summary is long, and its end says by how much.
    ImGui::PushStyleColor(ImGuiCol_Text, model.overLimit() ? ImVec4(1, 0.4f, 0.4f, 1)
                                                           : ImGui::GetStyle().Colors[ImGuiCol_Text]);
    ImGui::TextWrapped("%s", model.summary().c_str());
    ImGui::PopStyleColor();
    for (const std::string& line : model.occupancyLines())
        ImGui::TextDisabled("  %s", line.c_str());
    // A rejected budget has no kernel for ptxas to compile.
    if (!model.occupancy.registersKnown() && model.source.empty() &&
        ImGui::SmallButton("ask ptxas for the registers"))
        state.registersRequested = true;
    state.hover.clear();
    const float label = 150, rowH = 24;
    ImVec2 o = ImGui::GetCursorScreenPos();
    float width = std::max(100.0f, ImGui::GetContentRegionAvail().x - label - 20);
    double scale = model.axisBytes() > 0 ? width / double(model.axisBytes()) : 0;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    auto bar = [&](float y, const BudgetBar& b) {
        ImVec2 a(o.x + label + float(double(b.startBytes) * scale), y + 3);
        ImVec2 c(a.x + float(double(b.totalBytes) * scale), y + rowH - 3);
        draw->AddRectFilled(a, c, b.color.packed());
        for (int s = 1; s < b.stages; ++s) {
            float x = a.x + float(double(b.bytesPerStage) * s * scale);
            draw->AddLine(ImVec2(x, a.y), ImVec2(x, c.y), IM_COL32(0, 0, 0, 160));
        }
        if (ImGui::IsMouseHoveringRect(a, c))
            state.hover = b.buffer + ": " + std::to_string(b.bytesPerStage) + " bytes x " +
                          std::to_string(b.stages) + " stages = " + std::to_string(b.totalBytes) +
                          " bytes (" + b.layout + ")";
    };
    for (size_t i = 0; i < model.bars.size(); ++i) {
        float y = o.y + rowH * float(i);
        const BudgetBar& b = model.bars[i];
        draw->AddText(ImVec2(o.x, y + 5), ImGui::GetColorU32(ImGuiCol_Text),
                      (b.buffer + " x" + std::to_string(b.stages)).c_str());
        bar(y, b);
    }
    float y = o.y + rowH * float(model.bars.size());
    draw->AddText(ImVec2(o.x, y + 5), ImGui::GetColorU32(ImGuiCol_Text), "total");
    for (const BudgetBar& b : model.bars)
        bar(y, b);
    float limitX = o.x + label + float(double(model.limitBytes) * scale);
    draw->AddLine(ImVec2(limitX, o.y - 4), ImVec2(limitX, y + rowH + 4), kLimitLine.packed(), 2);
    const std::string limit = model.limitLabel();
    draw->AddText(ImVec2(limitX - ImGui::CalcTextSize(limit.c_str()).x, y + rowH + 6), kLimitLine.packed(),
                  limit.c_str());
    ImGui::Dummy(ImVec2(label + width, rowH * float(model.bars.size() + 1) + 26));
    if (!state.hover.empty())
        ImGui::SetTooltip("%s", state.hover.c_str());
}

} // namespace tb::views
