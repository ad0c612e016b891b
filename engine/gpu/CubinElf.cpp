// Reads the section table and `.nv.info` of a cubin (see CubinElf.h).
#include "engine/gpu/CubinElf.h"

#include <cstring>
#include <map>

namespace tb::gpu {

bool ElfReader::has(size_t n) {
    if (!ok || pos > size || size - pos < n) {
        ok = false;
        return false;
    }
    return true;
}

uint64_t ElfReader::uint(size_t n) {
    if (!has(n))
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
        v |= uint64_t(data[pos + i]) << (8 * i);
    pos += n;
    return v;
}

uint64_t ElfReader::uleb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (!has(1))
            return 0;
        unsigned char b = data[pos++];
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    ok = false;
    return 0;
}

int64_t ElfReader::sleb() {
    int64_t v = 0;
    int shift = 0;
    while (shift < 64) {
        if (!has(1))
            return 0;
        unsigned char b = data[pos++];
        v |= int64_t(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= -(int64_t(1) << shift);
            return v;
        }
    }
    ok = false;
    return 0;
}

std::string ElfReader::cstr() {
    std::string s;
    while (has(1)) {
        char c = static_cast<char>(data[pos++]);
        if (c == '\0')
            return s;
        s.push_back(c);
    }
    return s;
}

std::string elfString(const std::vector<char>& bytes, uint64_t offset, uint64_t limit) {
    std::string s;
    for (uint64_t i = offset; i < limit && i < bytes.size() && bytes[i] != '\0'; ++i)
        s.push_back(bytes[i]);
    return s;
}

bool readElfSections(const std::vector<char>& elf, std::vector<ElfSection>& sections, std::string& error) {
    sections.clear();
    const auto* data = reinterpret_cast<const unsigned char*>(elf.data());
    if (elf.size() < 64 ||
        std::memcmp(data,
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        data[4] != 2 || data[5] != 1) {
        error = "not a little-endian ELF64 cubin";
        return false;
    }
    ElfReader header{data, elf.size()};
    header.pos = 0x28;
    uint64_t shoff = header.uint(8);
    header.pos = 0x3a;
    uint64_t shentsize = header.uint(2), shnum = header.uint(2), shstrndx = header.uint(2);
    if (!header.ok || shentsize < 64 || shnum == 0 || shnum > 65535 || shstrndx >= shnum ||
        shoff > elf.size() || (elf.size() - shoff) / shentsize < shnum) {
        error = "damaged ELF section table";
        return false;
    }
    sections.resize(shnum);
    std::vector<uint32_t> nameOffsets(shnum);
    for (uint64_t i = 0; i < shnum; ++i) {
        ElfReader s{data, elf.size(), static_cast<size_t>(shoff + i * shentsize)};
        nameOffsets[i] = static_cast<uint32_t>(s.uint(4));
        sections[i].type = static_cast<uint32_t>(s.uint(4));
        s.uint(8); // flags
        s.uint(8); // address
        sections[i].offset = s.uint(8);
        sections[i].size = s.uint(8);
        sections[i].link = static_cast<uint32_t>(s.uint(4));
        sections[i].info = static_cast<uint32_t>(s.uint(4));
        s.uint(8); // alignment
        sections[i].entrySize = s.uint(8);
        bool nobits = sections[i].type == 8;
        if (!s.ok || (!nobits && (sections[i].offset > elf.size() ||
                                  sections[i].size > elf.size() - sections[i].offset))) {
            error = "ELF section " + std::to_string(i) + " lies outside the file";
            sections.clear();
            return false;
        }
    }
    const ElfSection& names = sections[shstrndx];
    for (uint64_t i = 0; i < shnum; ++i)
        sections[i].name = elfString(elf, names.offset + nameOffsets[i], names.offset + names.size);
    return true;
}

std::optional<CubinFunctionResources> cubinFunctionResources(const std::vector<char>& cubin,
                                                             const std::string& function) {
    std::vector<ElfSection> sections;
    std::string error;
    if (!readElfSections(cubin, sections, error))
        return std::nullopt;
    const ElfSection* info = nullptr;
    for (const ElfSection& s : sections)
        if (s.name == ".nv.info")
            info = &s;
    if (!info || info->link >= sections.size())
        return std::nullopt;
    // The function's index in the symbol table `.nv.info` refers to.
    const ElfSection& symtab = sections[info->link];
    if (symtab.entrySize < 24 || symtab.link >= sections.size())
        return std::nullopt;
    const ElfSection& strtab = sections[symtab.link];
    const auto* data = reinterpret_cast<const unsigned char*>(cubin.data());
    std::optional<uint64_t> symbol;
    for (uint64_t i = 0; i < symtab.size / symtab.entrySize && !symbol; ++i) {
        ElfReader sym{data, cubin.size(), static_cast<size_t>(symtab.offset + i * symtab.entrySize)};
        uint64_t nameOffset = sym.uint(4);
        if (sym.ok && elfString(cubin, strtab.offset + nameOffset, strtab.offset + strtab.size) == function)
            symbol = i;
    }
    if (!symbol)
        return std::nullopt;
    // Attributes: format byte, attribute byte, then by format nothing, a byte, a half, or a sized payload
    // (EIFMT_SVAL: u16 size, then for these attributes u32 symbol index and u32 value).
    constexpr unsigned kFormatSized = 4, kRegisterCount = 0x2f, kFrameSize = 0x11;
    CubinFunctionResources out;
    bool described = false;
    ElfReader r{data, cubin.size(), static_cast<size_t>(info->offset)};
    const size_t end = static_cast<size_t>(info->offset + info->size);
    while (r.ok && r.pos + 2 <= end) {
        unsigned format = static_cast<unsigned>(r.uint(1)), attribute = static_cast<unsigned>(r.uint(1));
        if (format != kFormatSized) {
            r.uint(2); // EIFMT_NVAL / BVAL / HVAL: the entry is 4 bytes
            continue;
        }
        size_t size = static_cast<size_t>(r.uint(2));
        size_t next = r.pos + size;
        if (!r.ok || next > end)
            return std::nullopt;
        if ((attribute == kRegisterCount || attribute == kFrameSize) && size == 8 && r.uint(4) == *symbol) {
            int value = static_cast<int>(r.uint(4));
            (attribute == kRegisterCount ? out.registers : out.frameBytes) = value;
            described = true;
        }
        r.pos = next;
    }
    if (!r.ok || !described)
        return std::nullopt;
    return out;
}

} // namespace tb::gpu
