// A bundled sample opens as an untitled copy: it has no file path (Save asks where), the title says so, and
// saving writes the user's file while the lesson on disk stays as it was.
#include "AppTestSupport.h"
#include "engine/catalog/SampleCatalog.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>
#include <string>

namespace tb::app {

namespace {
struct SampleCopyFixture : test::WindowFixture {};
} // namespace

TEST_F(SampleCopyFixture, SamplesOpenAsUntitledCopies) {
    auto sample = findSample("gemm_relu");
    ASSERT_TRUE(sample);
    std::string lesson;
    ASSERT_TRUE(readTextFile(sample->path, lesson));

    ASSERT_TRUE(window->openSample("gemm_relu"));
    EXPECT_TRUE(window->filePath().isEmpty()); // Ctrl+S goes to the Save As dialog
    EXPECT_TRUE(window->windowTitle().contains("copy of the sample")) << window->windowTitle().toStdString();
    EXPECT_EQ(window->editor()->toPlainText(), QString::fromStdString(lesson));
    ASSERT_TRUE(window->compileNow());
    EXPECT_TRUE(window->compiler().current()->ok());

    window->editor()->setFocus();
    QTest::keyClicks(window->editor(), "# my change");
    QTemporaryDir dir;
    const QString mine = dir.path() + "/my_gemm.py";
    ASSERT_TRUE(window->saveTo(mine));
    EXPECT_EQ(window->filePath(), mine);
    EXPECT_FALSE(window->windowTitle().contains("copy of the sample"));
    std::string after;
    ASSERT_TRUE(readTextFile(sample->path, after));
    EXPECT_EQ(after, lesson);
    QFile saved(mine);
    ASSERT_TRUE(saved.open(QIODevice::ReadOnly));
    EXPECT_TRUE(saved.readAll().contains("# my change"));
}

} // namespace tb::app
