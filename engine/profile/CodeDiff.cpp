// Generated-code diffs between two parameter settings; see CodeDiff.h.
#include "engine/profile/CodeDiff.h"

#include "engine/pipeline/GeneratedArtifacts.h"
#include "engine/profile/SweepVariants.h"

#include <memory>

namespace tb::profile {

GeneratedCodeDiff diffGeneratedCuda(const std::string& fileName, const std::string& text,
                                    const CompileResult& base, const CompileOptions& options,
                                    const std::vector<std::pair<std::string, std::string>>& against) {
    GeneratedCodeDiff out;
    out.nameA = fileName;
    out.nameB = fileName;
    for (const auto& [name, value] : against)
        out.nameB += " " + name + "=" + value;
    if (against.empty()) {
        out.error = "name the setting to compare with (NAME=VALUE)";
        return out;
    }
    GeneratedCuda first = generateCudaText(base);
    if (!first.ok) {
        out.error = "the current setting has no CUDA: " + first.message;
        return out;
    }
    std::vector<std::string> names;
    for (const auto& [name, value] : against)
        names.push_back(name);
    SweepBase sweepBase = sweepBaseOf(base, names);
    CompileOptions variantOptions = options;
    variantOptions.stopAfter.clear();
    VariantProgram vp = variantProgram(text, sweepBase, variantOptions, options.elaborate.overrides, against);
    std::unique_ptr<CompileResult> other = compileTileProgram(fileName, vp.text, vp.options);
    if (!other->ok()) {
        out.error = out.nameB + " does not compile: " + firstErrorMessage(other->diagnostics.diagnostics());
        return out;
    }
    // A name that is neither a jit parameter nor a keyword literal changes nothing: say so, not "no diff".
    for (const Diagnostic& d : other->diagnostics.diagnostics())
        if (d.code == "unused-override") {
            out.error = d.message;
            return out;
        }
    GeneratedCuda second = generateCudaText(*other);
    if (!second.ok) {
        out.error = out.nameB + " has no CUDA: " + second.message;
        return out;
    }
    out.lines = diffLines(splitTextLines(first.text), splitTextLines(second.text));
    for (const DiffLine& l : out.lines) {
        out.removed += l.op == DiffOp::Removed;
        out.added += l.op == DiffOp::Added;
    }
    out.ok = true;
    return out;
}

} // namespace tb::profile
