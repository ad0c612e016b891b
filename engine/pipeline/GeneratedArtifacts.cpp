// The generated CUDA, PTX and SASS of a program with their line links; see GeneratedArtifacts.h. The PTX
// and SASS readers are line-oriented and tolerant: a line they do not understand simply has no link.
#include "engine/pipeline/GeneratedArtifacts.h"

#include "engine/codegen/CudaCodegen.h"
#include "engine/gpu/CubinLineTable.h"
#include "engine/gpu/Nvrtc.h"
#include "engine/support/TextScan.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

namespace tb {

namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

int tileLineOf(const std::vector<int>& tileLines, int cudaLine) {
    return cudaLine > 0 && size_t(cudaLine) <= tileLines.size() ? tileLines[size_t(cudaLine) - 1] : 0;
}

// A location with an optional call site: the inner line when it links to the tile program, else the call
// site (code inlined from a device-header helper belongs to the tile op that called it).
int resolveLine(const std::vector<int>& tileLines, int line, int inlinedAt) {
    if (tileLineOf(tileLines, line) == 0 && inlinedAt > 0)
        return inlinedAt;
    return line;
}

void appendText(std::string& text, std::vector<int>& links, const std::string& piece,
                const std::vector<int>& pieceLinks) {
    text += piece;
    if (!piece.empty() && piece.back() != '\n')
        text += '\n';
    links.insert(links.end(), pieceLinks.begin(), pieceLinks.end());
    links.resize(splitLines(text).size(), 0);
}

std::vector<int> toTileLines(const std::vector<int>& cudaLines, const std::vector<int>& tileLines) {
    std::vector<int> out(cudaLines.size(), 0);
    for (size_t i = 0; i < cudaLines.size(); ++i)
        out[i] = tileLineOf(tileLines, cudaLines[i]);
    return out;
}

// Unit-local CUDA lines -> lines of the concatenated text.
std::vector<int> shiftLines(std::vector<int> lines, int firstLine) {
    for (int& l : lines)
        if (l > 0)
            l += firstLine - 1;
    return lines;
}

// "/*01a0*/" at the start of `s` -> 0x1a0.
bool parsePc(std::string_view s, uint32_t& pc) {
    if (!s.starts_with("/*"))
        return false;
    size_t end = s.find("*/");
    if (end == std::string_view::npos || end <= 2)
        return false;
    std::string_view hex = s.substr(2, end - 2);
    auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), pc, 16);
    return ec == std::errc() && ptr == hex.data() + hex.size();
}

} // namespace

std::vector<int> linesLinkedTo(const std::vector<int>& links, int target) {
    std::vector<int> lines;
    if (target <= 0)
        return lines;
    for (size_t i = 0; i < links.size(); ++i)
        if (links[i] == target)
            lines.push_back(int(i) + 1);
    return lines;
}

std::vector<int> GeneratedCuda::linesOfTileLine(int tileLine) const {
    return linesLinkedTo(tileLines, tileLine);
}
std::vector<int> GeneratedMachineCode::ptxLinesOfTileLine(int tileLine) const {
    return linesLinkedTo(ptxTileLines, tileLine);
}
std::vector<int> GeneratedMachineCode::sassLinesOfTileLine(int tileLine) const {
    return linesLinkedTo(sassTileLines, tileLine);
}

GeneratedCuda generateCudaText(const CompileResult& result) {
    GeneratedCuda out;
    out.planTarget = result.target.name;
    out.backend = result.backend;
    if (!result.cuda) {
        out.message = !result.module ? "the program did not elaborate"
                      : result.failedPass.empty()
                          ? "no CUDA: the compile stopped before codegen"
                          : "no CUDA: the " + result.failedPass + " pass reported errors";
        return out;
    }
    const codegen::CudaKernelSource& code = *result.cuda;
    for (const Diagnostic& d : result.diagnostics.diagnostics())
        if (d.code.rfind("codegen-", 0) == 0)
            out.diagnostics.push_back(d);
    if (!code.ok || result.failedPass == "codegen") {
        out.message = formatDiagnostics(result.sources, out.diagnostics);
        if (out.message.empty())
            out.message = "code generation failed without a diagnostic";
        return out;
    }
    for (const codegen::GeneratedUnit& unit : code.units) {
        GeneratedCudaUnit u;
        u.source = unit.source;
        u.nvrtcOptions = unit.nvrtcOptions;
        u.firstLine = int(out.tileLines.size()) + 1;
        for (const codegen::GeneratedKernel& k : unit.kernels)
            u.kernels.push_back(k.name);
        u.tileLines.assign(splitLines(u.source).size(), 0);
        for (const codegen::LineMapEntry& e : unit.lineMap.entries())
            if (e.generatedLine > 0 && size_t(e.generatedLine) <= u.tileLines.size())
                u.tileLines[size_t(e.generatedLine) - 1] = e.sourceLine;
        appendText(out.text, out.tileLines, u.source, u.tileLines);
        out.units.push_back(std::move(u));
    }
    out.ok = true;
    return out;
}

