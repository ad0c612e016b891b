// The bank-analysis pass: costs every enumerated warp instruction with the bank model and keeps per-site
// totals, plus the aggregation into per-line and per-kernel numbers.
#include "engine/passes/BankAnalysis.h"

#include "engine/layout/bank/BankCost.h"
#include "engine/passes/SharedAccessEnumeration.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace tb::passes {

namespace {

int64_t saturatingMul(int64_t a, int64_t b) {
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        return INT64_MAX / 4;
    return out;
}

// Costs each instruction as it arrives; per-execution sums, multiplied by the executions at the end.
class CostingConsumer : public SharedAccessConsumer {
public:
    explicit CostingConsumer(std::vector<layout::SharedAccessPlan>& out) : m_out(out) {}

    void beginSite(const SharedAccessSite& site) override {
        m_site = site;
        m_plan = layout::SharedAccessPlan{};
        m_plan.op = site.op;
        m_plan.buffer = site.buffer;
        m_plan.role = site.role;
        m_plan.range = site.range;
        m_plan.isStore = site.isStore;
        m_plan.wgmmaOperand = site.wgmmaOperand;
        m_plan.executionsPerBlock = site.executionsPerBlock;
        m_plan.executionsExact = site.executionsExact;
        m_plan.condition = site.condition;
        m_plan.note = site.note;
        m_plan.visibleToCounters = !site.wgmmaOperand && site.kind != SharedAccessKind::CpAsyncCg;
        m_count = m_wf = m_ideal = m_plain = m_sass = m_sassIdeal = m_rowSpread = 0;
        m_haveRepresentative = false;
    }

private:
    std::unordered_map<std::string, BankCost> m_costCache;

public:
    // A kernel repeats a few access patterns many times (every row, every k-step). Costs depend only on
    // addresses modulo whole 128-byte rows (32 banks of 4 bytes) and on which lanes share a word, so a
    // pattern shifted by a multiple of 128 bytes costs the same: key the cache on the shifted pattern.
    const BankCost& cachedCost(const WarpAccess& access, BankModelKind model) {
        int64_t base = INT64_MAX;
        for (int64_t a : access.address)
            base = std::min(base, a);
        base = base >= 0 ? base / 128 * 128 : 0;
        std::string key;
        key.reserve(8 + 32 * sizeof(int64_t));
        key.push_back(static_cast<char>(model));
        key.push_back(static_cast<char>(access.kind));
        key.push_back(static_cast<char>(access.widthBytes));
        key.push_back(static_cast<char>(access.matrices));
        key.push_back(static_cast<char>(access.transposed));
        key.append(reinterpret_cast<const char*>(&access.activeMask), sizeof access.activeMask);
        for (int64_t a : access.address) {
            int64_t shifted = a - base;
            key.append(reinterpret_cast<const char*>(&shifted), sizeof shifted);
        }
        auto it = m_costCache.find(key);
        if (it == m_costCache.end()) {
            if (m_costCache.size() > 65536)
                m_costCache.clear();
            it = m_costCache.emplace(std::move(key), bankCost(access, model)).first;
        }
        return it->second;
    }

    void instruction(const WarpAccess& chosen, const WarpAccess& plain) override {
        const BankCost& hw = cachedCost(chosen, BankModelKind::Hardware);
        const BankCost& sass = cachedCost(chosen, BankModelKind::SassMetric);
        const BankCost& hwPlain = cachedCost(plain, BankModelKind::Hardware);
        ++m_count;
        m_wf += hw.wavefronts;
        m_ideal += hw.idealWavefronts;
        m_plain += hwPlain.wavefronts;
        m_sass += sass.wavefronts;
        m_sassIdeal += sass.idealWavefronts;
        if (hw.cpAsyncCgRowSpread)
            ++m_rowSpread;
        // The representative is the costliest instruction under the chosen layout (the first on ties), so
        // a conflict anywhere in the op shows on the punch card; its plain twin is the same instruction.
        // Ties go to the costlier plain twin, so a swizzle's effect shows too.
        if (!m_haveRepresentative || hw.wavefronts > m_plan.hardware.wavefronts ||
            (hw.wavefronts == m_plan.hardware.wavefronts &&
             hwPlain.wavefronts > m_plan.hardwareUnswizzled.wavefronts)) {
            m_haveRepresentative = true;
            m_plan.access = chosen;
            m_plan.accessUnswizzled = plain;
            m_plan.hardware = hw;
            m_plan.sassMetric = sass;
            m_plan.hardwareUnswizzled = hwPlain;
        }
    }

    void endSite() override {
        if (m_count == 0)
            return; // no lane of any warp touches the buffer: nothing to report
        int64_t x = m_plan.executionsPerBlock;
        m_plan.instructionsPerBlock = saturatingMul(m_count, x);
        m_plan.wavefrontsPerBlock = saturatingMul(m_wf, x);
        m_plan.idealWavefrontsPerBlock = saturatingMul(m_ideal, x);
        m_plan.wavefrontsPerBlockUnswizzled = saturatingMul(m_plain, x);
        m_plan.sassWavefrontsPerBlock = saturatingMul(m_sass, x);
        m_plan.sassIdealWavefrontsPerBlock = saturatingMul(m_sassIdeal, x);
        m_plan.rowSpreadInstructionsPerBlock = saturatingMul(m_rowSpread, x);
        const WarpAccess& a = m_plan.access;
        m_plan.instruction = m_plan.wgmmaOperand
                                 ? "wgmma descriptor"
                                 : sassOpcodeName(a.kind, a.widthBytes, a.matrices, a.transposed);
        m_out.push_back(std::move(m_plan));
    }

private:
    std::vector<layout::SharedAccessPlan>& m_out;
    SharedAccessSite m_site;
    layout::SharedAccessPlan m_plan;
    int64_t m_count = 0, m_wf = 0, m_ideal = 0, m_plain = 0, m_sass = 0, m_sassIdeal = 0, m_rowSpread = 0;
    bool m_haveRepresentative = false;
};

} // namespace

void analyzeKernelSharedAccesses(layout::KernelPlan& kernel, const Target& target,
                                 DiagnosticEngine& diagnostics) {
    kernel.sharedAccesses.clear();
    CostingConsumer consumer(kernel.sharedAccesses);
    enumerateSharedAccesses(kernel, target, consumer, diagnostics);
}

void analyzeSharedAccesses(const ir::Module& module, layout::LayoutPlan& plan, const Target& target,
                           DiagnosticEngine& diagnostics) {
    (void)module; // the plan's IR pointers refer into it; nothing else is needed from it
    for (layout::KernelPlan& kernel : plan.kernels)
        analyzeKernelSharedAccesses(kernel, target, diagnostics);
}

} // namespace tb::passes
