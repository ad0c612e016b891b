#include "engine/support/JsonReader.h"

#include <cstdlib>
#include <utility>

namespace tb {

const JsonValue* JsonValue::member(const std::string& name) const {
    auto it = members.find(name);
    return kind == Kind::Object && it != members.end() ? &it->second : nullptr;
}

const JsonValue* JsonValue::at(std::initializer_list<std::string_view> path) const {
    const JsonValue* current = this;
    for (std::string_view step : path) {
        if (!current)
            return nullptr;
        if (current->kind == Kind::Array) {
            size_t index = 0;
            for (char c : step) {
                if (c < '0' || c > '9' || index > current->items.size())
                    return nullptr;
                index = index * 10 + size_t(c - '0');
            }
            current = !step.empty() && index < current->items.size() ? &current->items[index] : nullptr;
        } else {
            current = current->member(std::string(step));
        }
    }
    return current;
}

double JsonValue::numberOr(const std::string& name, double fallback) const {
    const JsonValue* v = member(name);
    return v && v->kind == Kind::Number ? v->number : fallback;
}

std::string JsonValue::stringOr(const std::string& name, const std::string& fallback) const {
    const JsonValue* v = member(name);
    return v && v->kind == Kind::String ? v->text : fallback;
}

namespace {

constexpr int kMaxDepth = 64;

class JsonParser {
public:
    explicit JsonParser(std::string_view text) : m_text(text) {}

    std::optional<JsonValue> document(std::string& error) {
        JsonValue v;
        if (!value(v, 0) || (skipSpace(), m_pos != m_text.size())) {
            if (m_error.empty())
                m_error = "unexpected text after the value";
            error = "line " + std::to_string(line()) + ": " + m_error;
            return std::nullopt;
        }
        return v;
    }

private:
    int line() const {
        int n = 1;
        for (size_t i = 0; i < m_pos && i < m_text.size(); ++i)
            n += m_text[i] == '\n';
        return n;
    }
    void skipSpace() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\t' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool fail(const std::string& message) {
        if (m_error.empty())
            m_error = message;
        return false;
    }
    bool literal(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return fail("unknown literal");
        m_pos += word.size();
        return true;
    }
    bool string(std::string& out) {
        ++m_pos; // opening quote
        while (m_pos < m_text.size()) {
            char c = m_text[m_pos++];
            if (c == '"')
                return true;
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            char e = m_text[m_pos++];
            switch (e) {
            case 'n':
                out.push_back('\n');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            case 'u': {
                if (m_pos + 4 > m_text.size())
                    return fail("short \\u escape");
                unsigned code = static_cast<unsigned>(
                    std::strtoul(std::string(m_text.substr(m_pos, 4)).c_str(), nullptr, 16));
                m_pos += 4;
                if (code < 0x80) {
                    out.push_back(static_cast<char>(code));
                } else if (code < 0x800) {
                    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
                    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
                } else {
                    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
                    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
                    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
                }
                break;
            }
            default:
                out.push_back(e); // \" \\ \/
            }
        }
        return fail("unterminated string");
    }
    bool value(JsonValue& v, int depth) {
        if (depth > kMaxDepth)
            return fail("nested too deeply");
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("unexpected end of text");
        char c = m_text[m_pos];
        if (c == '{') {
            v.kind = JsonValue::Kind::Object;
            ++m_pos;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == '}')
                return ++m_pos, true;
            for (;;) {
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                    return fail("expected a member name");
                std::string name;
                if (!string(name))
                    return false;
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                    return fail("expected ':'");
                ++m_pos;
                JsonValue member;
                if (!value(member, depth + 1))
                    return false;
                v.members[name] = std::move(member);
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    ++m_pos;
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == '}')
                    return ++m_pos, true;
                return fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Kind::Array;
            ++m_pos;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ']')
                return ++m_pos, true;
            for (;;) {
                JsonValue item;
                if (!value(item, depth + 1))
                    return false;
                v.items.push_back(std::move(item));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                    ++m_pos;
                    continue;
                }
                if (m_pos < m_text.size() && m_text[m_pos] == ']')
                    return ++m_pos, true;
                return fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            v.kind = JsonValue::Kind::String;
            return string(v.text);
        }
        if (c == 't' || c == 'f') {
            v.kind = JsonValue::Kind::Bool;
            v.boolean = c == 't';
            return literal(c == 't' ? "true" : "false");
        }
        if (c == 'n') {
            v.kind = JsonValue::Kind::Null;
            return literal("null");
        }
        std::string digits;
        while (m_pos < m_text.size() &&
               std::string_view("+-.eE0123456789").find(m_text[m_pos]) != std::string_view::npos)
            digits.push_back(m_text[m_pos++]);
        char* end = nullptr;
        v.kind = JsonValue::Kind::Number;
        v.number = std::strtod(digits.c_str(), &end);
        if (digits.empty() || !end || *end != '\0')
            return fail("expected a value");
        return true;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace

std::optional<JsonValue> parseJson(std::string_view text, std::string& error) {
    if (text.size() > (size_t(64) << 20)) {
        error = "the JSON text is larger than 64 MiB";
        return std::nullopt;
    }
    return JsonParser(text).document(error);
}

} // namespace tb
