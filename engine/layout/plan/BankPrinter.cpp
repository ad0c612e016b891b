// Text and JSON printers of the bank analysis. Accesses are listed by source line (stable within a line, in
// program order), so the output is deterministic.
#include "engine/layout/plan/BankPrinter.h"

#include "engine/layout/plan/BankTotals.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tb::layout {

namespace {

uint32_t columnOf(const SourceRange& range, const SourceManager& sources) {
    if (!range.valid || range.file >= sources.fileCount())
        return 0;
    return sources.file(range.file).lineCol(range.begin).column;
}

std::vector<const SharedAccessPlan*> sortedAccesses(const KernelPlan& kernel, const SourceManager& sources) {
    std::vector<const SharedAccessPlan*> out;
    for (const SharedAccessPlan& access : kernel.sharedAccesses)
        out.push_back(&access);
    std::stable_sort(out.begin(), out.end(), [&](const SharedAccessPlan* a, const SharedAccessPlan* b) {
        return sources.lineOf(a->range) < sources.lineOf(b->range);
    });
    return out;
}

std::string kernelName(const KernelPlan& kernel, size_t index) {
    // The PrimFunc's name; a func that launches several kernels (macros) numbers the later ones.
    std::string name = kernel.func ? kernel.func->name : "kernel";
    return index == 0 ? name : name + "#" + std::to_string(index);
}

// A table with right-aligned numeric columns and left-aligned text columns.
class Table {
public:
    explicit Table(std::vector<std::string> header, std::vector<bool> leftAligned)
        : m_left(std::move(leftAligned)) {
        m_rows.push_back(std::move(header));
    }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string str() const {
        std::vector<size_t> widths;
        for (const auto& row : m_rows)
            for (size_t c = 0; c < row.size(); ++c) {
                if (widths.size() <= c)
                    widths.push_back(0);
                widths[c] = std::max(widths[c], row[c].size());
            }
        std::string out;
        for (const auto& row : m_rows) {
            std::string line;
            for (size_t c = 0; c < row.size(); ++c) {
                std::string pad(widths[c] - row[c].size(), ' ');
                bool left = c < m_left.size() && m_left[c];
                line += (c ? "  " : "") + (left ? row[c] + pad : pad + row[c]);
            }
            while (!line.empty() && line.back() == ' ')
                line.pop_back();
            out += line + "\n";
        }
        return out;
    }

private:
    std::vector<bool> m_left;
    std::vector<std::vector<std::string>> m_rows;
};

std::string num(int64_t value) {
    return std::to_string(value);
}

std::string perKernel(int64_t perBlock, int64_t blocks) {
    if (blocks <= 0)
        return "? (grid not constant)";
    return std::to_string(perBlock * blocks);
}

void writeCost(JsonWriter& json, const BankCost& cost) {
    json.beginObject();
    json.field("wavefronts", cost.wavefronts);
    json.field("idealWavefronts", cost.idealWavefronts);
    json.field("conflictWays", cost.conflictWays);
    json.field("pairedLoad", cost.pairedLoad);
    json.field("cpAsyncCgRowSpread", cost.cpAsyncCgRowSpread);
    json.key("phases").beginArray();
    for (const BankPhase& phase : cost.phases) {
        json.beginObject();
        json.field("lanes", phase.lanes);
        json.field("wavefronts", phase.wavefronts);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

void writeAccess(JsonWriter& json, const WarpAccess& access) {
    json.beginObject();
    json.field("kind", sharedAccessKindName(access.kind));
    json.field("widthBytes", access.widthBytes);
    json.field("matrices", access.matrices);
    json.field("transposed", access.transposed);
    json.field("activeMask", participatingLanes(access));
    json.key("addresses").beginArray();
    for (int64_t address : access.address)
        json.value(address);
    json.endArray();
    json.key("banks").beginArray(); // first bank of each lane's bytes
    for (int64_t address : access.address)
        json.value(bankOf(address));
    json.endArray();
    json.endObject();
}

void writeTotals(JsonWriter& json, const BankTotals& t) {
    json.beginObject();
    json.field("instructions", t.instructions);
    json.field("wavefronts", t.wavefronts);
    json.field("idealWavefronts", t.idealWavefronts);
    json.field("bankConflicts", t.bankConflicts());
    json.field("wavefrontsUnswizzled", t.wavefrontsUnswizzled);
    json.field("sassWavefronts", t.sassWavefronts);
    json.field("sassIdealWavefronts", t.sassIdealWavefronts);
    json.endObject();
}

} // namespace

std::string printBankTable(const LayoutPlan& plan, const SourceManager& sources) {
    std::string out;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
        const KernelPlan& kernel = plan.kernels[k];
        KernelBankTotals totals = bankTotalsPerKernel(kernel);
        out += "kernel " + kernelName(kernel, k) + " (" + plan.target.name + ", " + num(kernel.threads) +
               " threads, " + (totals.blocks > 0 ? num(totals.blocks) : std::string("?")) + " blocks)\n";
        if (kernel.sharedAccesses.empty()) {
            out += "  no shared-memory accesses\n\n";
            continue;
        }
        out +=
            "per access (per block; wavefronts by the hardware rule, N-way of the costliest instruction):\n";
        Table table({"line", "buffer", "access", "sass", "execs", "instrs", "ideal", "wavefronts", "n-way",
                     "no-swizzle", "n-way", "sass-metric"},
                    {false, true, true, true});
        std::vector<std::string> notes, conditions;
        for (const SharedAccessPlan* a : sortedAccesses(kernel, sources)) {
            std::string flags = a->condition.empty() ? "" : " [if]";
            if (!a->visibleToCounters)
                flags += a->wgmmaOperand ? " [wgmma: no counter]" : " [no counter]";
            if (a->rowSpreadInstructionsPerBlock > 0)
                flags += " [row-spread x" + num(a->rowSpreadInstructionsPerBlock) + "]";
            table.add(
                {num(sources.lineOf(a->range)), a->buffer ? a->buffer->name : "red_buf", a->role + flags,
                 a->instruction, num(a->executionsPerBlock) + (a->executionsExact ? "" : "?"),
                 num(a->instructionsPerBlock), num(a->idealWavefrontsPerBlock), num(a->wavefrontsPerBlock),
                 num(a->hardware.conflictWays), num(a->wavefrontsPerBlockUnswizzled),
                 num(a->hardwareUnswizzled.conflictWays), num(a->sassWavefrontsPerBlock)});
            if (!a->note.empty())
                notes.push_back("  line " + num(sources.lineOf(a->range)) + " " + a->role + ": " + a->note);
            if (!a->condition.empty())
                conditions.push_back("  line " + num(sources.lineOf(a->range)) + " " + a->role + ": if " +
                                     a->condition);
        }
        out += table.str();
        for (const std::string& note : notes)
            out += note + "\n";
        if (!conditions.empty()) {
            out +=
                "[if]: runs only when its condition holds, which the static analysis cannot decide; counted "
                "once per execution of the op, so its totals are upper bounds (a profile measures them):\n";
            for (const std::string& condition : conditions)
                out += condition + "\n";
        }
        out += "per line (per block):\n";
        Table lines({"line", "instrs", "ideal", "wavefronts", "no-swizzle", "sass-metric", "wgmma"}, {});
        for (const LineBankTotals& line : bankTotalsPerLine(kernel, sources))
            lines.add({num(line.line), num(line.lsu.instructions), num(line.lsu.idealWavefronts),
                       num(line.lsu.wavefronts), num(line.lsu.wavefrontsUnswizzled), num(line.sassComparable),
                       num(line.wgmma.wavefronts)});
        out += lines.str();
        out += "per kernel (hardware counters; per block and x" +
               (totals.blocks > 0 ? num(totals.blocks) : std::string("?")) + " blocks" +
               (totals.exact ? "" : ", some trip counts not constant") +
               (totals.conditionalAccesses
                    ? ", upper bounds: " + num(totals.conditionalAccesses) + " accesses under a condition"
                    : "") +
               "):\n";
        Table counters({"counter", "per block", "per kernel"}, {true});
        counters.add({"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", num(totals.opLd),
                      perKernel(totals.opLd, totals.blocks)});
        counters.add({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld",
                      num(totals.opLd - totals.opLdIdeal),
                      perKernel(totals.opLd - totals.opLdIdeal, totals.blocks)});
        counters.add({"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st", num(totals.opSt),
                      perKernel(totals.opSt, totals.blocks)});
        counters.add({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
                      num(totals.opSt - totals.opStIdeal),
                      perKernel(totals.opSt - totals.opStIdeal, totals.blocks)});
        counters.add({"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared (model)", num(totals.sassComparable),
                      perKernel(totals.sassComparable, totals.blocks)});
        counters.add({"cp.async.ca (LDGSTS, not in op_ld/op_st)", num(totals.cpAsyncCa),
                      perKernel(totals.cpAsyncCa, totals.blocks)});
        counters.add({"cp.async.cg (no counter; rule 5 model)", num(totals.cpAsyncCg),
                      perKernel(totals.cpAsyncCg, totals.blocks)});
        counters.add({"wgmma operand reads (model; no counter)", num(totals.wgmma.wavefronts),
                      perKernel(totals.wgmma.wavefronts, totals.blocks)});
        out += counters.str();
        out += "all LSU accesses: " + num(totals.lsu.wavefronts) + " wavefronts/block (ideal " +
               num(totals.lsu.idealWavefronts) + ", without swizzle " + num(totals.lsu.wavefrontsUnswizzled) +
               ")\n";
        if (totals.rowSpreadInstructions > 0)
            out += "warning: " + num(totals.rowSpreadInstructions) +
                   " cp.async.cg instructions per block write more than one 128-byte row per quarter-warp "
                   "(bank-rules.md rule 6: measured 45x slower)\n";
        out += "\n";
    }
    return out;
}

void writeBankJson(JsonWriter& json, const LayoutPlan& plan, const SourceManager& sources) {
    json.beginObject();
    json.field("target", plan.target.name);
    json.key("kernels").beginArray();
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
        const KernelPlan& kernel = plan.kernels[k];
        KernelBankTotals totals = bankTotalsPerKernel(kernel);
        json.beginObject();
        json.field("name", kernelName(kernel, k));
        json.field("line", kernel.kernel ? sources.lineOf(kernel.kernel->range) : 0u);
        json.field("threads", kernel.threads);
        json.field("blocks", totals.blocks);
        json.key("accesses").beginArray();
        for (const SharedAccessPlan* a : sortedAccesses(kernel, sources)) {
            json.beginObject();
            json.field("line", sources.lineOf(a->range));
            json.field("column", columnOf(a->range, sources));
            json.key("buffer");
            if (a->buffer)
                json.value(a->buffer->name);
            else
                json.value("red_buf");
            json.field("role", a->role);
            json.field("instruction", a->instruction);
            json.field("kind", sharedAccessKindName(a->access.kind));
            json.field("isStore", a->isStore);
            json.field("wgmma", a->wgmmaOperand);
            json.field("visibleToCounters", a->visibleToCounters);
            json.field("executionsPerBlock", a->executionsPerBlock);
            json.field("executionsExact", a->executionsExact);
            json.key("condition");
            if (a->condition.empty())
                json.null();
            else
                json.value(a->condition);
            json.field("instructionsPerBlock", a->instructionsPerBlock);
            json.field("wavefrontsPerBlock", a->wavefrontsPerBlock);
            json.field("idealWavefrontsPerBlock", a->idealWavefrontsPerBlock);
            json.field("wavefrontsPerBlockUnswizzled", a->wavefrontsPerBlockUnswizzled);
            json.field("sassWavefrontsPerBlock", a->sassWavefrontsPerBlock);
            json.field("sassIdealWavefrontsPerBlock", a->sassIdealWavefrontsPerBlock);
            json.field("rowSpreadInstructionsPerBlock", a->rowSpreadInstructionsPerBlock);
            json.field("note", a->note);
            json.key("representative").beginObject();
            json.key("access");
            writeAccess(json, a->access);
            json.key("accessUnswizzled");
            writeAccess(json, a->accessUnswizzled);
            json.key("hardware");
            writeCost(json, a->hardware);
            json.key("sassMetric");
            writeCost(json, a->sassMetric);
            json.key("hardwareUnswizzled");
            writeCost(json, a->hardwareUnswizzled);
            json.endObject();
            json.endObject();
        }
        json.endArray();
        json.key("lines").beginArray();
        for (const LineBankTotals& line : bankTotalsPerLine(kernel, sources)) {
            json.beginObject();
            json.field("line", line.line);
            json.key("lsu");
            writeTotals(json, line.lsu);
            json.key("wgmma");
            writeTotals(json, line.wgmma);
            json.field("sassComparable", line.sassComparable);
            json.field("exact", line.exact);
            json.field("conditional", line.conditional);
            json.endObject();
        }
        json.endArray();
        json.key("totals").beginObject();
        json.key("lsu");
        writeTotals(json, totals.lsu);
        json.key("wgmma");
        writeTotals(json, totals.wgmma);
        json.key("perBlock").beginObject();
        json.field("opLd", totals.opLd);
        json.field("opLdConflicts", totals.opLd - totals.opLdIdeal);
        json.field("opSt", totals.opSt);
        json.field("opStConflicts", totals.opSt - totals.opStIdeal);
        json.field("sassComparable", totals.sassComparable);
        json.field("cpAsyncCa", totals.cpAsyncCa);
        json.field("cpAsyncCg", totals.cpAsyncCg);
        json.field("wgmma", totals.wgmma.wavefronts);
        json.field("rowSpreadInstructions", totals.rowSpreadInstructions);
        json.endObject();
        json.key("perKernel");
        if (totals.blocks > 0) {
            json.beginObject();
            json.field("opLd", totals.opLd * totals.blocks);
            json.field("opLdConflicts", (totals.opLd - totals.opLdIdeal) * totals.blocks);
            json.field("opSt", totals.opSt * totals.blocks);
            json.field("opStConflicts", (totals.opSt - totals.opStIdeal) * totals.blocks);
            json.field("sassComparable", totals.sassComparable * totals.blocks);
            json.endObject();
        } else {
            json.null();
        }
        json.field("exact", totals.exact);
        json.field("conditionalAccesses", totals.conditionalAccesses);
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

std::string printBankJson(const LayoutPlan& plan, const SourceManager& sources) {
    JsonWriter json;
    writeBankJson(json, plan, sources);
    return json.str() + "\n";
}

} // namespace tb::layout
