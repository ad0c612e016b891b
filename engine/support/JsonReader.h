// The engine's JSON reader, the other half of JsonWriter (Json.h): it reads what TileBench writes (the bench
// history) and the measurement files it is checked against (bank-rules-cases.json). Strict JSON: objects,
// arrays, strings (with \uXXXX escapes), numbers, true, false, null. Depth and size are bounded, so a damaged
// file is an error, never a crash or a hang.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<JsonValue> items;
    std::map<std::string, JsonValue> members;

    const JsonValue* member(const std::string& name) const;
    // Follows member names and array indices, e.g. at({"funcs", "0", "name"}); null if a step is missing.
    const JsonValue* at(std::initializer_list<std::string_view> path) const;
    double numberOr(const std::string& name, double fallback) const;
    std::string stringOr(const std::string& name, const std::string& fallback) const;
};

// nullopt with `error` ("line 3: expected ':'") when the text is not one JSON value.
std::optional<JsonValue> parseJson(std::string_view text, std::string& error);

} // namespace tb
