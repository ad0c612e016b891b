// The words shared by tilebench-runner and RunnerClient: the protocol version, how one line splits into
// positional words and key=value fields, and how a value with spaces travels (percent escapes). The full
// protocol is described in docs/runner-protocol.md; this file is the code half of that contract.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tb::gpu {

// Bumped whenever a request or a response changes shape. `hello <version>` must match exactly.
constexpr int kRunnerProtocolVersion = 1;

// The runner refuses longer request lines (a 64 MiB payload is about 85 MiB of base64).
constexpr size_t kRunnerMaxLineBytes = size_t(256) << 20;

// One protocol line: the first word is the verb (a request name, or ok/error/fault/device for responses),
// then positional words, then key=value fields in any order. For error and fault lines, `code` is the
// second word and `message` the rest of the line verbatim.
struct ProtocolLine {
    std::string verb;
    std::vector<std::string> words; // positional words after the verb (escapes decoded)
    std::map<std::string, std::string> fields;
    std::string rest; // everything after the verb, verbatim

    bool has(const std::string& key) const { return fields.count(key) != 0; }
    std::string field(const std::string& key, const std::string& fallback = {}) const;
};

ProtocolLine parseProtocolLine(std::string_view line);

// Percent-escapes the bytes that would break a line into words: space, tab, '%', '=', CR, LF, and any
// control byte. `escapeProtocolValue("NVIDIA H200")` is "NVIDIA%20H200".
std::string escapeProtocolValue(std::string_view value);
std::string unescapeProtocolValue(std::string_view value);

// Printable rendering of a line for error messages (control bytes as \xNN, cut at `limit` bytes).
std::string quoteForMessage(std::string_view text, size_t limit = 80);

} // namespace tb::gpu
