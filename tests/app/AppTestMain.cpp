// One QApplication for the whole test binary (Qt allows only one per process), created in a GoogleTest
// global environment. QStandardPaths test mode keeps settings and recovery files out of the user's home.
#include <QApplication>
#include <QStandardPaths>
#include <gtest/gtest.h>

namespace {

class QtEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        static int argc = 1;
        static char name[] = "tests_app";
        static char* argv[] = {name, nullptr};
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName("TileBenchTests");
        QApplication::setApplicationName("tests_app");
        m_app = new QApplication(argc, argv);
    }
    void TearDown() override {
        delete m_app;
        m_app = nullptr;
    }

private:
    QApplication* m_app = nullptr;
};

} // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new QtEnvironment);
    return RUN_ALL_TESTS();
}
