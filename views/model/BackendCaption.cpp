// Backend and instruction captions from the plan's gemm and copy decisions.
#include "views/model/BackendCaption.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

std::string gemmInstructionCaption(const layout::GemmPlan& gemm) {
    const layout::GemmInstruction& i = gemm.instruction;
    const bool wgmma = i.kind == layout::GemmInstructionKind::Wgmma;
    // wgmma's N is chosen per warpgroup tile: the grid's atom holds it (64 x inst_n).
    const int64_t m = wgmma && gemm.grid.atomM > 0 ? gemm.grid.atomM : i.m;
    const int64_t n = wgmma ? gemm.grid.atomN : i.n;
    return std::string(layout::gemmInstructionKindName(i.kind)) + " m" + std::to_string(m) + "n" +
           std::to_string(n) + "k" + std::to_string(i.k);
}

std::string backendCaption(Backend backend, const Target& target, const layout::KernelPlan& kernel) {
    std::string caption = std::string(backendName(backend)) + " backend";
    if (backend == Backend::Hopper)
        caption += " (" + target.name + ")";
    auto joined = [](const std::vector<std::string>& names) {
        std::string out;
        for (const std::string& name : names)
            out += (out.empty() ? "" : ", ") + name;
        return out;
    };
    auto addOnce = [](std::vector<std::string>& names, std::string name) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    };
    std::vector<std::string> gemms;
    for (const layout::GemmPlan& g : kernel.gemms)
        addOnce(gemms, gemmInstructionCaption(g));
    if (!gemms.empty())
        return caption + ": " + joined(gemms);
    std::vector<std::string> copies;
    for (const layout::CopyPlan& c : kernel.copies)
        if (c.instruction == layout::CopyInstruction::CpAsync ||
            c.instruction == layout::CopyInstruction::Tma)
            addOnce(copies, layout::copyInstructionName(c.instruction));
    return caption + ": no gemm" + (copies.empty() ? "" : "; " + joined(copies));
}

} // namespace tb::views
