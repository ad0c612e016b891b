// Line splitting and value escaping for the runner protocol (see RunnerProtocol.h).
#include "engine/gpu/RunnerProtocol.h"

#include <cstdio>

namespace tb::gpu {

std::string ProtocolLine::field(const std::string& key, const std::string& fallback) const {
    auto it = fields.find(key);
    return it == fields.end() ? fallback : it->second;
}

ProtocolLine parseProtocolLine(std::string_view line) {
    ProtocolLine out;
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
        line.remove_suffix(1);
    size_t pos = 0;
    auto skipSpaces = [&] {
        while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t'))
            ++pos;
    };
    auto nextWord = [&] {
        size_t start = pos;
        while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t')
            ++pos;
        return line.substr(start, pos - start);
    };
    skipSpaces();
    out.verb = std::string(nextWord());
    skipSpaces();
    out.rest = std::string(line.substr(pos));
    while (pos < line.size()) {
        std::string_view word = nextWord();
        skipSpaces();
        size_t eq = word.find('=');
        if (eq == std::string_view::npos || eq == 0)
            out.words.push_back(unescapeProtocolValue(word));
        else
            out.fields[std::string(word.substr(0, eq))] = unescapeProtocolValue(word.substr(eq + 1));
    }
    return out;
}

std::string escapeProtocolValue(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f || c == '%' || c == '=') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

std::string unescapeProtocolValue(std::string_view value) {
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    // Copies the runs between escapes whole: a multi-MB base64 value has no '%' at all.
    std::string out;
    out.reserve(value.size());
    size_t i = 0;
    while (i < value.size()) {
        size_t percent = value.find('%', i);
        out.append(value, i, percent == std::string_view::npos ? std::string_view::npos : percent - i);
        if (percent == std::string_view::npos)
            break;
        i = percent;
        if (i + 2 < value.size()) {
            int hi = hex(value[i + 1]), lo = hex(value[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 3;
                continue;
            }
        }
        out += '%';
        ++i;
    }
    return out;
}

std::string quoteForMessage(std::string_view text, size_t limit) {
    std::string out = "\"";
    size_t n = text.size() < limit ? text.size() : limit;
    for (size_t i = 0; i < n; ++i) {
        auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x20 || u >= 0x7f || text[i] == '"' || text[i] == '\\') {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += text[i];
        }
    }
    out += '"';
    if (text.size() > limit)
        out += "...";
    return out;
}

} // namespace tb::gpu
