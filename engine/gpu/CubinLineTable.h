// SASS address -> CUDA source line, read from a cubin compiled with line info (NVRTC/nvcc -lineinfo). The
// cubin's `.debug_line` section is a DWARF (v2-v4) line program per kernel; each program starts with
// DW_LNE_set_address, whose operand is relocated (`.rela.debug_line`) against the kernel's symbol, so the
// relocation names the kernel and the addresses are offsets within its `.text.<kernel>` section: the same
// offsets CUPTI's SASS-metrics records carry as `pcOffset`. (`.nv_debug_line_sass` maps SASS to PTX
// lines instead; it is not used.) Parsing is bounds-checked and never trusts the file: a damaged cubin
// gives an error string, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb::gpu {

struct LineRow {
    uint32_t address = 0; // offset in the kernel's .text section
    int line = 0;
    std::string file;
};

struct CubinLineTable {
    // Rows sorted by address, per kernel (symbol name as in the cubin). The last row of each kernel is the
    // end of its code (line 0).
    std::map<std::string, std::vector<LineRow>> functions;

    // The source line of the instruction at `pc` in `function`, or nullopt (unknown kernel, address
    // outside the table, or a row without a line).
    std::optional<int> lineAt(const std::string& function, uint32_t pc) const;
    bool empty() const { return functions.empty(); }
};

// Parses the line table. Returns false with `error` set when the bytes are not an ELF64 cubin or the
// table is damaged; a cubin without `.debug_line` (compiled without line info) is an error too, with a
// message that says so.
bool readCubinLineTable(const std::vector<char>& cubin, CubinLineTable& table, std::string& error);

} // namespace tb::gpu
