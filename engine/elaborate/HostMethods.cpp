// Methods of compile-time Python values: str (upper, lower, strip, startswith, endswith, split, join,
// replace, format), list (append, extend, insert, pop, copy, clear, reverse), list and tuple (index, count),
// dict (get, keys, values, items, update, setdefault, pop, copy), float.is_integer and int.bit_length.
// A method called with arguments it does not model behaves as Python's attribute lookup would report it
// for lists, tuples and dicts (unknown-attribute), and becomes a host value for strings.
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {

namespace {

// The method's name after its receiver type: "append" for "list.append".
std::string methodName(const PrimitiveCall& call) {
    return call.name.substr(call.name.find('.') + 1);
}

// A receiver-less call cannot come from attribute lookup; it stays a host value like any unknown builtin.
Value noReceiver(const PrimitiveCall& call) {
    return Value::opaque(call.name + "(...)");
}

// ---- list and tuple ---------------------------------------------------------------------------------

Value sequenceNoAttribute(Interpreter& in, PrimitiveCall& call) {
    return in.error("unknown-attribute", call.range,
                    "'" + typeName(*call.self) + "' object has no attribute '" + methodName(call) + "'");
}

Value sequenceIndex(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.empty())
        return sequenceNoAttribute(in, call);
    const std::vector<Value>& items = *call.self->items;
    for (size_t k = 0; k < items.size(); ++k)
        if (valuesEqual(items[k], pos[0]))
            return Value::integer(static_cast<int64_t>(k));
    return in.error("value-error", call.range, toRepr(pos[0]) + " is not in " + typeName(*call.self));
}

Value sequenceCount(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1)
        return sequenceNoAttribute(in, call);
    int64_t n = 0;
    for (const Value& v : *call.self->items)
        n += valuesEqual(v, pos[0]);
    return Value::integer(n);
}

Value sequenceFallback(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    return sequenceNoAttribute(in, call);
}

Value listAppend(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1)
        return sequenceNoAttribute(in, call);
    std::vector<Value>& items = *call.self->items;
    if (items.size() >= (1u << 20))
        return in.error("value-error", call.range, "list is too large");
    items.push_back(pos[0]);
    return Value::none();
}

Value listExtend(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1)
        return sequenceNoAttribute(in, call);
    std::vector<Value>& items = *call.self->items;
    auto seq = in.iterate(pos[0], call.at(0));
    if (seq)
        items.insert(items.end(), seq->begin(), seq->end());
    return Value::none();
}

Value listInsert(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 2 || !pos[0].isIntLike())
        return sequenceNoAttribute(in, call);
    std::vector<Value>& items = *call.self->items;
    int64_t k = std::clamp<int64_t>(pos[0].i < 0 ? pos[0].i + static_cast<int64_t>(items.size()) : pos[0].i,
                                    0, static_cast<int64_t>(items.size()));
    items.insert(items.begin() + k, pos[1]);
    return Value::none();
}

Value listPop(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    std::vector<Value>& items = *call.self->items;
    if (items.empty())
        return in.error("index-out-of-range", call.range, "pop from empty list");
    int64_t k = pos.empty() ? -1 : (pos[0].isIntLike() ? pos[0].i : -1);
    if (k < 0)
        k += static_cast<int64_t>(items.size());
    if (k < 0 || k >= static_cast<int64_t>(items.size()))
        return in.error("index-out-of-range", call.range, "pop index out of range");
    Value v = items[static_cast<size_t>(k)];
    items.erase(items.begin() + k);
    return v;
}

Value listCopy(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    return Value::list(*call.self->items);
}

Value listClear(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    call.self->items->clear();
    return Value::none();
}

Value listReverse(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    std::reverse(call.self->items->begin(), call.self->items->end());
    return Value::none();
}

// ---- dict -------------------------------------------------------------------------------------------

Value dictNoAttribute(Interpreter& in, PrimitiveCall& call) {
    return in.error("unknown-attribute", call.range,
                    "'dict' object has no attribute '" + methodName(call) + "'");
}