std::vector<int> mapPtxLinesToCuda(const std::string& ptx, const std::vector<int>& cudaTileLines) {
    std::vector<std::string_view> lines = splitLines(ptx);
    std::vector<int> out(lines.size(), 0);
    int current = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view raw = lines[i];
        std::string_view s = trimmed(raw);
        if (s.starts_with(".loc")) {
            // .loc FILE LINE COL[, function_name LABEL, inlined_at FILE LINE COL]
            std::string_view rest = trimmed(s.substr(4));
            size_t space = rest.find_first_of(" \t");
            int line = space == std::string_view::npos ? 0 : leadingInt(rest.substr(space));
            int inlinedAt = 0;
            if (size_t at = s.find("inlined_at"); at != std::string_view::npos) {
                std::string_view call = trimmed(s.substr(at + 10));
                size_t sp = call.find_first_of(" \t");
                inlinedAt = sp == std::string_view::npos ? 0 : leadingInt(call.substr(sp));
            }
            current = resolveLine(cudaTileLines, line, inlinedAt);
            continue;
        }
        if (raw == "}" || s.starts_with(".entry") || s.starts_with(".visible") || s.starts_with(".func") ||
            s.starts_with(".weak")) {
            current = 0; // a function ends or starts: no location carries over
            continue;
        }
        // Instructions only: not directives, comments, labels or braces.
        if (s.empty() || s.starts_with("//") || s.starts_with('.') || s.starts_with('$') || s == "{" ||
            s == "}" || s.ends_with(':'))
            continue;
        out[i] = current;
    }
    return out;
}

std::vector<int> mapSassLinesToCuda(const std::string& sass, const std::vector<int>& cudaTileLines,
                                    const std::vector<char>* cubin) {
    gpu::CubinLineTable table;
    if (cubin && !cubin->empty()) {
        std::string error;
        if (!gpu::readCubinLineTable(*cubin, table, error))
            table = {};
    }
    std::vector<std::string_view> lines = splitLines(sass);
    std::vector<int> out(lines.size(), 0);
    std::string function;
    int commentLine = 0; // from the latest "//## File ..., line N" comment, 0 when none in force
    int previous = 0;    // the line of the previous instruction (cuobjdump's encoding continuation lines)
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view s = trimmed(lines[i]);
        // Function boundaries: nvdisasm ".text.NAME:" / ".section .text.NAME,...", cuobjdump "Function :
        // NAME".
        std::string_view name;
        if (s.starts_with(".text.") && s.ends_with(':'))
            name = s.substr(6, s.size() - 7);
        else if (s.starts_with(".section") && s.find(".text.") != std::string_view::npos) {
            name = s.substr(s.find(".text.") + 6);
            name = name.substr(0, name.find_first_of(",\" \t"));
        } else if (s.starts_with("Function :") || s.starts_with("Function:"))
            name = trimmed(s.substr(s.find(':') + 1));
        if (!name.empty()) {
            if (std::string(name) != function)
                commentLine = 0;
            function = std::string(name);
            previous = 0;
            continue;
        }
        if (s.starts_with("//##")) {
            // //## File "x.cu", line 12[ inlined at "x.cu", line 30]
            size_t at = s.find(", line ");
            int line = at == std::string_view::npos ? 0 : leadingInt(s.substr(at + 7));
            int inlinedAt = 0;
            if (size_t inl = s.find("inlined at"); inl != std::string_view::npos) {
                size_t callAt = s.find(", line ", inl);
                inlinedAt = callAt == std::string_view::npos ? 0 : leadingInt(s.substr(callAt + 7));
            }
            commentLine = resolveLine(cudaTileLines, line, inlinedAt);
            continue;
        }
        uint32_t pc = 0;
        if (parsePc(s, pc)) {
            int line = commentLine;
            if (line == 0 && !function.empty())
                if (auto l = table.lineAt(function, pc))
                    line = *l;
            out[i] = previous = line;
            continue;
        }
        if (s.starts_with("/* 0x") && previous > 0)
            out[i] = previous; // the second half of an instruction's encoding
    }
    return out;
}

std::map<int, int> inlinedHelperTileLines(const std::string& ptx, const std::vector<int>& cudaTileLines) {
    std::map<int, std::set<int>> callers; // helper line -> tile lines of its call sites
    for (std::string_view raw : splitLines(ptx)) {
        std::string_view s = trimmed(raw);
        size_t at = s.find("inlined_at");
        if (!s.starts_with(".loc") || at == std::string_view::npos)
            continue;
        std::string_view rest = trimmed(s.substr(4));
        size_t space = rest.find_first_of(" \t");
        int line = space == std::string_view::npos ? 0 : leadingInt(rest.substr(space));
        std::string_view call = trimmed(s.substr(at + 10));
        size_t sp = call.find_first_of(" \t");
        int site = sp == std::string_view::npos ? 0 : leadingInt(call.substr(sp));
        if (line > 0 && tileLineOf(cudaTileLines, line) == 0)
            callers[line].insert(tileLineOf(cudaTileLines, site)); // 0 too: a call from unlinked code
    }
    std::map<int, int> out;
    for (const auto& [line, tiles] : callers)
        if (tiles.size() == 1 && *tiles.begin() > 0)
            out[line] = *tiles.begin();
    return out;
}

