// Base64 (RFC 4648, standard alphabet, '=' padding) for the binary payloads of the runner protocol: cubins
// sent to the runner and buffer contents read back travel inline as one base64 line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::gpu {

std::string encodeBase64(const void* data, size_t size);
inline std::string encodeBase64(const std::vector<char>& bytes) {
    return encodeBase64(bytes.data(), bytes.size());
}
// Appends the encoding to `out`: a reply line with a multi-MB payload is built without another copy.
void appendBase64(std::string& out, const void* data, size_t size);

// nullopt when the text is not canonical base64 (bad character, bad length, bad padding).
std::optional<std::vector<char>> decodeBase64(std::string_view text);
// The same into `out` (its old contents are replaced, its capacity reused); false, with `out` cleared,
// when the text is not canonical base64.
bool decodeBase64(std::string_view text, std::vector<char>& out);

} // namespace tb::gpu
