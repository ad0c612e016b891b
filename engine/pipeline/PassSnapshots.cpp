// Pass snapshots: each pass's output as printed text with tile-line links; see PassSnapshots.h. The plan
// sections are printed by the plan and bank printers from a copy of the plan that keeps only the section
// in question, so the text is exactly what `tilec plan`, `tilec layouts` and `tilec banks` print for it.
#include "engine/pipeline/PassSnapshots.h"

#include "engine/frontend/Ast.h"
#include "engine/ir/Printer.h"
#include "engine/layout/plan/BankPrinter.h"
#include "engine/layout/plan/PlanPrinter.h"
#include "engine/pipeline/GeneratedArtifacts.h"
#include "engine/pipeline/PassTable.h"
#include "engine/support/LineDiff.h"
#include "engine/support/TextScan.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace tb {

namespace {

size_t indentOf(const std::string& line) {
    size_t n = 0;
    while (n < line.size() && line[n] == ' ')
        ++n;
    return n;
}

using Snapshot = PassText;

Snapshot join(const std::vector<std::string>& lines, const std::vector<int>& links) {
    Snapshot s;
    for (const std::string& l : lines)
        s.text += l + "\n";
    s.tileLines = links;
    s.tileLines.resize(lines.size(), 0);
    return s;
}

// Links for the plan printers' text: " at line N" on the line itself, else the nearest enclosing (less
// indented) line's link; buffer lines of the layouts listing link to the buffer's allocation.
std::vector<int> planTextLinks(const std::vector<std::string>& lines, const layout::LayoutPlan& plan,
                               const SourceManager& sources) {
    std::vector<int> links(lines.size(), 0);
    std::vector<std::pair<size_t, int>> enclosing; // (indent, link) of open outer lines
    const layout::KernelPlan* kernel = nullptr;
    auto lineOfRange = [&](const SourceRange& r) -> int {
        if (!r.valid || r.file >= sources.fileCount())
            return 0;
        return int(sources.file(r.file).lineCol(r.begin).line);
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        size_t indent = indentOf(line);
        while (!enclosing.empty() && enclosing.back().first >= indent)
            enclosing.pop_back();
        int link = 0;
        if (indent == 0 && line.starts_with("kernel ")) {
            size_t index = size_t(leadingInt(std::string_view(line).substr(7)));
            kernel = index < plan.kernels.size() ? &plan.kernels[index] : nullptr;
        }
        if (size_t at = line.find(" at line "); at != std::string::npos)
            link = leadingInt(std::string_view(line).substr(at + 9));
        if (link == 0 && kernel && kernel->kernel && indent == 2) {
            // "  shared A_shared [128, 64] float16": the scope word, then the buffer's name.
            size_t nameBegin = line.find(' ', indent);
            if (nameBegin != std::string::npos) {
                std::string name = line.substr(nameBegin + 1, line.find(' ', nameBegin + 1) - nameBegin - 1);
                for (const ir::Buffer* b : kernel->kernel->allocations)
                    if (b && b->name == name)
                        link = lineOfRange(b->range);
            }
        }
        if (link == 0 && !enclosing.empty() && indent > 0)
            link = enclosing.back().second;
        links[i] = indent == 0 && line.starts_with("kernel ") ? link : (indent == 0 ? 0 : link);
        enclosing.push_back({indent, links[i]});
    }
    return links;
}

// Drops the budget lines printPlanText always prints, for sections that are not the budget's, and marks
// kernels that have nothing in the section.
std::vector<std::string> planSection(const std::string& text, bool keepBudget) {
    std::vector<std::string> out;
    for (const std::string& line : splitTextLines(text)) {
        if (!keepBudget && (line.starts_with("  shared memory: ") || line.starts_with("  blocks per SM: ")))
            continue;
        out.push_back(line);
    }
    std::vector<std::string> marked;
    for (size_t i = 0; i < out.size(); ++i) {
        marked.push_back(out[i]);
        bool header = out[i].starts_with("kernel ");
        bool emptyAfter = i + 1 == out.size() || out[i + 1].starts_with("kernel ");
        if (header && emptyAfter)
            marked.push_back("  (nothing for this pass in this kernel)");
    }
    return marked;
}

enum class Section { Gemms, Fragments, Loops, Reduces, Copies, SharedLayouts, Schedule, Budget };

layout::LayoutPlan keepOnly(const layout::LayoutPlan& plan, Section section) {
    layout::LayoutPlan out = plan;
    for (layout::KernelPlan& k : out.kernels) {
        if (section != Section::Gemms)
            k.gemms.clear();
        if (section != Section::Fragments && section != Section::SharedLayouts)
            k.fragments.clear();
        if (section != Section::SharedLayouts)
            k.sharedBuffers.clear();
        if (section != Section::Loops)
            k.loops.clear();
        if (section != Section::Reduces)
            k.reduces.clear();
        if (section != Section::Copies)
            k.copies.clear();
        if (section != Section::Schedule)
            k.schedule = {};
        k.sharedAccesses.clear();
        if (section != Section::Budget) {
            k.budget = {};
            k.cooperative = {}; // planned with the budget: its "launch: cooperative" line
        }
    }
    return out;
}

layout::PlanPrintOptions printOptions(const CompileResult& result) {
    layout::PlanPrintOptions options;
    options.sources = &result.sources;
    return options;
}

Snapshot planTextSection(const CompileResult& result, Section section) {
    if (!result.plan)
        return join({"(no layout plan)"}, {});
    std::vector<std::string> lines =
        planSection(layout::printPlanText(keepOnly(*result.plan, section), printOptions(result)),
                    section == Section::Budget);
    return join(lines, planTextLinks(lines, *result.plan, result.sources));
}

Snapshot layoutsSection(const CompileResult& result, Section section) {
    if (!result.plan)
        return join({"(no layout plan)"}, {});
    std::vector<std::string> lines =
        splitTextLines(layout::printLayoutsText(keepOnly(*result.plan, section), printOptions(result)));
    return join(lines, planTextLinks(lines, *result.plan, result.sources));
}

Snapshot irSnapshot(const CompileResult& result, const std::string& heading) {
    if (!result.module)
        return join({"(no Tile IR: elaboration reported errors)"}, {});
    std::vector<std::string> lines = {heading};
    std::vector<int> links = {0};
    for (const ir::PrintedLine& l : ir::printModuleLines(*result.module, &result.sources)) {
        lines.push_back(l.text);
        int line = 0;
        if (l.range.valid && l.range.file < result.sources.fileCount())
            line = int(result.sources.file(l.range.file).lineCol(l.range.begin).line);
        links.push_back(line);
    }
    return join(lines, links);
}

std::string diagnosticCounts(const CompileResult& result) {
    size_t errors = result.diagnostics.errorCount();
    size_t warnings =
        result.diagnostics.diagnostics().size() - std::min(errors, result.diagnostics.diagnostics().size());
    return std::to_string(errors) + " error(s), " + std::to_string(warnings) + " other diagnostic(s) so far";
}

} // namespace

