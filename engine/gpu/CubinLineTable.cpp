// DWARF line-table reader for cubins (see CubinLineTable.h).
#include "engine/gpu/CubinLineTable.h"

#include "engine/gpu/CubinElf.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tb::gpu {

namespace {

using gpu::ElfReader;
using Section = gpu::ElfSection;

// One line program (one kernel's sequence(s)) starting at `start` in .debug_line. `functionAt` names the
// kernel whose address a DW_LNE_set_address operand at a given .debug_line offset refers to.
bool decodeProgram(ElfReader& r, size_t start, const std::map<uint64_t, std::string>& functionAt,
                   std::map<std::string, std::vector<LineRow>>& out, size_t& next, std::string& error) {
    r.pos = start;
    uint64_t unitLength = r.uint(4);
    if (unitLength == 0xffffffffu) {
        error = "64-bit DWARF line tables are not supported";
        return false;
    }
    size_t end = r.pos + unitLength;
    if (!r.ok || end > r.size) {
        error = "the .debug_line unit at offset " + std::to_string(start) + " runs past the section";
        return false;
    }
    next = end;
    uint64_t version = r.uint(2);
    if (version < 2 || version > 4) {
        error = "DWARF line table version " + std::to_string(version) + " is not supported (2 to 4 are)";
        return false;
    }
    uint64_t headerLength = r.uint(4);
    size_t programStart = r.pos + headerLength;
    unsigned minInstLength = static_cast<unsigned>(r.uint(1));
    if (version >= 4)
        r.uint(1); // maximum_operations_per_instruction (VLIW only)
    bool defaultIsStmt = r.uint(1) != 0;
    (void)defaultIsStmt;
    int lineBase = static_cast<int8_t>(r.uint(1));
    unsigned lineRange = static_cast<unsigned>(r.uint(1));
    unsigned opcodeBase = static_cast<unsigned>(r.uint(1));
    if (!r.ok || lineRange == 0 || opcodeBase == 0) {
        error = "damaged .debug_line header";
        return false;
    }
    std::vector<unsigned> standardLengths(opcodeBase, 0);
    for (unsigned i = 1; i < opcodeBase; ++i)
        standardLengths[i] = static_cast<unsigned>(r.uint(1));
    std::vector<std::string> dirs{""};
    for (int guard = 0; guard < 10000 && r.ok; ++guard) {
        std::string d = r.cstr();
        if (d.empty())
            break;
        dirs.push_back(d);
    }
    std::vector<std::string> files{""};
    for (int guard = 0; guard < 10000 && r.ok; ++guard) {
        std::string f = r.cstr();
        if (f.empty())
            break;
        r.uleb(); // directory index
        r.uleb(); // modification time
        r.uleb(); // length
        files.push_back(f);
    }
    if (!r.ok || programStart > end) {
        error = "damaged .debug_line header";
        return false;
    }
    r.pos = programStart;

    uint64_t address = 0;
    uint64_t file = 1;
    int64_t line = 1;
    std::string function;
    auto emit = [&](bool endSequence) {
        if (function.empty())
            return;
        LineRow row;
        row.address = static_cast<uint32_t>(address);
        row.line = endSequence ? 0 : static_cast<int>(line);
        row.file = endSequence || file >= files.size() ? std::string() : files[file];
        out[function].push_back(std::move(row));
    };
    while (r.ok && r.pos < end) {
        unsigned op = static_cast<unsigned>(r.uint(1));
        if (op >= opcodeBase) {
            unsigned adjusted = op - opcodeBase;
            address += uint64_t(adjusted / lineRange) * minInstLength;
            line += lineBase + int(adjusted % lineRange);
            emit(false);
            continue;
        }
        switch (op) {
        case 0: { // extended opcode
            uint64_t len = r.uleb();
            size_t opStart = r.pos;
            if (len == 0 || len > end - std::min<size_t>(opStart, end)) {
                error = "damaged extended opcode in .debug_line";
                return false;
            }
            unsigned sub = static_cast<unsigned>(r.uint(1));
            if (sub == 1) { // DW_LNE_end_sequence
                emit(true);
                address = 0;
                file = 1;
                line = 1;
            } else if (sub == 2) { // DW_LNE_set_address: relocated against the kernel's symbol
                size_t operandOffset = r.pos;
                address = r.uint(len - 1 <= 8 ? len - 1 : 8);
                auto f = functionAt.find(operandOffset);
                if (f != functionAt.end())
                    function = f->second;
            }
            r.pos = opStart + len;
            break;
        }
        case 1: // DW_LNS_copy
            emit(false);
            break;
        case 2: // DW_LNS_advance_pc
            address += r.uleb() * minInstLength;
            break;
        case 3: // DW_LNS_advance_line
            line += r.sleb();
            break;
        case 4: // DW_LNS_set_file
            file = r.uleb();
            break;
        case 5: // DW_LNS_set_column
            r.uleb();
            break;
        case 6: // DW_LNS_negate_stmt
        case 7: // DW_LNS_set_basic_block
            break;
        case 8: // DW_LNS_const_add_pc
            address += uint64_t((255 - opcodeBase) / lineRange) * minInstLength;
            break;
        case 9: // DW_LNS_fixed_advance_pc
            address += r.uint(2);
            break;
        default: // an opcode this reader does not know: skip its ULEB operands as the header declares
            for (unsigned i = 0; i < standardLengths[op]; ++i)
                r.uleb();
            break;
        }
    }
    if (!r.ok) {
        error = "the .debug_line program ends inside an instruction";
        return false;
    }
    return true;
}

} // namespace

