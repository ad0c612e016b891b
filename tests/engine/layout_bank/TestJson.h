// A minimal JSON reader for the bank-model tests: enough to load shared/data/bank-rules-cases.json.
// The engine only writes JSON (engine/support/Json.h); this reader lives with the tests that need it.
// Malformed input gives an error string, never a crash; nesting is limited to 64 levels.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tb::testjson {

struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0.0;
    std::string text;
    std::vector<Value> items;                           // Array
    std::vector<std::pair<std::string, Value>> members; // Object, in file order

    bool isNull() const { return kind == Kind::Null; }
    // Object member by key; nullptr when absent or not an object.
    const Value* find(std::string_view key) const;
};

// Parses a whole document. On failure returns nullopt and sets `error` ("offset N: ...").
std::optional<Value> parse(std::string_view text, std::string& error);

} // namespace tb::testjson
