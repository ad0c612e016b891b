// What every canvas draws around its view: the backend strip on top, the out-of-date veil over a picture
// that no longer matches the program.
#include "imgui.h"
#include "views/canvas/Views.h"

#include <string>

namespace tb::views {

void drawBackendBar(BackendBarState& state) {
    state.choiceCenters.clear();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("backend:");
    for (size_t i = 0; i < state.backends.size(); ++i) {
        ImGui::SameLine();
        if (ImGui::RadioButton(state.backends[i].c_str(), int(i) == state.current) && int(i) != state.current)
            state.requested = int(i);
        ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        // The radio circle sits at the item's left: aim there.
        state.choiceCenters.emplace_back(a.x + (b.y - a.y) / 2, (a.y + b.y) / 2);
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(state.caption.c_str());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "the backend and instructions this picture was planned for; pick another backend to "
            "re-plan the program with it (the same setting as View > Backend)");
    ImGui::Separator();
    state.bottom = ImGui::GetCursorScreenPos().y;
}

void drawOutOfDate(const std::string& reason, float top) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    ImVec2 min(viewport->Pos.x, top),
        max(viewport->Pos.x + viewport->Size.x, viewport->Pos.y + viewport->Size.y);
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    draw->AddRectFilled(min, max, ImGui::GetColorU32(ImVec4(bg.x, bg.y, bg.z, 0.7f)));
    const std::string headline = "out of date: the program has errors";
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float pad = 6;
    ImVec2 bannerMax(max.x, top + pad * 2 + line * (reason.empty() ? 1 : 2));
    draw->AddRectFilled(min, bannerMax, kOutOfDateBanner.packed());
    const ImU32 ink = IM_COL32(0, 0, 0, 255);
    draw->AddText(ImVec2(min.x + pad, top + pad), ink, headline.c_str());
    if (!reason.empty())
        draw->AddText(nullptr, 0, ImVec2(min.x + pad, top + pad + line), ink, reason.c_str(), nullptr,
                      max.x - min.x - 2 * pad);
}

} // namespace tb::views
