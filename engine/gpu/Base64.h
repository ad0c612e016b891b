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

// nullopt when the text is not canonical base64 (bad character, bad length, bad padding).
std::optional<std::vector<char>> decodeBase64(std::string_view text);

} // namespace tb::gpu
