// The generated CUDA of two parameter settings of one program, and their line diff: what changes in the
// kernel when `num_stages` goes from 3 to 2 or a tile grows. The second setting is the first plus `against`,
// applied the way a sweep applies it (an override of a jit parameter, or the edited literals of a keyword
// such as `num_stages=` of a T.Pipelined: SweepVariants.h), so it works on every program `tilec sweep` does.
// `tilec emit cuda --against` and the CUDA dock's Compare use it.
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "engine/support/LineDiff.h"

#include <string>
#include <utility>
#include <vector>

namespace tb::profile {

struct GeneratedCodeDiff {
    bool ok = false;
    std::string error;           // why there is no diff (a setting that does not compile, a bad name)
    std::string nameA, nameB;    // "gemm_relu.py" and "gemm_relu.py num_stages=2"
    std::vector<DiffLine> lines; // every line of both, kept, removed or added
    int removed = 0, added = 0;
    std::string unified(int context = 3) const { return unifiedDiff(lines, nameA, nameB, context); }
};

// `base` is the compile of `text` with `options` (its overrides are the first setting).
GeneratedCodeDiff diffGeneratedCuda(const std::string& fileName, const std::string& text,
                                    const CompileResult& base, const CompileOptions& options,
                                    const std::vector<std::pair<std::string, std::string>>& against);

} // namespace tb::profile
