// Pass snapshots: each pass's output as printed text with tile-line links; see PassSnapshots.h. The plan
// sections are printed by the plan and bank printers from a copy of the plan that keeps only the section
// in question, so the text is exactly what `tilec plan`, `tilec layouts` and `tilec banks` print for it.
#include "engine/pipeline/PassSnapshots.h"

#include "engine/frontend/Ast.h"
#include "engine/ir/Printer.h"
#include "engine/layout/plan/BankPrinter.h"
#include "engine/layout/plan/PlanPrinter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string_view>
#include <utility>

namespace tb {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

int leadingInt(std::string_view s) {
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return ec == std::errc() && ptr != s.data() ? value : 0;
}

size_t indentOf(const std::string& line) {
    size_t n = 0;
    while (n < line.size() && line[n] == ' ')
        ++n;
    return n;
}

struct Snapshot {
    std::string text;
    std::vector<int> tileLines;
};

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
    for (const std::string& line : splitLines(text)) {
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

enum class Section { Gemms, Fragments, Loops, Reduces, Copies, SharedLayouts, Budget };

layout::LayoutPlan keepOnly(const layout::LayoutPlan& plan, Section section) {
    layout::LayoutPlan out = plan;
    for (layout::KernelPlan& k : out.kernels) {
        if (section != Section::Gemms)
            k.gemms.clear();
        if (section != Section::Fragments && section != Section::SharedLayouts)
            k.fragments.clear();
        if (section != Section::SharedLayouts && section != Section::Budget)
            k.sharedBuffers.clear();
        if (section != Section::Loops)
            k.loops.clear();
        if (section != Section::Reduces)
            k.reduces.clear();
        if (section != Section::Copies)
            k.copies.clear();
        k.sharedAccesses.clear();
        if (section != Section::Budget)
            k.budget = {};
    }
    return out;
}

Snapshot planSnapshot(const std::string& pass, const layout::LayoutPlan& plan, const SourceManager& sources) {
    layout::PlanPrintOptions options;
    options.sources = &sources;
    std::vector<std::string> lines;
    if (pass == "warp-partition")
        lines = planSection(layout::printPlanText(keepOnly(plan, Section::Gemms), options), false);
    else if (pass == "layout-inference")
        lines = splitLines(layout::printLayoutsText(keepOnly(plan, Section::Fragments), options));
    else if (pass == "loop-planning")
        lines = planSection(layout::printPlanText(keepOnly(plan, Section::Loops), options), false);
    else if (pass == "reduce-planning")
        lines = planSection(layout::printPlanText(keepOnly(plan, Section::Reduces), options), false);
    else if (pass == "copy-planning")
        lines = planSection(layout::printPlanText(keepOnly(plan, Section::Copies), options), false);
    else if (pass == "shared-layouts")
        lines = splitLines(layout::printLayoutsText(keepOnly(plan, Section::SharedLayouts), options));
    else if (pass == "shared-memory-planning")
        lines = planSection(layout::printPlanText(keepOnly(plan, Section::Budget), options), true);
    if (pass == "bank-analysis") {
        lines = splitLines(layout::printBankTable(plan, sources));
        std::vector<int> links(lines.size(), 0);
        // Rows of the per-access and per-line tables start with the tile-program line.
        for (size_t i = 0; i < lines.size(); ++i)
            if (!lines[i].empty() && lines[i][0] == ' ')
                links[i] = leadingInt(lines[i]);
        return join(lines, links);
    }
    return join(lines, planTextLinks(lines, plan, sources));
}

Snapshot irSnapshot(const CompileResult& result, const std::string& heading) {
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

const PassInfo& codegenPassInfo() {
    static const PassInfo info = {
        "codegen", "generate CUDA C++ for the portable mma.sync path (a wgmma plan is re-planned "
                   "for sm_80's instruction set first)"};
    return info;
}

std::vector<PassSnapshot> passSnapshots(const CompileResult& result, const layout::LayoutPlan* plan,
                                        const codegen::GeneratedCuda* cuda) {
    std::vector<PassSnapshot> out;
    auto ran = [&](const std::string& pass) {
        return std::any_of(result.timings.begin(), result.timings.end(),
                           [&](const PassTiming& t) { return t.pass == pass; });
    };
    for (const PassInfo& info : pipelinePasses()) {
        PassSnapshot s;
        s.pass = info.name;
        s.summary = info.summary;
        s.ran = ran(s.pass);
        Snapshot snap;
        if (!s.ran) {
            snap =
                join({"(did not run: the pipeline stopped at an earlier pass's errors, or before it)"}, {});
        } else if (s.pass == "parse") {
            snap = join(splitLines(ast::dumpModule(result.ast)), {});
        } else if (!result.module) {
            snap = join({"(no Tile IR: elaboration reported errors)"}, {});
        } else if (s.pass == "elaborate") {
            snap = irSnapshot(result, "# the Tile IR of the specialized kernel");
        } else if (s.pass == "verify" || s.pass == "check") {
            snap = irSnapshot(result, "# " + s.pass + " reads the Tile IR and does not change it; " +
                                          diagnosticCounts(result));
        } else if (!plan) {
            snap = join({"(no layout plan)"}, {});
        } else {
            snap = planSnapshot(s.pass, *plan, result.sources);
        }
        if (snap.text.empty())
            snap = join({"(empty)"}, {});
        s.text = std::move(snap.text);
        s.tileLines = std::move(snap.tileLines);
        out.push_back(std::move(s));
    }

    PassSnapshot code;
    code.pass = codegenPassInfo().name;
    code.summary = codegenPassInfo().summary;
    codegen::GeneratedCuda generated;
    if (!cuda && result.ok() && plan) {
        generated = codegen::generateCudaText(result, *plan);
        cuda = &generated;
    }
    code.ran = cuda != nullptr;
    if (!cuda) {
        code.text = "(not generated: the program has errors or no layout plan)\n";
        code.tileLines = {0};
    } else if (!cuda->ok) {
        Snapshot snap = join(splitLines("(code generation failed)\n" + cuda->message), {});
        code.text = std::move(snap.text);
        code.tileLines = std::move(snap.tileLines);
    } else {
        code.text = cuda->text;
        code.tileLines = cuda->tileLines;
    }
    out.push_back(std::move(code));
    return out;
}

} // namespace tb
