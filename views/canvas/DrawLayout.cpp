// The layout canvas: buffer picker and toggles, then the zoomable, pannable element grid.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

unsigned int packedColor(const Rgba& color) {
    return color.packed();
}

void drawLayout(const LayoutViewModel& model, const std::vector<std::string>& buffers,
                LayoutViewState& state) {
    if (!buffers.empty()) {
        ImGui::SetNextItemWidth(180);
        int current = std::clamp(state.buffer, 0, int(buffers.size()) - 1);
        if (ImGui::BeginCombo("buffer", buffers[size_t(current)].c_str())) {
            for (size_t i = 0; i < buffers.size(); ++i)
                if (ImGui::Selectable(buffers[i].c_str(), int(i) == current))
                    state.buffer = int(i);
            ImGui::EndCombo();
        }
        ImGui::SameLine();
    }
    if (model.isFragment)
        ImGui::Checkbox("colour by warp", &state.byWarp);
    else
        ImGui::Checkbox("swizzle", &state.swizzle);
    ImGui::SameLine();
    ImGui::Checkbox("labels", &state.labels);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    ImGui::SliderFloat("zoom", &state.zoom, kLayoutMinZoom, kLayoutMaxZoom, "%.2fx");
    ImGui::SameLine();
    if (ImGui::SmallButton("Fit"))
        state.fitRequested = true;
    ImGui::SameLine();
    if (ImGui::SmallButton("Reset")) {
        state.zoom = 1;
        state.panX = state.panY = 0;
        state.fitRequested = false;
    }
    ImGui::TextUnformatted(model.title.c_str());
    ImGui::TextDisabled("%s", model.subtitle.c_str());
    if (!model.error.empty()) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", model.error.c_str());
        return;
    }
    if (model.empty()) {
        ImGui::TextDisabled("no buffer to show");
        return;
    }
    ImGui::TextUnformatted(state.hover.empty() ? "hover a cell; drag to pan, wheel to zoom"
                                               : state.hover.c_str());

    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    if (state.fitRequested) {
        LayoutZoom fit = fitLayoutGrid(model.rows, model.cols, avail.x, avail.y);
        state.zoom = fit.zoom;
        state.panX = fit.panX;
        state.panY = fit.panY;
        state.fitRequested = false;
    }
    ImGui::InvisibleButton("grid", ImVec2(std::max(avail.x, 10.0f), std::max(avail.y, 10.0f)));
    bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();
    if (hovered && io.MouseWheel != 0)
        state.zoom =
            std::clamp(state.zoom * (io.MouseWheel > 0 ? 1.15f : 1 / 1.15f), kLayoutMinZoom, kLayoutMaxZoom);
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
        state.panX += io.MouseDelta.x;
        state.panY += io.MouseDelta.y;
    }
    GridGeometry g{origin.x + state.panX, origin.y + state.panY, kLayoutCellWidth * state.zoom,
                   kLayoutCellHeight * state.zoom};
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y), true);
    int64_t firstRow = std::max<int64_t>(0, int64_t((origin.y - g.y0) / g.cellH));
    int64_t firstCol = std::max<int64_t>(0, int64_t((origin.x - g.x0) / g.cellW));
    int64_t lastRow = std::min<int64_t>(model.rows, int64_t((origin.y + avail.y - g.y0) / g.cellH) + 1);
    int64_t lastCol = std::min<int64_t>(model.cols, int64_t((origin.x + avail.x - g.x0) / g.cellW) + 1);
    bool labels = state.labels && g.cellW >= 30;
    for (int64_t r = firstRow; r < lastRow; ++r) {
        for (int64_t c = firstCol; c < lastCol; ++c) {
            const LayoutCell& cell = *model.cellAt(r, c);
            ImVec2 a(float(g.x0 + g.cellW * double(c)), float(g.y0 + g.cellH * double(r)));
            ImVec2 b(a.x + float(g.cellW) - 1, a.y + float(g.cellH) - 1);
            draw->AddRectFilled(a, b, cell.color.packed());
            if (cell.replicaThreads.size() > 1)
                draw->AddTriangleFilled(ImVec2(b.x - 6, a.y), ImVec2(b.x, a.y), ImVec2(b.x, a.y + 6),
                                        IM_COL32(0, 0, 0, 200));
            if (labels)
                draw->AddText(ImVec2(a.x + 2, a.y + 2), textColorOn(cell.color).packed(), cell.label.c_str());
        }
    }
    state.hover.clear();
    if (hovered) {
        if (auto hit = hitTestGrid(model, g, io.MousePos.x, io.MousePos.y)) {
            state.hover = model.describe(hit->first, hit->second);
            ImVec2 a(float(g.x0 + g.cellW * double(hit->second)), float(g.y0 + g.cellH * double(hit->first)));
            draw->AddRect(a, ImVec2(a.x + float(g.cellW), a.y + float(g.cellH)), IM_COL32(255, 255, 0, 255),
                          0, 0, 2);
            ImGui::SetTooltip("%s", state.hover.c_str());
        }
    }
    draw->PopClipRect();
}

} // namespace tb::views
