// The pipeline schedule canvas: per T.Pipelined loop, a lane for the loads and one for the compute, a column
// per step of time; each load's issue (L) and completion (F) and each iteration's compute (C) is a chip
// coloured by the stage buffer it uses. Hovering a chip names what happens there.
#include "imgui.h"
#include "views/canvas/Views.h"
#include "views/model/Color.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace tb::views {

void drawPipelineSchedule(const PipelineScheduleViewModel& model, PipelineScheduleViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    if (model.pipelines.empty())
        ImGui::TextDisabled("no T.Pipelined loop in this kernel");
    state.hover.clear();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float label = 190, cell = 42, laneH = 34;
    for (const PipelineTimeline& t : model.pipelines) {
        ImGui::Separator();
        ImGui::Text("T.Pipelined at line %u: %s, %d stage(s), %s iterations", t.line, t.shape.c_str(),
                    t.stages, t.iterations < 0 ? "?" : std::to_string(t.iterations).c_str());
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", t.explanation.c_str());
        ImGui::PopTextWrapPos();
        const ImVec2 o = ImGui::GetCursorScreenPos();
        int64_t slots = 0;
        for (const ScheduleStep& s : t.steps)
            slots = std::max(slots, s.slot + 1);
        for (int64_t c = 0; c < slots; ++c) // the time axis
            draw->AddText(ImVec2(o.x + label + cell * float(c) + 4, o.y),
                          ImGui::GetColorU32(ImGuiCol_TextDisabled), ("t" + std::to_string(c)).c_str());
        // Steps of one kind in one lane and column share the cell side by side (the first loads all issue at
        // once).
        std::map<std::tuple<std::string, int64_t, int>, std::pair<int, int>> share; // -> (count, next index)
        for (const ScheduleStep& s : t.steps)
            ++share[{s.lane, s.slot, int(s.kind)}].first;
        for (size_t lane = 0; lane < t.lanes.size(); ++lane) {
            const float top = o.y + 16 + laneH * float(lane);
            draw->AddText(ImVec2(o.x, top + laneH / 2 - 7), ImGui::GetColorU32(ImGuiCol_Text),
                          t.lanes[lane].c_str());
            for (const ScheduleStep& s : t.steps) {
                if (s.lane != t.lanes[lane] || s.kind == ScheduleStepKind::Release)
                    continue;
                const float h = laneH - 6, half = s.kind == ScheduleStepKind::Compute ? h : h / 2;
                const float y = top + 3 + (s.kind == ScheduleStepKind::Complete ? h / 2 : 0);
                auto& [count, index] = share[{s.lane, s.slot, int(s.kind)}];
                const float w = (cell - 4) / float(std::max(count, 1));
                const ImVec2 a(o.x + label + cell * float(s.slot) + 2 + w * float(index++), y),
                    c(a.x + w - 1, y + half);
                draw->AddRectFilled(a, c, categoricalColor(s.stage, t.stages).packed(), 3);
                const std::string tag = std::string(s.kind == ScheduleStepKind::Issue      ? "L"
                                                    : s.kind == ScheduleStepKind::Complete ? "F"
                                                                                           : "C") +
                                        std::to_string(s.iteration);
                draw->AddText(ImVec2(a.x + 4, a.y + 1), IM_COL32(0, 0, 0, 255), tag.c_str());
                if (ImGui::IsMouseHoveringRect(a, c))
                    state.hover = s.label;
            }
        }
        ImGui::Dummy(ImVec2(label + cell * float(slots), 16 + laneH * float(t.lanes.size()) + 6));
    }
    ImGui::TextDisabled("L: loads issued, F: loads landed, C: compute; colour: the stage buffer");
    if (!state.hover.empty())
        ImGui::SetTooltip("%s", state.hover.c_str());
}

} // namespace tb::views
