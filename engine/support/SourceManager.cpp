#include "engine/support/SourceManager.h"

#include <algorithm>
#include <utility>

namespace tb {

SourceRange SourceRange::merge(const SourceRange& other) const {
    if (!valid)
        return other;
    if (!other.valid || other.file != file)
        return *this;
    return make(file, std::min(begin, other.begin), std::max(end, other.end));
}

SourceFile::SourceFile(std::string name, std::string text)
    : m_name(std::move(name)), m_text(std::move(text)) {
    m_lineStarts.push_back(0);
    for (uint32_t i = 0; i < m_text.size(); ++i)
        if (m_text[i] == '\n')
            m_lineStarts.push_back(i + 1);
}

LineCol SourceFile::lineCol(uint32_t offset) const {
    offset = std::min<uint32_t>(offset, static_cast<uint32_t>(m_text.size()));
    auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
    uint32_t line = static_cast<uint32_t>(it - m_lineStarts.begin());
    return {line, offset - m_lineStarts[line - 1] + 1};
}

std::string_view SourceFile::lineText(uint32_t line) const {
    if (line == 0 || line > m_lineStarts.size())
        return {};
    uint32_t begin = m_lineStarts[line - 1];
    uint32_t end = line < m_lineStarts.size() ? m_lineStarts[line] : static_cast<uint32_t>(m_text.size());
    std::string_view text(m_text);
    text = text.substr(begin, end - begin);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

FileId SourceManager::addFile(std::string name, std::string text) {
    m_files.emplace_back(std::move(name), std::move(text));
    return static_cast<FileId>(m_files.size() - 1);
}

uint32_t SourceManager::lineOf(const SourceRange& range) const {
    if (!range.valid || range.file >= m_files.size())
        return 0;
    return m_files[range.file].lineCol(range.begin).line;
}

std::string SourceManager::describe(const SourceRange& range) const {
    if (!range.valid || range.file >= m_files.size())
        return "<unknown>";
    const SourceFile& f = m_files[range.file];
    LineCol lc = f.lineCol(range.begin);
    return f.name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

} // namespace tb
