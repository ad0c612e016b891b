// Helpers for the Hopper tests: compiling a source for sm_90a with NVRTC, its SASS (or why there is none),
// counting SASS opcodes, and reading the reference kernels from tests/engine/profile/kernels.
#pragma once

#include "engine/gpu/Nvrtc.h"
#include "engine/profile/CudaBenchSpec.h"
#include "engine/support/Diagnostics.h"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::hopper::test {

inline gpu::CudaCompileResult compileSm90a(const std::string& source, const std::string& kernel) {
    gpu::CudaCompileOptions options;
    options.arch = "sm_90a";
    options.useCache = false; // the ptxas report (and its warnings) must be in the log
    return gpu::compileCuda(source, kernel, options);
}

// Occurrences of `opcode` as a whole SASS mnemonic prefix ("HGMMA.64x256x16.F32" matches
// "HGMMA.64x256x16.F32.BF16 R24, ..." too, "LDL" does not match "LDLU": a mnemonic ends at ".", " " or ";").
inline int countOpcode(const std::string& sass, const std::string& opcode) {
    int count = 0;
    for (size_t at = sass.find(opcode); at != std::string::npos; at = sass.find(opcode, at + 1)) {
        bool startOk = at == 0 || sass[at - 1] == ' ' || sass[at - 1] == '\t';
        char after = at + opcode.size() < sass.size() ? sass[at + opcode.size()] : ' ';
        if (startOk && (after == ' ' || after == '.' || after == ';'))
            ++count;
    }
    return count;
}

// The ptxas warning lines of a compile log ("ptxas warning : ... wgmma.mma_async instructions are
// serialized",
// "... setmaxnreg ignored"): each one is a performance bug in a kernel that should have none.
inline std::string ptxasWarnings(const std::string& log) {
    std::stringstream lines(log);
    std::string line, out;
    while (std::getline(lines, line))
        if (line.find("ptxas") != std::string::npos && line.find("arning") != std::string::npos)
            out += line + "\n";
    return out;
}

inline std::string readKernelFile(const std::string& name) {
    std::ifstream in(std::string(TILEBENCH_PROFILE_KERNELS) + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The bench spec of a reference kernel with -p overrides; empty source (and the diagnostics) on failure.
inline profile::CudaBenchSpec kernelSpec(const std::string& file,
                                         const std::vector<std::pair<std::string, std::string>>& overrides,
                                         std::string* error = nullptr) {
    profile::CudaBenchSpec spec;
    DiagnosticEngine diags;
    if (!profile::parseCudaBenchSpec(readKernelFile(file), overrides, spec, diags)) {
        spec.source.clear();
        if (error)
            for (const Diagnostic& d : diags.diagnostics())
                *error += d.message + "\n";
    }
    return spec;
}

} // namespace tb::hopper::test
