// Shared by the GUI tests: a shown MainWindow with its own recovery folder (so no test sees another's
// autosave), and a text lookup.
#pragma once

#include "app/MainWindow.h"

#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>
#include <memory>

namespace tb::app::test {

// The 1-based number of the first line of `text` that contains `needle`; 0 when none does.
inline int lineContaining(const QString& text, const QString& needle) {
    QStringList lines = text.split('\n');
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].contains(needle))
            return i + 1;
    return 0;
}

struct WindowFixture : ::testing::Test {
    QTemporaryDir recoveryDir;
    std::unique_ptr<MainWindow> window;
    void SetUp() override {
        window = std::make_unique<MainWindow>(Recovery(recoveryDir.path()));
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    }
};

} // namespace tb::app::test
