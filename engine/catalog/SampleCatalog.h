// The bundled samples (samples/*.py): numbered levels, one idea each. tilec and the app list them, open
// them by name ("gemm_relu" or "02_gemm_relu"), and show each one's header comment as its description.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tb {

struct SampleInfo {
    std::string name;        // "gemm_relu" (file stem without the level number)
    std::string fileName;    // "02_gemm_relu.py"
    std::string path;        // absolute
    std::string description; // the header comment, without '#'
    std::string reference;   // the "# tilebench-reference:" directive, empty if none
};

// The directory holding the samples: $TILEBENCH_SAMPLES_DIR if set, else the one TileBench was built from.
std::string samplesDirectory();
std::vector<SampleInfo> listSamples();
// Finds a sample by name, numbered name or file name.
std::optional<SampleInfo> findSample(const std::string& name);
bool readTextFile(const std::string& path, std::string& text);

} // namespace tb
