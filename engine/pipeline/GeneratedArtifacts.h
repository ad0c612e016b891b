// What the backend made of a compiled tile program, as text with line links back to the tile program:
// the generated CUDA (the codegen pass's output, CompileResult::cuda, formatted), and, separately because
// NVRTC takes a fraction of a second, the PTX, ptxas's per-kernel resources and the SASS (when the toolkit
// has a disassembler). `tilec emit cuda|ptx|sass` prints these and the app's code views show them, so both see
// the same text through one path.
//
// Line links: CUDA line -> tile line comes from codegen's LineMap. PTX lines take the CUDA line of the
// `.loc` directive in force (for code inlined from the device header, the `inlined_at` call site when the
// inner line has no tile line). SASS lines take nvdisasm's `//## File ..., line N` comments, else the
// cubin's line table (SASS address -> CUDA line, engine/gpu/CubinLineTable.h). All line numbers are
// 1-based; 0 means "no link". Every vector of links has one entry per line of its text.
#pragma once

#include "engine/pipeline/Pipeline.h"
#include "engine/support/Diagnostics.h"

#include <map>
#include <string>
#include <vector>

namespace tb {

// One translation unit of the concatenated CUDA text.
struct GeneratedCudaUnit {
    std::string source;                    // the unit's own text (what NVRTC compiles)
    int firstLine = 1;                     // its first line in GeneratedCuda::text
    std::vector<std::string> kernels;      // extern "C" names, in launch order
    std::vector<int> tileLines;            // per line of `source`: tile-program line, 0 when none
    std::vector<std::string> nvrtcOptions; // what the program asks NVRTC for (GeneratedUnit::nvrtcOptions)
};

struct GeneratedCuda {
    bool ok = false;
    std::string message;                 // why nothing was generated (diagnostics formatted), when !ok
    std::vector<Diagnostic> diagnostics; // the codegen pass's
    std::string text;                    // every unit, concatenated: what `tilec emit cuda` prints
    std::vector<int> tileLines;          // per line of `text`: tile-program line, 0 when none
    std::vector<GeneratedCudaUnit> units;
    std::string planTarget;              // the target the plan was made for ("sm_90a")
    Backend backend = Backend::Portable; // the instruction set of the code

    // Lines of `text` (1-based, ascending) that implement tile-program line `tileLine`.
    std::vector<int> linesOfTileLine(int tileLine) const;
};

// The CUDA the codegen pass generated from the program's plan; !ok with a message when there is none.
GeneratedCuda generateCudaText(const CompileResult& result);

struct KernelResources {
    std::string name;
    int registers = -1, sharedBytes = -1, spillStoreBytes = -1, spillLoadBytes = -1, stackBytes = -1;
};

struct GeneratedMachineCode {
    std::string arch;
    bool ptxOk = false;
    std::string ptxMessage; // the NVRTC log when compiling failed
    std::string ptx;        // per unit: one "// NAME: N registers ..." line per kernel, then NVRTC's PTX
    std::vector<int> ptxCudaLines, ptxTileLines;
    std::vector<KernelResources> kernels;
    bool sassRequested = false;
    bool sassOk = false;
    std::string sassMessage; // why there is no SASS (no disassembler: what to install)
    std::string sass;
    std::vector<int> sassCudaLines, sassTileLines;
    double compileMilliseconds = 0;
    bool cacheHit = false; // every unit came from NVRTC's compile cache

    std::vector<int> ptxLinesOfTileLine(int tileLine) const;
    std::vector<int> sassLinesOfTileLine(int tileLine) const;
};

// Compiles every unit of `cuda` with NVRTC for `arch` (line info on, cached by content hash), and
// disassembles the cubins when `wantSass`. Pre: cuda.ok.
GeneratedMachineCode compileGeneratedCuda(const GeneratedCuda& cuda, const std::string& arch, bool wantSass);

// The mapping steps, exposed for tests. `cudaTileLines` is per CUDA line (index line - 1).
// PTX text -> per PTX line, the CUDA line it was compiled from (0 when none).
std::vector<int> mapPtxLinesToCuda(const std::string& ptx, const std::vector<int>& cudaTileLines);
// SASS text (nvdisasm or cuobjdump) -> per SASS line, the CUDA line; `cubin` (optional, with line info)
// backs up instructions that carry no line comment.
std::vector<int> mapSassLinesToCuda(const std::string& sass, const std::vector<int>& cudaTileLines,
                                    const std::vector<char>* cubin);

// PTX text -> for each CUDA line of a device-header helper (no tile line of its own) that is inlined only
// at call sites of one tile line, that tile line. Lets SASS of inlined helpers (nvdisasm names the helper's
// line, not the call site) link to the tile op that used them.
std::map<int, int> inlinedHelperTileLines(const std::string& ptx, const std::vector<int>& cudaTileLines);

// Lines (1-based, ascending) whose entry in `links` equals `target` (> 0).
std::vector<int> linesLinkedTo(const std::vector<int>& links, int target);

} // namespace tb
