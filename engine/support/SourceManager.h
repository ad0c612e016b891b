// Source text of tile programs and the locations that every token, AST node, IR node and diagnostic
// carries. A location is a byte offset into one registered file; line and column are computed on demand
// so that locations stay two integers wide.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

using FileId = uint32_t;

// A half-open byte range [begin, end) in one source file. A default range is "unknown".
struct SourceRange {
    FileId file = 0;
    uint32_t begin = 0;
    uint32_t end = 0;
    bool valid = false;

    static SourceRange make(FileId file, uint32_t begin, uint32_t end) { return {file, begin, end, true}; }
    // The smallest range covering both; an invalid side is ignored.
    SourceRange merge(const SourceRange& other) const;
};

struct LineCol {
    uint32_t line = 0;   // 1-based
    uint32_t column = 0; // 1-based, in bytes
};

class SourceFile {
public:
    SourceFile(std::string name, std::string text);
    const std::string& name() const { return m_name; }
    const std::string& text() const { return m_text; }
    LineCol lineCol(uint32_t offset) const;
    // The text of a 1-based line without its newline.
    std::string_view lineText(uint32_t line) const;
    uint32_t lineCount() const { return static_cast<uint32_t>(m_lineStarts.size()); }

private:
    std::string m_name;
    std::string m_text;
    std::vector<uint32_t> m_lineStarts;
};

// Owns every file the engine has seen in one compilation. Files are never removed, so ids stay valid.
class SourceManager {
public:
    FileId addFile(std::string name, std::string text);
    const SourceFile& file(FileId id) const { return m_files.at(id); }
    size_t fileCount() const { return m_files.size(); }
    // "name:line:col" of the start of a range, or "<unknown>".
    std::string describe(const SourceRange& range) const;
    // The 1-based line where a range starts; 0 for an invalid range or an unknown file.
    uint32_t lineOf(const SourceRange& range) const;

private:
    std::vector<SourceFile> m_files;
};

} // namespace tb