std::optional<int> CubinLineTable::lineAt(const std::string& function, uint32_t pc) const {
    auto it = functions.find(function);
    if (it == functions.end() || it->second.empty())
        return std::nullopt;
    const auto& rows = it->second;
    auto after = std::upper_bound(rows.begin(), rows.end(), pc,
                                  [](uint32_t value, const LineRow& row) { return value < row.address; });
    if (after == rows.begin())
        return std::nullopt;
    const LineRow& row = *std::prev(after);
    if (row.line <= 0)
        return std::nullopt;
    return row.line;
}

bool readCubinLineTable(const std::vector<char>& cubin, CubinLineTable& table, std::string& error) {
    table.functions.clear();
    const auto* data = reinterpret_cast<const unsigned char*>(cubin.data());
    std::vector<Section> sections;
    if (!gpu::readElfSections(cubin, sections, error))
        return false;
    const Section* debugLine = nullptr;
    const Section* rela = nullptr;
    for (const Section& s : sections) {
        if (s.name == ".debug_line")
            debugLine = &s;
        if (s.name == ".rela.debug_line" || s.name == ".rel.debug_line")
            rela = &s;
    }
    if (!debugLine) {
        error = "the cubin has no .debug_line section (compile with line info: -lineinfo / "
                "--generate-line-info)";
        return false;
    }

    // Relocations of .debug_line: operand offset -> kernel (the symbol, or the .text.<kernel> section).
    std::map<uint64_t, std::string> functionAt;
    if (rela && rela->link < sections.size()) {
        const Section& symtab = sections[rela->link];
        const Section* strtab = symtab.link < sections.size() ? &sections[symtab.link] : nullptr;
        bool withAddend = rela->name.rfind(".rela", 0) == 0;
        uint64_t entry = withAddend ? 24 : 16;
        for (uint64_t off = 0; off + entry <= rela->size; off += entry) {
            ElfReader e{data, cubin.size(), static_cast<size_t>(rela->offset + off)};
            uint64_t where = e.uint(8);
            uint64_t info = e.uint(8);
            uint64_t symbol = info >> 32;
            if (!e.ok || symtab.entrySize < 24 || symbol >= symtab.size / symtab.entrySize || !strtab)
                continue;
            ElfReader sym{data, cubin.size(), static_cast<size_t>(symtab.offset + symbol * symtab.entrySize)};
            uint32_t nameOffset = static_cast<uint32_t>(sym.uint(4));
            unsigned char symInfo = static_cast<unsigned char>(sym.uint(1));
            sym.uint(1);
            uint64_t sectionIndex = sym.uint(2);
            std::string name;
            if ((symInfo & 0xf) == 3 && sectionIndex < sections.size()) { // STT_SECTION: name by section
                name = sections[sectionIndex].name;
                if (name.rfind(".text.", 0) == 0)
                    name = name.substr(6);
            } else {
                name = gpu::elfString(cubin, strtab->offset + nameOffset, strtab->offset + strtab->size);
            }
            if (!name.empty())
                functionAt[where] = name;
        }
    }
    // Without relocations (a single-kernel cubin from some toolchains), attribute everything to the only
    // .text section.
    std::string onlyKernel;
    int textSections = 0;
    for (const Section& s : sections)
        if (s.name.rfind(".text.", 0) == 0) {
            ++textSections;
            onlyKernel = s.name.substr(6);
        }

    ElfReader r{data + debugLine->offset, static_cast<size_t>(debugLine->size)};
    size_t pos = 0;
    for (int unit = 0; pos < debugLine->size && unit < 100000; ++unit) {
        size_t next = 0;
        std::map<uint64_t, std::string> local = functionAt;
        if (functionAt.empty() && textSections == 1) {
            // Name the first set_address operand of this unit by the only kernel.
            local.clear();
        }
        std::map<std::string, std::vector<LineRow>> rows;
        if (!decodeProgram(r, pos, local, rows, next, error))
            return false;
        if (functionAt.empty() && textSections == 1 && rows.empty()) {
            // Re-decode with every offset mapped to the only kernel.
            std::map<uint64_t, std::string> all;
            for (size_t i = pos; i < next; ++i)
                all[i] = onlyKernel;
            decodeProgram(r, pos, all, rows, next, error);
        }
        for (auto& [fn, list] : rows) {
            auto& dst = table.functions[fn];
            dst.insert(dst.end(), list.begin(), list.end());
        }
        if (next <= pos)
            break;
        pos = next;
    }
    for (auto& [fn, rows] : table.functions)
        std::stable_sort(rows.begin(), rows.end(),
                         [](const LineRow& a, const LineRow& b) { return a.address < b.address; });
    if (table.functions.empty()) {
        error = "the .debug_line section names no kernel";
        return false;
    }
    return true;
}

} // namespace tb::gpu