Value dictFallback(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    return dictNoAttribute(in, call);
}

Value dictGet(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.empty())
        return dictNoAttribute(in, call);
    if (Value* v = dictFind(*call.self->dict, pos[0]))
        return *v;
    return pos.size() > 1 ? pos[1] : Value::none();
}

// keys(), values() and items(): lists (Python's views are only iterated in tile programs).
Value dictView(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    std::string m = methodName(call);
    std::vector<Value> out;
    for (auto& [k, v] : call.self->dict->entries)
        out.push_back(m == "keys" ? k : m == "values" ? v : Value::tuple({k, v}));
    return Value::list(out);
}

Value dictUpdate(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1 || pos[0].kind != ValueKind::Dict)
        return dictNoAttribute(in, call);
    DictData& d = *call.self->dict;
    for (auto& [k, v] : pos[0].dict->entries) {
        if (Value* slot = dictFind(d, k))
            *slot = v;
        else
            d.entries.emplace_back(k, v);
    }
    for (auto& [k, v] : call.args.keywords)
        d.entries.emplace_back(Value::str(k), v);
    return Value::none();
}

// setdefault(key, default) and pop(key, default).
Value dictTake(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.empty())
        return dictNoAttribute(in, call);
    std::string m = methodName(call);
    DictData& d = *call.self->dict;
    for (size_t k = 0; k < d.entries.size(); ++k) {
        if (valuesEqual(d.entries[k].first, pos[0])) {
            Value v = d.entries[k].second;
            if (m == "pop")
                d.entries.erase(d.entries.begin() + static_cast<long>(k));
            return v;
        }
    }
    if (m == "setdefault") {
        d.entries.emplace_back(pos[0], pos.size() > 1 ? pos[1] : Value::none());
        return d.entries.back().second;
    }
    if (pos.size() > 1)
        return pos[1];
    return in.error("key-error", call.range, "key " + toRepr(pos[0]) + " is not in the dict");
}

Value dictCopy(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    Value c = Value::dictionary();
    c.dict->entries = call.self->dict->entries;
    return c;
}

// ---- str --------------------------------------------------------------------------------------------

Value strFallback(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    return Value::opaque("str." + methodName(call) + "(...)");
}

// isdigit(), isalpha(), isalnum(), isspace(): true for a non-empty string of such characters.
Value strClass(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    const std::string m = methodName(call);
    const std::string& s = call.self->s;
    bool all = !s.empty() && std::all_of(s.begin(), s.end(), [&](char ch) {
        unsigned char c = static_cast<unsigned char>(ch);
        return m == "isdigit"   ? std::isdigit(c) != 0
               : m == "isalpha" ? std::isalpha(c) != 0
               : m == "isalnum" ? std::isalnum(c) != 0
                                : std::isspace(c) != 0;
    });
    return Value::boolean(all);
}

// upper() and lower().
Value strCase(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    bool upper = methodName(call) == "upper";
    std::string out = call.self->s;
    for (char& c : out)
        c = upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                  : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Value::str(out);
}

Value strStrip(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    const std::string& s = call.self->s;
    size_t b = s.find_first_not_of(" \t\n");
    size_t e = s.find_last_not_of(" \t\n");
    return Value::str(b == std::string::npos ? "" : s.substr(b, e - b + 1));
}

// startswith(prefix) and endswith(suffix).
Value strAffix(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1 || pos[0].kind != ValueKind::Str)
        return strFallback(in, call);
    const std::string& s = call.self->s;
    const std::string& p = pos[0].s;
    bool r = p.size() <= s.size() &&
             (methodName(call) == "startswith" ? s.compare(0, p.size(), p) == 0
                                               : s.compare(s.size() - p.size(), p.size(), p) == 0);
    return Value::boolean(r);
}

