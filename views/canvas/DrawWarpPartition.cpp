// The warp-partition canvas: one scaled output tile per gemm, warps coloured, warpgroups outlined, atoms
// as a thin grid, and the accumulator exchanges listed underneath.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tb::views {

void drawWarpPartition(const WarpPartitionViewModel& model, WarpViewState& state) {
    ImGui::TextUnformatted(model.title.c_str());
    if (model.gemms.empty()) {
        ImGui::TextDisabled("no gemm in this kernel");
        return;
    }
    state.clickedLine = 0;
    state.hover.clear();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImGuiIO& io = ImGui::GetIO();
    float width = std::max(120.0f, ImGui::GetContentRegionAvail().x - 16);
    for (size_t gi = 0; gi < model.gemms.size(); ++gi) {
        const GemmPartition& p = model.gemms[gi];
        bool linked = state.highlightLine != 0 && p.line == state.highlightLine;
        ImGui::TextColored(linked ? ImVec4(1, 0.9f, 0.3f, 1) : ImGui::GetStyle().Colors[ImGuiCol_Text],
                           "%s  [%s, %s]", p.title.c_str(), p.instruction.c_str(), p.policy.c_str());
        ImGui::TextDisabled("%s", p.grid.c_str());
        if (p.M <= 0 || p.N <= 0)
            continue;
        float scale = std::min(width / float(p.N), 200.0f / float(p.M));
        ImVec2 o = ImGui::GetCursorScreenPos();
        std::string id = "gemm" + std::to_string(gi);
        ImGui::InvisibleButton(id.c_str(), ImVec2(float(p.N) * scale, float(p.M) * scale));
        if (ImGui::IsItemClicked())
            state.clickedLine = p.line;
        for (const WarpRect& r : p.warpRects)
            draw->AddRectFilled(
                ImVec2(o.x + float(r.n0) * scale, o.y + float(r.m0) * scale),
                ImVec2(o.x + float(r.n0 + r.n) * scale - 1, o.y + float(r.m0 + r.m) * scale - 1),
                r.color.packed());
        if (p.atomM > 0 && p.atomN > 0 && p.M / p.atomM <= 64 && p.N / p.atomN <= 64) {
            for (int64_t m = p.atomM; m < p.M; m += p.atomM)
                draw->AddLine(ImVec2(o.x, o.y + float(m) * scale),
                              ImVec2(o.x + float(p.N) * scale, o.y + float(m) * scale),
                              IM_COL32(255, 255, 255, 70));
            for (int64_t n = p.atomN; n < p.N; n += p.atomN)
                draw->AddLine(ImVec2(o.x + float(n) * scale, o.y),
                              ImVec2(o.x + float(n) * scale, o.y + float(p.M) * scale),
                              IM_COL32(255, 255, 255, 70));
        }
        for (const WarpRect& r : p.warpgroupRects) {
            ImVec2 a(o.x + float(r.n0) * scale, o.y + float(r.m0) * scale);
            ImVec2 b(o.x + float(r.n0 + r.n) * scale, o.y + float(r.m0 + r.m) * scale);
            draw->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0, 0, 3);
            std::string label = "warpgroup " + std::to_string(r.warpgroup);
            draw->AddText(ImVec2((a.x + b.x) / 2 - 40, (a.y + b.y) / 2 - 6), IM_COL32(0, 0, 0, 255),
                          label.c_str());
        }
        if (p.warpgroupRects.empty() && p.warpRects.size() <= 64)
            for (const WarpRect& r : p.warpRects)
                draw->AddText(ImVec2(o.x + (float(r.n0) + float(r.n) / 2) * scale - 8,
                                     o.y + (float(r.m0) + float(r.m) / 2) * scale - 6),
                              textColorOn(r.color).packed(), ("W" + std::to_string(r.warp)).c_str());
        if (linked)
            draw->AddRect(o, ImVec2(o.x + float(p.N) * scale, o.y + float(p.M) * scale),
                          IM_COL32(255, 230, 60, 255), 0, 0, 3);
        if (ImGui::IsItemHovered()) {
            int64_t row = int64_t((io.MousePos.y - o.y) / scale),
                    col = int64_t((io.MousePos.x - o.x) / scale);
            int64_t warp = p.warpAt(row, col);
            state.hover =
                "C[" + std::to_string(row) + ", " + std::to_string(col) + "] -> warp " + std::to_string(warp);
            ImGui::SetTooltip("%s", state.hover.c_str());
        }
        ImGui::Spacing();
    }
    for (const WarpExchange& x : model.exchanges) {
        ImGui::TextColored(ImVec4(1, 0.55f, 0.3f, 1), "exchange through shared memory:");
        ImGui::TextWrapped("%s", x.description.c_str());
    }
}

} // namespace tb::views
