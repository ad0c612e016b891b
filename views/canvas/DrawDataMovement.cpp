// The data-movement canvas: global memory, shared memory and registers as three columns of buffer boxes,
// an arrow per tile op from its source to its destination, and below them the moves with their bytes per
// block and the pipelined loops' stages. Hovering a move's line thickens its arrow; clicking it selects the
// line in the editor.
#include "imgui.h"
#include "views/canvas/Views.h"
#include "views/model/Color.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace tb::views {

void drawDataMovement(const DataMovementViewModel& model, DataMovementViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    ImGui::TextDisabled("global bytes per block: read %s, written %s",
                        formatBytes(model.globalBytesReadPerBlock).c_str(),
                        formatBytes(model.globalBytesWrittenPerBlock).c_str());
    const MemoryLevel levels[] = {MemoryLevel::Global, MemoryLevel::Shared, MemoryLevel::Registers};
    const float column = std::max(180.0f, (ImGui::GetContentRegionAvail().x - 20) / 3), boxH = 36;
    ImVec2 o = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    std::map<std::string, ImVec2> centre;
    float bottom = o.y + 20;
    for (int l = 0; l < 3; ++l) {
        const char* name = memoryLevelName(levels[l]);
        float x = o.x + column * float(l);
        draw->AddText(ImVec2(x + (column - ImGui::CalcTextSize(name).x) / 2, o.y), text, name);
        float y = o.y + 20;
        for (const MovedBuffer& b : model.buffers) {
            if (b.level != levels[l])
                continue;
            ImVec2 a(x + 8, y), c(x + column - 8, y + boxH);
            draw->AddRectFilled(a, c, IM_COL32(90, 110, 150, 70), 4);
            draw->AddRect(a, c, IM_COL32(90, 110, 150, 255), 4);
            std::string line1 =
                b.name + " " + b.shape + (b.stages > 1 ? " x" + std::to_string(b.stages) : "");
            std::string line2 = b.dtype + ", " + formatBytes(b.bytes);
            draw->AddText(ImVec2(a.x + 6, a.y + 3), text, line1.c_str());
            draw->AddText(ImVec2(a.x + 6, a.y + 19), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                          line2.c_str());
            if (ImGui::IsMouseHoveringRect(a, c))
                ImGui::SetTooltip(
                    "%s: %s %s in %s, %s%s", b.name.c_str(), b.dtype.c_str(), b.shape.c_str(),
                    memoryLevelName(b.level), formatBytes(b.bytes).c_str(),
                    b.stages > 1 ? (" per stage, " + std::to_string(b.stages) + " stages").c_str() : "");
            centre[b.name] = ImVec2((a.x + c.x) / 2, (a.y + c.y) / 2);
            y += boxH + 8;
        }
        bottom = std::max(bottom, y);
    }
    for (size_t i = 0; i < model.moves.size(); ++i) {
        const DataMove& m = model.moves[i];
        auto from = centre.find(m.from.empty() ? std::string() : m.from.front());
        auto to = centre.find(m.to);
        if (from == centre.end() || to == centre.end())
            continue;
        const ImU32 color = categoricalColor(int64_t(i), int64_t(model.moves.size())).packed();
        const float width = int(i) == state.hoveredMove ? 4.0f : 2.0f;
        draw->AddLine(from->second, to->second, color, width);
        draw->AddCircleFilled(to->second, 5, color);
    }
    ImGui::Dummy(ImVec2(column * 3, bottom - o.y + 8));
    state.hoveredMove = -1;
    for (size_t i = 0; i < model.moves.size(); ++i) {
        const DataMove& m = model.moves[i];
        ImGui::ColorButton(("##move" + std::to_string(i)).c_str(),
                           ImGui::ColorConvertU32ToFloat4(
                               categoricalColor(int64_t(i), int64_t(model.moves.size())).packed()),
                           ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
        ImGui::SameLine();
        if (ImGui::Selectable(m.summary().c_str(), false))
            state.clickedLine = m.line;
        if (ImGui::IsItemHovered())
            state.hoveredMove = int(i);
    }
    for (const PipelineStages& p : model.pipelines)
        ImGui::TextDisabled("T.Pipelined at line %u: %d stage(s), %s iterations%s%s", p.line, p.stages,
                            p.iterations < 0 ? "?" : std::to_string(p.iterations).c_str(),
                            p.description.empty() ? "" : ": ", p.description.c_str());
}

} // namespace tb::views