GeneratedMachineCode compileGeneratedCuda(const GeneratedCuda& cuda, const std::string& arch, bool wantSass) {
    GeneratedMachineCode out;
    out.arch = arch;
    out.sassRequested = wantSass;
    out.sassOk = wantSass;
    if (!cuda.ok) {
        out.ptxMessage = "no CUDA to compile: " + cuda.message;
        out.sassOk = false;
        out.sassMessage = out.ptxMessage;
        return out;
    }
    std::vector<int> ptxCuda, sassCuda, sassTile;
    for (const GeneratedCudaUnit& unit : cuda.units) {
        if (unit.kernels.empty())
            continue;
        gpu::CudaCompileOptions options;
        options.arch = arch;
        options.lineInfo = true;
        options.extraOptions = unit.nvrtcOptions;
        gpu::CudaCompileResult r = gpu::compileCuda(unit.source, unit.kernels.front(), options);
        out.compileMilliseconds += r.milliseconds;
        out.cacheHit = (out.kernels.empty() || out.cacheHit) && r.cacheHit;
        if (!r.ok) {
            out.ptxOk = false;
            out.ptxMessage =
                "NVRTC could not compile " + unit.kernels.front() + " for " + arch + ":\n" + r.log;
            out.ptx.clear();
            out.ptxCudaLines.clear();
            out.ptxTileLines.clear();
            out.sassOk = false;
            out.sassMessage = out.ptxMessage;
            out.sass.clear();
            out.sassCudaLines.clear();
            out.sassTileLines.clear();
            return out;
        }
        std::string header;
        for (const std::string& name : unit.kernels) {
            // compileCuda filled the figures of the kernel it was asked for (also on a cache hit); the
            // others come from the same ptxas log.
            gpu::PtxasKernelInfo info = gpu::parsePtxasInfo(r.log, name);
            KernelResources k{
                name,           info.registers, info.sharedBytes, info.spillStoreBytes, info.spillLoadBytes,
                info.stackBytes};
            if (name == unit.kernels.front())
                k = {name, r.registers, r.sharedBytes, r.spillStoreBytes, r.spillLoadBytes, r.stackBytes};
            char line[512];
            std::snprintf(
                line, sizeof line,
                "// %s: %d registers, %d bytes static shared, %d bytes spilled (stores), %d (loads)\n",
                name.c_str(), k.registers, k.sharedBytes, k.spillStoreBytes, k.spillLoadBytes);
            header += line;
            out.kernels.push_back(std::move(k));
        }
        appendText(out.ptx, ptxCuda, header, {});
        appendText(out.ptx, ptxCuda, r.ptx,
                   shiftLines(mapPtxLinesToCuda(r.ptx, unit.tileLines), unit.firstLine));

        if (!out.sassOk)
            continue;
        std::string reason;
        std::optional<std::string> sass = gpu::disassembleSass(r.cubin, &reason);
        if (!sass) {
            out.sassOk = false;
            out.sassMessage =
                "no SASS: " + reason +
                "\nInstall the CUDA toolkit's nvdisasm (package cuda-nvdisasm-<version>) or "
                "cuobjdump (cuda-cuobjdump-<version>), or point CUDA_HOME at a toolkit that has "
                "them. The PTX view and `tilec emit ptx` work without them.";
            out.sass.clear();
            sassCuda.clear();
            sassTile.clear();
            continue;
        }
        // nvdisasm's line comments name a device-header helper's own line, not where it was inlined; the
        // PTX knows the call sites, and a helper line called from one tile line only belongs to it.
        std::vector<int> local = mapSassLinesToCuda(*sass, unit.tileLines, &r.cubin);
        std::map<int, int> helpers = inlinedHelperTileLines(r.ptx, unit.tileLines);
        std::vector<int> tiles(local.size(), 0);
        for (size_t i = 0; i < local.size(); ++i) {
            tiles[i] = tileLineOf(unit.tileLines, local[i]);
            if (auto it = helpers.find(local[i]); tiles[i] == 0 && it != helpers.end())
                tiles[i] = it->second;
        }
        appendText(out.sass, sassCuda, *sass, shiftLines(local, unit.firstLine));
        sassTile.insert(sassTile.end(), tiles.begin(), tiles.end());
        sassTile.resize(sassCuda.size(), 0); // the line appendText may have added
    }
    out.ptxOk = true;
    out.ptxCudaLines = ptxCuda;
    out.ptxTileLines = toTileLines(ptxCuda, cuda.tileLines);
    if (out.sassOk) {
        out.sassCudaLines = sassCuda;
        out.sassTileLines = sassTile;
    } else if (!wantSass) {
        out.sassMessage = "SASS was not requested";
    }
    return out;
}

} // namespace tb
