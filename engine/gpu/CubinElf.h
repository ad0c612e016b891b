// The ELF structure of a cubin, read without trusting the file: the section table, bounds-checked
// little-endian reads, and the per-function resources ptxas records in `.nv.info` (registers, stack frame).
// Used by the line-table reader (engine/gpu/CubinLineTable) and by compileCuda, which needs the register
// count when NVRTC answered from its ptxas cache and printed no ptxas report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::gpu {

struct ElfSection {
    std::string name;
    uint32_t type = 0;
    uint64_t offset = 0, size = 0;
    uint32_t link = 0, info = 0;
    uint64_t entrySize = 0;
};

// Little-endian reads with bounds checks; `ok` turns false on the first read past the end.
struct ElfReader {
    const unsigned char* data;
    size_t size;
    size_t pos = 0;
    bool ok = true;

    bool has(size_t n);
    uint64_t uint(size_t n);
    uint64_t uleb();
    int64_t sleb();
    std::string cstr();
};

// The NUL-terminated string at `offset`, not reading at or past `limit`.
std::string elfString(const std::vector<char>& bytes, uint64_t offset, uint64_t limit);

// The section table with names resolved. False with `error` set when the bytes are not a little-endian
// ELF64 file or a section lies outside it.
bool readElfSections(const std::vector<char>& elf, std::vector<ElfSection>& sections, std::string& error);

// What ptxas recorded for one function (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE in `.nv.info`).
struct CubinFunctionResources {
    int registers = -1;
    int frameBytes = -1;
};

// nullopt when the cubin is damaged or does not describe `function`.
std::optional<CubinFunctionResources> cubinFunctionResources(const std::vector<char>& cubin,
                                                             const std::string& function);

} // namespace tb::gpu
