// Small scanners over text that the report readers share (PTX/SASS line tables, pass snapshots, bench and
// sweep specs): trimming and reading a leading decimal number.
#pragma once

#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

namespace tb {

// `s` without leading and trailing whitespace.
inline std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

inline std::string trimmedCopy(std::string_view s) {
    return std::string(trimmed(s));
}

// The decimal number at the start of `s` (after whitespace); 0 when there is none.
inline int leadingInt(std::string_view s) {
    s = trimmed(s);
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return ec == std::errc() && ptr != s.data() ? value : 0;
}

} // namespace tb
