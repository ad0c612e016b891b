// What the CPU benchmarks (bench_cpu, bench_cpu_corpus) share: a tile program compiled from a file, and
// the bit-for-bit comparison of two runs' tensors.
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/exec/HostTensor.h"
#include "engine/frontend/Parser.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::bench {

struct CompiledFile {
    std::string text;
    SourceManager sources;
    DiagnosticEngine diags;
    // Null, or without functions, when it does not compile (diags say why).
    std::unique_ptr<ir::Module> module;
    std::string readError; // the file could not be read (then nothing else is set)
};

// Parses and elaborates `path` (named `name` in diagnostics) with the given parameter overrides.
inline std::unique_ptr<CompiledFile>
compileFile(const std::string& path, const std::string& name,
            const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
    auto out = std::make_unique<CompiledFile>();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        out->readError = "cannot read " + path;
        return out;
    }
    std::stringstream text;
    text << in.rdbuf();
    out->text = text.str();
    FileId id = out->sources.addFile(name, out->text);
    ast::Module ast = parseModule(out->sources, id, out->diags);
    ElaborateOptions options;
    options.overrides = overrides;
    if (!out->diags.hasErrors())
        out->module = elaborate(out->sources, ast, options, out->diags);
    return out;
}

// Every tensor holds the same bytes, or the same values element by element where NaN matches NaN.
inline bool sameBits(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
    for (size_t t = 0; t < a.size(); ++t) {
        if (a[t].data == b[t].data)
            continue;
        for (size_t i = 0; i < a[t].data.size(); ++i) {
            double x = a[t].data[i], y = b[t].data[i];
            if (!(std::isnan(x) && std::isnan(y)) && std::memcmp(&x, &y, sizeof x) != 0)
                return false;
        }
    }
    return true;
}

} // namespace tb::bench
