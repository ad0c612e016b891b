// A small streaming JSON writer. Every stage of the engine prints itself as JSON through it, so the
// output is deterministic: keys come out in the order they are written, numbers in a fixed format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

class JsonWriter {
public:
    explicit JsonWriter(bool pretty = true) : m_pretty(pretty) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    // Inside an object: the next value's key.
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
    JsonWriter& value(int64_t number);
    JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(uint32_t number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(uint64_t number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(double number);
    JsonWriter& value(bool flag);
    JsonWriter& null();
    // Appends already-serialized JSON as one value (used to nest documents).
    JsonWriter& raw(std::string_view json);

    // key(name).value(v) in one call.
    template <typename T>
    JsonWriter& field(std::string_view name, const T& v) {
        key(name);
        return value(v);
    }

    const std::string& str() const { return m_out; }
    static std::string escape(std::string_view text);

private:
    void beforeValue();
    void newline();

    struct Level {
        bool isObject;
        bool empty;
    };
    std::string m_out;
    std::vector<Level> m_stack;
    bool m_pretty;
    bool m_afterKey = false;
};

} // namespace tb
