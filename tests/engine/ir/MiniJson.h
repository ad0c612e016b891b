// A minimal recursive-descent JSON parser for tests: it rejects anything that is not strict JSON
// (RFC 8259: no trailing commas, no NaN, no comments) and gives back a tree to query key fields.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::testjson {

struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::vector<std::pair<std::string, Value>> object; // in document order

    const Value* get(std::string_view key) const {
        for (const auto& [k, v] : object)
            if (k == key)
                return &v;
        return nullptr;
    }
    // Follows keys and array indices, e.g. at({"funcs", "0", "name"}); null if any step is missing.
    const Value* at(std::initializer_list<std::string_view> path) const {
        const Value* cur = this;
        for (std::string_view step : path) {
            if (!cur)
                return nullptr;
            if (cur->kind == Kind::Array) {
                size_t i = static_cast<size_t>(std::atoi(std::string(step).c_str()));
                cur = i < cur->array.size() ? &cur->array[i] : nullptr;
            } else {
                cur = cur->get(step);
            }
        }
        return cur;
    }
};

class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    std::optional<Value> parse() {
        Value v;
        if (!value(v, 0))
            return std::nullopt;
        ws();
        if (m_pos != m_text.size())
            return std::nullopt;
        return v;
    }

private:
    void ws() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\t' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool literal(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }
    bool string(std::string& out) {
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return false;
        ++m_pos;
        while (m_pos < m_text.size()) {
            char ch = m_text[m_pos++];
            if (ch == '"')
                return true;
            if (static_cast<unsigned char>(ch) < 0x20)
                return false;
            if (ch == '\\') {
                if (m_pos >= m_text.size())
                    return false;
                char e = m_text[m_pos++];
                if (e == 'u') {
                    if (m_pos + 4 > m_text.size())
                        return false;
                    for (int i = 0; i < 4; ++i)
                        if (!std::isxdigit(static_cast<unsigned char>(m_text[m_pos + i])))
                            return false;
                    out += '?';
                    m_pos += 4;
                    continue;
                }
                std::string_view allowed = "\"\\/bfnrt";
                if (allowed.find(e) == std::string_view::npos)
                    return false;
                out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
                continue;
            }
            out += ch;
        }
        return false;
    }
    bool number(double& out) {
        size_t start = m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '-')
            ++m_pos;
        auto digits = [&] {
            size_t s = m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
                ++m_pos;
            return m_pos > s;
        };
        if (m_pos < m_text.size() && m_text[m_pos] == '0')
            ++m_pos;
        else if (!digits())
            return false;
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            if (!digits())
                return false;
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (!digits())
                return false;
        }
        out = std::strtod(std::string(m_text.substr(start, m_pos - start)).c_str(), nullptr);
        return true;
    }
    bool value(Value& v, int depth) {
        if (depth > 512)
            return false;
        ws();
        if (m_pos >= m_text.size())
            return false;
        char ch = m_text[m_pos];
        if (ch == '{') {
            v.kind = Value::Kind::Object;
            ++m_pos;
            ws();
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return true;
            }
            while (true) {
                ws();
                std::string key;
                if (!string(key))
                    return false;
                ws();
                if (m_pos >= m_text.size() || m_text[m_pos++] != ':')
                    return false;
                Value child;
                if (!value(child, depth + 1))
                    return false;
                v.object.emplace_back(std::move(key), std::move(child));
                ws();
                if (m_pos >= m_text.size())
                    return false;
                char sep = m_text[m_pos++];
                if (sep == '}')
                    return true;
                if (sep != ',')
                    return false;
            }
        }
        if (ch == '[') {
            v.kind = Value::Kind::Array;
            ++m_pos;
            ws();
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            while (true) {
                Value child;
                if (!value(child, depth + 1))
                    return false;
                v.array.push_back(std::move(child));
                ws();
                if (m_pos >= m_text.size())
                    return false;
                char sep = m_text[m_pos++];
                if (sep == ']')
                    return true;
                if (sep != ',')
                    return false;
            }
        }
        if (ch == '"') {
            v.kind = Value::Kind::String;
            return string(v.string);
        }
        if (literal("true")) {
            v.kind = Value::Kind::Bool;
            v.boolean = true;
            return true;
        }
        if (literal("false")) {
            v.kind = Value::Kind::Bool;
            return true;
        }
        if (literal("null"))
            return true;
        v.kind = Value::Kind::Number;
        return number(v.number);
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

inline std::optional<Value> parse(std::string_view text) {
    return Parser(text).parse();
}

} // namespace tb::testjson
