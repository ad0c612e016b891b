// The sweep canvas: metric picker, axes, the budget line and one point per variant.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace tb::views {

void drawSweep(const SweepPlotModel& model, SweepViewState& state) {
    int metric = int(state.metric);
    ImGui::RadioButton("shared memory", &metric, int(SweepMetric::SharedMemory));
    ImGui::SameLine();
    ImGui::RadioButton("time", &metric, int(SweepMetric::Time));
    ImGui::SameLine();
    ImGui::RadioButton("TFLOP/s", &metric, int(SweepMetric::Tflops));
    state.metric = SweepMetric(metric);
    ImGui::Text("%s = 1..%zu (current %lld); click a point to %s", model.parameter.c_str(),
                model.points.size(), static_cast<long long>(model.current),
                model.literal ? "edit the literal in the source (Ctrl+Z undoes)" : "open that variant");
    for (const std::string& note : model.notes)
        ImGui::TextDisabled("%s", note.c_str());
    if (model.pending)
        ImGui::TextDisabled("compiling the variants...");
    if (!model.error.empty())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", model.error.c_str());
    bool measured = std::any_of(model.points.begin(), model.points.end(),
                                [](const SweepPoint& p) { return p.milliseconds.has_value(); });
    if (state.metric != SweepMetric::SharedMemory && !measured)
        ImGui::TextDisabled("no measurements yet: run Sweep in the Run panel to fill time and TFLOP/s");
    else if (measured && !model.measuredNote.empty())
        ImGui::TextDisabled("%s", model.measuredNote.c_str());
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
    if (state.metric != SweepMetric::SharedMemory) {
        // The budget line of a time plot: a vertical mark between the last variant that fits shared
        // memory and the first that does not, everything right of it over the limit.
        for (size_t i = 1; i < model.points.size(); ++i)
            if (model.points[i - 1].fits && !model.points[i].fits) {
                float xa = float(model.position(state.metric, i - 1, x0, y0, w, h).first);
                float xb = float(model.position(state.metric, i, x0, y0, w, h).first);
                float xm = (xa + xb) / 2;
                draw->AddLine(ImVec2(xm, y0), ImVec2(xm, y0 + h), kLimitLine.packed(), 2);
                draw->AddText(ImVec2(xm + 4, y0), kLimitLine.packed(), "over the shared-memory limit");
                break;
            }
        // Measured points joined in order.
        std::optional<std::pair<double, double>> previous;
        for (size_t i = 0; i < model.points.size(); ++i) {
            const SweepPoint& p = model.points[i];
            bool has = state.metric == SweepMetric::Time ? p.milliseconds.has_value() : p.tflops.has_value();
            if (!has)
                continue;
            auto at = model.position(state.metric, i, x0, y0, w, h);
            if (previous)
                draw->AddLine(ImVec2(float(previous->first), float(previous->second)),
                              ImVec2(float(at.first), float(at.second)), axis, 1.5f);
            previous = at;
        }
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
        if (!has) {
            if (!p.measuredStatus.empty()) {
                // A variant that did not run: a cross on the axis, its reason on hover.
                ImVec2 c(float(px), y0 + h - 6);
                draw->AddLine(ImVec2(c.x - 5, c.y - 5), ImVec2(c.x + 5, c.y + 5), kConflictRed.packed(), 2);
                draw->AddLine(ImVec2(c.x - 5, c.y + 5), ImVec2(c.x + 5, c.y - 5), kConflictRed.packed(), 2);
                if (ImGui::IsMouseHoveringRect(ImVec2(c.x - 8, c.y - 8), ImVec2(c.x + 8, c.y + 8)))
                    ImGui::SetTooltip("%s=%lld: %s", model.parameter.c_str(), static_cast<long long>(p.value),
                                      p.measuredStatus.c_str());
            }
            continue;
        }
        Rgba c = p.fits ? kOkGreen : kConflictRed;
        draw->AddCircleFilled(ImVec2(float(px), float(py)), p.value == model.current ? 8.0f : 5.0f,
                              c.packed());
        if (int(i) == hit) {
            draw->AddCircle(ImVec2(float(px), float(py)), 10, IM_COL32(255, 255, 0, 255), 0, 2);
            state.hover = model.parameter + "=" + std::to_string(p.value) + ": " +
                          std::to_string(p.sharedBytes) + " bytes" + (p.fits ? "" : " (over the limit)") +
                          (p.status.empty() ? "" : "; " + p.status);
            if (p.milliseconds) {
                char buf[96];
                std::snprintf(buf, sizeof buf, "; %.4g ms, %.3g TFLOP/s", *p.milliseconds,
                              p.tflops.value_or(0));
                state.hover += buf;
            }
            ImGui::SetTooltip("%s", state.hover.c_str());
        }
    }
    if (hit >= 0 && ImGui::IsItemClicked())
        state.clicked = hit;
}

} // namespace tb::views
