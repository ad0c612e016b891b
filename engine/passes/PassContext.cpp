// Line numbers for plan descriptions.
#include "engine/passes/PassContext.h"

namespace tb::passes {

std::string PassContext::lineOf(const SourceRange& range) const {
    if (!sources || !range.valid || range.file >= sources->fileCount())
        return {};
    return "line " + std::to_string(sources->file(range.file).lineCol(range.begin).line);
}

} // namespace tb::passes
