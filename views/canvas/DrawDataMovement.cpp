// The data-movement canvas: global memory, shared memory and registers as three columns of buffer boxes,
// an arrow per tile op from its source to its destination, and below them the moves with their bytes per
// block and the pipelined loops' stages. Hovering a move's line thickens its arrow; clicking it selects the
// line in the editor.
#include "imgui.h"
#include "views/canvas/Views.h"
#include "views/model/Color.h"

#include <algorithm>
#include <cmath>
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
    struct Box {
        ImVec2 min, max;
        int level = 0;
    };
    std::map<std::string, Box> boxes;
    float bottom = o.y + 20;
    for (int l = 0; l < 3; ++l) {
        const char* name = memoryLevelName(levels[l]);
        float x = o.x + column * float(l);
        draw->AddText(ImVec2(x + (column - ImGui::CalcTextSize(name).x) / 2, o.y), text, name);
        float y = o.y + 20;
        for (const MovedBuffer& b : model.buffers)
            if (b.level == levels[l]) {
                boxes[b.name] = {ImVec2(x + 24, y), ImVec2(x + column - 24, y + boxH), l};
                y += boxH + 10;
            }
        bottom = std::max(bottom, y);
    }
    // Arrows first, boxes over them: an arrow leaves its source box on the side facing its destination and
    // enters the destination's facing side, as a curve, with a head.
    for (size_t i = 0; i < model.moves.size(); ++i) {
        const DataMove& m = model.moves[i];
        auto to = boxes.find(m.to);
        if (to == boxes.end())
            continue;
        const ImU32 color = categoricalColor(int64_t(i), int64_t(model.moves.size())).packed();
        const float width = int(i) == state.hoveredMove ? 4.0f : 2.0f;
        for (const std::string& source : m.from) {
            auto from = boxes.find(source);
            if (from == boxes.end())
                continue;
            const Box &f = from->second, &t = to->second;
            const bool rightwards = t.level >= f.level;
            const float midF = (f.min.y + f.max.y) / 2, midT = (t.min.y + t.max.y) / 2;
            ImVec2 p0(rightwards ? f.max.x : f.min.x, midF), p3(rightwards ? t.min.x : t.max.x, midT);
            if (t.level == f.level) // within a level: out of the right side and back in
                p3 = ImVec2(t.max.x, midT);
            const float bend = t.level == f.level ? 30.0f : std::abs(p3.x - p0.x) * 0.4f;
            const float dir0 = rightwards ? 1.0f : -1.0f, dir3 = t.level == f.level ? 1.0f : -dir0;
            draw->AddBezierCubic(p0, ImVec2(p0.x + dir0 * bend, p0.y), ImVec2(p3.x + dir3 * bend, p3.y), p3,
                                 color, width);
            const float head = dir3 * 8;
            draw->AddTriangleFilled(p3, ImVec2(p3.x + head, p3.y - 5), ImVec2(p3.x + head, p3.y + 5), color);
        }
    }
    for (const MovedBuffer& b : model.buffers) {
        auto it = boxes.find(b.name);
        if (it == boxes.end())
            continue;
        const ImVec2 a = it->second.min, c = it->second.max;
        draw->AddRectFilled(a, c, ImGui::GetColorU32(ImGuiCol_FrameBg), 4);
        draw->AddRect(a, c, IM_COL32(90, 110, 150, 255), 4);
        std::string line1 = b.name + " " + b.shape + (b.stages > 1 ? " x" + std::to_string(b.stages) : "");
        std::string line2 = b.dtype + ", " + formatBytes(b.bytes) + (b.stages > 1 ? "/stage" : "");
        draw->AddText(ImVec2(a.x + 6, a.y + 3), text, line1.c_str());
        draw->AddText(ImVec2(a.x + 6, a.y + 19), ImGui::GetColorU32(ImGuiCol_TextDisabled), line2.c_str());
        if (ImGui::IsMouseHoveringRect(a, c))
            ImGui::SetTooltip("%s: %s %s in %s, %s%s", b.name.c_str(), b.dtype.c_str(), b.shape.c_str(),
                              memoryLevelName(b.level), formatBytes(b.bytes).c_str(),
                              b.stages > 1 ? (" per stage, " + std::to_string(b.stages) + " stages").c_str()
                                           : "");
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
    ImGui::PushTextWrapPos(0.0f); // the schedule's description is long: wrap it at the canvas edge
    for (const PipelineStages& p : model.pipelines)
        ImGui::TextDisabled("T.Pipelined at line %u: %d stage(s), %s iterations%s%s", p.line, p.stages,
                            p.iterations < 0 ? "?" : std::to_string(p.iterations).c_str(),
                            p.description.empty() ? "" : ": ", p.description.c_str());
    ImGui::PopTextWrapPos();
}

} // namespace tb::views
