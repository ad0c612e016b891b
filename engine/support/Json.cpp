#include "engine/support/Json.h"

#include <cmath>
#include <cstdio>

namespace tb {

std::string JsonWriter::escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out;
}

void JsonWriter::newline() {
    if (!m_pretty)
        return;
    m_out += '\n';
    m_out.append(m_stack.size() * 2, ' ');
}

void JsonWriter::beforeValue() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_stack.empty())
        return;
    Level& level = m_stack.back();
    if (!level.empty)
        m_out += ',';
    level.empty = false;
    newline();
}

JsonWriter& JsonWriter::beginObject() {
    beforeValue();
    m_out += '{';
    m_stack.push_back({true, true});
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty)
        newline();
    m_out += '}';
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    beforeValue();
    m_out += '[';
    m_stack.push_back({false, true});
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty)
        newline();
    m_out += ']';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    beforeValue();
    m_out += '"' + escape(name) + "\":";
    if (m_pretty)
        m_out += ' ';
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    beforeValue();
    m_out += '"' + escape(text) + '"';
    return *this;
}

JsonWriter& JsonWriter::value(int64_t number) {
    beforeValue();
    m_out += std::to_string(number);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    beforeValue();
    if (std::isnan(number) || std::isinf(number)) {
        // JSON has no NaN/Inf; write them as strings so the document stays valid.
        m_out += std::isnan(number) ? "\"nan\"" : (number > 0 ? "\"inf\"" : "\"-inf\"");
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", number);
    m_out += buf;
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    beforeValue();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    beforeValue();
    m_out += "null";
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    beforeValue();
    m_out.append(json);
    return *this;
}

} // namespace tb
