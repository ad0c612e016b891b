// Recursive-descent JSON reader for the bank-model tests (see TestJson.h).
#include "TestJson.h"

#include <cstdlib>

namespace tb::testjson {

const Value* Value::find(std::string_view key) const {
    if (kind != Kind::Object)
        return nullptr;
    for (const auto& [name, value] : members)
        if (name == key)
            return &value;
    return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;

class Reader {
public:
    explicit Reader(std::string_view text) : m_text(text) {}

    std::optional<Value> document(std::string& error) {
        Value value;
        if (!parseValue(value, 0) || (skipSpace(), m_pos != m_text.size())) {
            error = "offset " + std::to_string(m_pos) + ": " + (m_error.empty() ? "trailing text" : m_error);
            return std::nullopt;
        }
        return value;
    }

private:
    bool fail(const char* message) {
        if (m_error.empty())
            m_error = message;
        return false;
    }
    void skipSpace() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            ++m_pos;
    }
    bool consume(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }

    bool parseValue(Value& out, int depth) {
        if (depth > kMaxDepth)
            return fail("nesting too deep");
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("unexpected end");
        char c = m_text[m_pos];
        if (c == '{')
            return parseObject(out, depth);
        if (c == '[')
            return parseArray(out, depth);
        if (c == '"') {
            out.kind = Value::Kind::String;
            return parseString(out.text);
        }
        if (consume("null")) {
            out.kind = Value::Kind::Null;
            return true;
        }
        if (consume("true") || consume("false")) {
            out.kind = Value::Kind::Bool;
            out.boolean = m_text[m_pos - 2] == 'u'; // "tru|e" vs "fals|e"
            return true;
        }
        return parseNumber(out);
    }

    bool parseNumber(Value& out) {
        size_t start = m_pos;
        while (m_pos < m_text.size() &&
               std::string_view("+-0123456789.eE").find(m_text[m_pos]) != std::string_view::npos)
            ++m_pos;
        if (m_pos == start)
            return fail("expected a value");
        std::string digits(m_text.substr(start, m_pos - start));
        char* end = nullptr;
        out.kind = Value::Kind::Number;
        out.number = std::strtod(digits.c_str(), &end);
        return end == digits.c_str() + digits.size() ? true : fail("bad number");
    }

    bool parseString(std::string& out) {
        ++m_pos; // opening quote
        while (m_pos < m_text.size()) {
            char c = m_text[m_pos++];
            if (c == '"')
                return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            char e = m_text[m_pos++];
            switch (e) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': // the case file is ASCII; keep other code points as '?'
                if (m_pos + 4 > m_text.size())
                    return fail("bad escape");
                out += '?';
                m_pos += 4;
                break;
            default:
                out += e; // '"', '\\', '/'
            }
        }
        return fail("unterminated string");
    }

    bool parseArray(Value& out, int depth) {
        out.kind = Value::Kind::Array;
        ++m_pos;
        skipSpace();
        if (consume("]"))
            return true;
        while (true) {
            Value item;
            if (!parseValue(item, depth + 1))
                return false;
            out.items.push_back(std::move(item));
            skipSpace();
            if (consume("]"))
                return true;
            if (!consume(","))
                return fail("expected ',' or ']'");
        }
    }

    bool parseObject(Value& out, int depth) {
        out.kind = Value::Kind::Object;
        ++m_pos;
        skipSpace();
        if (consume("}"))
            return true;
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                return fail("expected a key");
            std::string key;
            if (!parseString(key))
                return false;
            skipSpace();
            if (!consume(":"))
                return fail("expected ':'");
            Value value;
            if (!parseValue(value, depth + 1))
                return false;
            out.members.emplace_back(std::move(key), std::move(value));
            skipSpace();
            if (consume("}"))
                return true;
            if (!consume(","))
                return fail("expected ',' or '}'");
        }
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace

std::optional<Value> parse(std::string_view text, std::string& error) {
    return Reader(text).document(error);
}

} // namespace tb::testjson
