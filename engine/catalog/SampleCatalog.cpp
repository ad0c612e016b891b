#include "engine/catalog/SampleCatalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tb {

namespace fs = std::filesystem;

std::string samplesDirectory() {
    if (const char* env = std::getenv("TILEBENCH_SAMPLES_DIR"); env && *env)
        return env;
    return TILEBENCH_SAMPLES_DIR;
}

bool readTextFile(const std::string& path, std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    return !in.bad();
}

namespace {

std::string stemWithoutLevel(const std::string& stem) {
    size_t i = 0;
    while (i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i])))
        ++i;
    if (i > 0 && i < stem.size() && stem[i] == '_')
        return stem.substr(i + 1);
    return stem;
}

SampleInfo describe(const fs::path& path) {
    SampleInfo info;
    info.fileName = path.filename().string();
    info.name = stemWithoutLevel(path.stem().string());
    info.path = fs::absolute(path).string();
    std::string text;
    readTextFile(info.path, text);
    std::istringstream lines(text);
    std::string line;
    const std::string directive = "# tilebench-reference:";
    while (std::getline(lines, line)) {
        if (line.rfind('#', 0) != 0)
            break;
        if (line.rfind(directive, 0) == 0) {
            info.reference = line.substr(directive.size());
            info.reference.erase(0, info.reference.find_first_not_of(' '));
            continue;
        }
        std::string body = line.substr(1);
        if (!body.empty() && body[0] == ' ')
            body.erase(0, 1);
        info.description += body + "\n";
    }
    return info;
}

} // namespace

std::vector<SampleInfo> listSamples() {
    std::vector<SampleInfo> samples;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(samplesDirectory(), ec))
        if (entry.is_regular_file() && entry.path().extension() == ".py")
            samples.push_back(describe(entry.path()));
    std::sort(samples.begin(), samples.end(),
              [](const SampleInfo& a, const SampleInfo& b) { return a.fileName < b.fileName; });
    return samples;
}

std::optional<SampleInfo> findSample(const std::string& name) {
    for (SampleInfo& s : listSamples())
        if (s.name == name || s.fileName == name || fs::path(s.fileName).stem() == name)
            return s;
    return std::nullopt;
}

} // namespace tb
