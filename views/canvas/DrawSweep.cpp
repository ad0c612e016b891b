// The sweep canvas: metric picker, axes, the budget line and one point per variant.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <string>

namespace tb::views {

void drawSweep(const SweepPlotModel& model, SweepViewState& state) {
    int metric = int(state.metric);
    ImGui::RadioButton("shared memory", &metric, int(SweepMetric::SharedMemory));
    ImGui::SameLine();
    ImGui::RadioButton("time", &metric, int(SweepMetric::Time));
    ImGui::SameLine();
    ImGui::RadioButton("TFLOP/s", &metric, int(SweepMetric::Tflops));
    state.metric = SweepMetric(metric);
    ImGui::Text("%s = 1..%zu (current %lld); click a point to open that variant", model.parameter.c_str(),
                model.points.size(), static_cast<long long>(model.current));
    bool measured = std::any_of(model.points.begin(), model.points.end(),
                                [](const SweepPoint& p) { return p.milliseconds.has_value(); });
    if (state.metric != SweepMetric::SharedMemory && !measured)
        ImGui::TextDisabled("no measurements yet: profile on a GPU to fill time and TFLOP/s");
    ImVec2 avail = ImGui::GetContentRegionAvail();
    ImVec2 o = ImGui::GetCursorScreenPos();
    float x0 = o.x + 70, y0 = o.y + 10, w = std::max(100.0f, avail.x - 90), h = std::max(80.0f, avail.y - 40);
    ImGui::InvisibleButton("plot", ImVec2(w + 80, h + 30));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImU32 axis = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
    draw->AddLine(ImVec2(x0, y0 + h), ImVec2(x0 + w, y0 + h), axis);
    draw->AddLine(ImVec2(x0, y0), ImVec2(x0, y0 + h), axis);
    double top = model.axisMax(state.metric);
    for (int t = 0; t <= 4; ++t) {
        char buf[32];
        std::snprintf(buf, sizeof buf, state.metric == SweepMetric::SharedMemory ? "%.0f" : "%.3g",
                      top * t / 4);
        draw->AddText(ImVec2(o.x, y0 + h - h * float(t) / 4 - 6), text, buf);
    }
    if (state.metric == SweepMetric::SharedMemory && model.limitBytes > 0) {
        float y = y0 + h - h * float(double(model.limitBytes) / top);
        draw->AddLine(ImVec2(x0, y), ImVec2(x0 + w, y), kLimitLine.packed(), 2);
        draw->AddText(ImVec2(x0 + w - 140, y - 16), kLimitLine.packed(),
                      ("limit " + std::to_string(model.limitBytes)).c_str());
    }
    ImGuiIO& io = ImGui::GetIO();
    int hit =
        ImGui::IsItemHovered() ? model.hitTest(state.metric, x0, y0, w, h, io.MousePos.x, io.MousePos.y) : -1;
    state.hover.clear();
    for (size_t i = 0; i < model.points.size(); ++i) {
        const SweepPoint& p = model.points[i];
        auto [px, py] = model.position(state.metric, i, x0, y0, w, h);
        draw->AddText(ImVec2(float(px) - 4, y0 + h + 4), text, std::to_string(p.value).c_str());
        bool has = state.metric == SweepMetric::SharedMemory ||
                   (state.metric == SweepMetric::Time ? p.milliseconds.has_value() : p.tflops.has_value());
        if (!has)
            continue;
        Rgba c = p.fits ? kOkGreen : kConflictRed;
        draw->AddCircleFilled(ImVec2(float(px), float(py)), p.value == model.current ? 8.0f : 5.0f,
                              c.packed());
        if (int(i) == hit) {
            draw->AddCircle(ImVec2(float(px), float(py)), 10, IM_COL32(255, 255, 0, 255), 0, 2);
            state.hover = model.parameter + "=" + std::to_string(p.value) + ": " +
                          std::to_string(p.sharedBytes) + " bytes" + (p.fits ? "" : " (over the limit)");
            ImGui::SetTooltip("%s", state.hover.c_str());
        }
    }
    if (hit >= 0 && ImGui::IsItemClicked())
        state.clicked = hit;
}

} // namespace tb::views