PassText snapshotSyntaxTree(const CompileResult& result) {
    return join(splitTextLines(ast::dumpModule(result.ast)), {});
}

PassText snapshotTileIr(const CompileResult& result) {
    return irSnapshot(result, "# the Tile IR of the specialized kernel");
}

PassText snapshotIrUnchanged(const CompileResult& result) {
    return irSnapshot(result,
                      "# this pass reads the Tile IR and does not change it; " + diagnosticCounts(result));
}

PassText snapshotWarpPartition(const CompileResult& result) {
    return planTextSection(result, Section::Gemms);
}

PassText snapshotFragments(const CompileResult& result) {
    return layoutsSection(result, Section::Fragments);
}

PassText snapshotLoops(const CompileResult& result) {
    return planTextSection(result, Section::Loops);
}

PassText snapshotReduces(const CompileResult& result) {
    return planTextSection(result, Section::Reduces);
}

PassText snapshotCopies(const CompileResult& result) {
    return planTextSection(result, Section::Copies);
}

PassText snapshotSharedLayouts(const CompileResult& result) {
    return layoutsSection(result, Section::SharedLayouts);
}

PassText snapshotSchedule(const CompileResult& result) {
    return planTextSection(result, Section::Schedule);
}

PassText snapshotBudget(const CompileResult& result) {
    return planTextSection(result, Section::Budget);
}

PassText snapshotBanks(const CompileResult& result) {
    if (!result.plan)
        return join({"(no layout plan)"}, {});
    std::vector<std::string> lines = splitTextLines(layout::printBankTable(*result.plan, result.sources));
    std::vector<int> links(lines.size(), 0);
    // Rows of the per-access and per-line tables start with the tile-program line.
    for (size_t i = 0; i < lines.size(); ++i)
        if (!lines[i].empty() && lines[i][0] == ' ')
            links[i] = leadingInt(lines[i]);
    return join(lines, links);
}

PassText snapshotCuda(const CompileResult& result) {
    GeneratedCuda cuda = generateCudaText(result);
    if (!cuda.ok)
        return join(splitTextLines("(code generation failed)\n" + cuda.message), {});
    return {cuda.text, cuda.tileLines};
}

std::vector<PassSnapshot> passSnapshots(const CompileResult& result) {
    std::vector<PassSnapshot> out;
    for (const PassDefinition& row : passTable()) {
        PassSnapshot s;
        s.pass = row.info.name;
        s.summary = row.info.summary;
        s.ran = result.ran(s.pass);
        PassText text =
            s.ran
                ? row.snapshot(result)
                : join({"(did not run: the pipeline stopped at an earlier pass's errors, or before it)"}, {});
        if (text.text.empty())
            text = join({"(empty)"}, {});
        s.text = std::move(text.text);
        s.tileLines = std::move(text.tileLines);
        s.tileLines.resize(size_t(std::count(s.text.begin(), s.text.end(), '\n')), 0);
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace tb
