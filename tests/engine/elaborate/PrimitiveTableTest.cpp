// The primitive tables (engine/elaborate/Primitives.h): every name is registered once, every name that
// attribute lookup accepts on `T` or tilelang.layout has a handler, and no name is both implemented and
// listed as unsupported.
#include "engine/elaborate/Primitives.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace tb::elab {
namespace {

std::vector<std::span<const PrimitiveRow>> tileFamilies() {
    return {loopAndKernelPrimitives(),   memoryPrimitives(), computePrimitives(),
            elementMathPrimitives(),     layoutPrimitives(), typePrimitives(),
            synchronizationPrimitives(), scanPrimitives(),   asyncCopyPrimitives(),
            im2colPrimitives()};
}

std::vector<std::span<const PrimitiveRow>> hostFamilies() {
    return {pythonBuiltins(), mathModule(), valueMethods(), hostLibraries(), torchTensors(), hostClasses()};
}

void expectUnique(const std::vector<std::span<const PrimitiveRow>>& families, const char* what) {
    std::set<std::string> seen;
    for (std::span<const PrimitiveRow> family : families) {
        for (const PrimitiveRow& row : family) {
            EXPECT_TRUE(seen.insert(row.name).second) << what << " name registered twice: " << row.name;
            EXPECT_NE(row.handler, nullptr) << row.name;
        }
    }
}

TEST(PrimitiveTable, NamesAreRegisteredOnce) {
    expectUnique(tileFamilies(), "T.");
    expectUnique({layoutModulePrimitives()}, "tilelang.layout.");
    expectUnique(hostFamilies(), "host");
}

TEST(PrimitiveTable, EveryAttributeOfTHasAHandler) {
    std::set<std::string> handled;
    for (std::span<const PrimitiveRow> family : tileFamilies())
        for (const PrimitiveRow& row : family)
            handled.insert(row.name);
    for (const std::string& name : tileOpNames()) {
        if (name == "GemmWarpPolicy" || name == "layout")
            continue; // namespaces, resolved by attribute lookup
        EXPECT_TRUE(handled.count(name)) << "T." << name;
    }
    std::set<std::string> layout;
    for (const PrimitiveRow& row : layoutModulePrimitives())
        layout.insert(row.name);
    for (const std::string& name : layoutNames())
        EXPECT_TRUE(layout.count(name)) << "tilelang.layout." << name;
}

TEST(PrimitiveTable, UnsupportedNamesAreNotImplemented) {
    const std::vector<std::string>& ops = tileOpNames();
    for (const std::string& name : unsupportedTileNames())
        EXPECT_EQ(std::find(ops.begin(), ops.end(), name), ops.end()) << "T." << name;
}

TEST(PrimitiveTable, HostPrefixRowsEndWithADot) {
    // A row named "builtins." catches the rest of its module; such rows must end with the dot, and every
    // module with method rows has one, so that an unknown method gets Python's answer.
    std::set<std::string> prefixes;
    for (std::span<const PrimitiveRow> family : hostFamilies())
        for (const PrimitiveRow& row : family) {
            std::string name = row.name;
            ASSERT_NE(name.find('.'), std::string::npos) << name;
            if (name.back() == '.')
                prefixes.insert(name);
        }
    for (const char* p :
         {"builtins.", "math.", "list.", "tuple.", "dict.", "str.", "argparse.", "jit.", "torch.", "tensor."})
        EXPECT_TRUE(prefixes.count(p)) << p;
}

} // namespace
} // namespace tb::elab