Value strSplit(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    const std::string& s = call.self->s;
    std::vector<Value> out;
    std::string sep = !pos.empty() && pos[0].kind == ValueKind::Str ? pos[0].s : "";
    if (sep.empty()) {
        size_t k = 0;
        while (k < s.size()) {
            while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k])))
                ++k;
            size_t b = k;
            while (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k])))
                ++k;
            if (k > b)
                out.push_back(Value::str(s.substr(b, k - b)));
        }
    } else {
        size_t b = 0;
        while (true) {
            size_t e = s.find(sep, b);
            out.push_back(Value::str(s.substr(b, e == std::string::npos ? std::string::npos : e - b)));
            if (e == std::string::npos)
                break;
            b = e + sep.size();
        }
    }
    return Value::list(out);
}

Value strJoin(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 1)
        return strFallback(in, call);
    auto seq = in.iterate(pos[0], call.at(0));
    if (!seq)
        return Value::poison();
    std::string out;
    for (size_t k = 0; k < seq->size(); ++k)
        out += (k ? call.self->s : "") + toStr((*seq)[k]);
    return Value::str(out);
}

Value strReplace(Interpreter& in, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    if (pos.size() != 2 || pos[0].kind != ValueKind::Str || pos[1].kind != ValueKind::Str || pos[0].s.empty())
        return strFallback(in, call);
    const std::string& s = call.self->s;
    std::string out;
    size_t b = 0;
    while (true) {
        size_t e = s.find(pos[0].s, b);
        if (e == std::string::npos) {
            out += s.substr(b);
            break;
        }
        out += s.substr(b, e - b) + pos[1].s;
        b = e + pos[0].s.size();
    }
    return Value::str(out);
}

// format(): positional {} fields only.
Value strFormat(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    auto& pos = call.args.positional;
    const std::string& s = call.self->s;
    std::string out;
    size_t next = 0;
    for (size_t k = 0; k < s.size(); ++k) {
        if (s[k] == '{' && k + 1 < s.size() && s[k + 1] == '}') {
            out += next < pos.size() ? toStr(pos[next++]) : "";
            ++k;
        } else {
            out += s[k];
        }
    }
    return Value::str(out);
}

// ---- numbers ----------------------------------------------------------------------------------------

Value floatIsInteger(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    return Value::boolean(std::floor(call.self->f) == call.self->f);
}

Value intBitLength(Interpreter&, PrimitiveCall& call) {
    if (!call.self)
        return noReceiver(call);
    uint64_t v = static_cast<uint64_t>(call.self->i < 0 ? -call.self->i : call.self->i);
    int64_t n = 0;
    while (v) {
        ++n;
        v >>= 1;
    }
    return Value::integer(n);
}

} // namespace

std::span<const PrimitiveRow> valueMethods() {
    static const PrimitiveRow rows[] = {
        {"list.append", listAppend},
        {"list.extend", listExtend},
        {"list.insert", listInsert},
        {"list.pop", listPop},
        {"list.copy", listCopy},
        {"list.clear", listClear},
        {"list.reverse", listReverse},
        {"list.index", sequenceIndex},
        {"list.count", sequenceCount},
        {"list.", sequenceFallback},
        {"tuple.index", sequenceIndex},
        {"tuple.count", sequenceCount},
        {"tuple.", sequenceFallback},
        {"dict.get", dictGet},
        {"dict.keys", dictView},
        {"dict.values", dictView},
        {"dict.items", dictView},
        {"dict.update", dictUpdate},
        {"dict.setdefault", dictTake},
        {"dict.pop", dictTake},
        {"dict.copy", dictCopy},
        {"dict.", dictFallback},
        {"str.upper", strCase},
        {"str.lower", strCase},
        {"str.strip", strStrip},
        {"str.startswith", strAffix},
        {"str.endswith", strAffix},
        {"str.split", strSplit},
        {"str.join", strJoin},
        {"str.replace", strReplace},
        {"str.format", strFormat},
        {"str.isdigit", strClass},
        {"str.isalpha", strClass},
        {"str.isalnum", strClass},
        {"str.isspace", strClass},
        {"str.", strFallback},
        {"float.is_integer", floatIsInteger},
        {"int.bit_length", intBitLength},
    };
    return rows;
}

} // namespace tb::elab
