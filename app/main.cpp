// tilebench: the desktop workbench. `tilebench [FILE]`, `tilebench --sample NAME`,
// `tilebench --screenshot DIR` (render every dock to PNG and exit; run under Xvfb in CI),
// `tilebench --runner-info` (where this binary finds tilebench-runner and what the runner says; no display
// needed).
#include "app/MainWindow.h"
#include "engine/catalog/SampleCatalog.h"
#include "engine/gpu/RunnerClient.h"
#include "engine/gpu/RunnerLocation.h"
#include "engine/gpu/RunnerProtocol.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

// The runner the Run panel would use, from this executable's own location, and its hello: 0 when it
// started (with or without a GPU), 1 when it could not be started.
int printRunnerInfo() {
    tb::gpu::RunnerLocation location = tb::gpu::locateRunner();
    std::printf("%s\n", tb::gpu::describeRunnerLocation(location).c_str());
    tb::gpu::RunnerOptions options;
    options.executable = location.path;
    tb::gpu::RunnerClient client(options);
    std::string error;
    if (!client.start(&error)) {
        std::printf("runner: cannot start %s: %s\n", location.path.c_str(), error.c_str());
        return 1;
    }
    const tb::gpu::RunnerReply& hello = client.helloReply();
    if (hello.field("gpus", "0") == "0")
        std::printf("runner: started, no GPU: %s\n",
                    tb::gpu::unescapeProtocolValue(hello.field("reason", "no device")).c_str());
    else
        std::printf("runner: started, %s GPU(s), mode %s\n", hello.field("gpus").c_str(),
                    hello.field("mode").c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--runner-info") == 0)
            return printRunnerInfo();
    QApplication app(argc, argv);
    QApplication::setOrganizationName("TileBench");
    QApplication::setApplicationName("tilebench");
    QApplication::setApplicationVersion("0.1.0");
    QApplication::setStyle("Fusion");

    QCommandLineParser parser;
    parser.setApplicationDescription(
        "TileBench: edit a tile program and see its layouts, bank conflicts and warps live");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption sample("sample", "Open the bundled sample NAME (e.g. gemm_relu).", "NAME");
    QCommandLineOption screenshot("screenshot", "Render every panel to DIR/*.png and exit.", "DIR");
    QCommandLineOption light("light", "Start with the light theme.");
    parser.addOption(sample);
    parser.addOption(screenshot);
    parser.addOption(light);
    // Handled before the QApplication exists (above); listed so that --help shows it.
    parser.addOption(
        QCommandLineOption("runner-info", "Print where tilebench-runner is and what it reports."));
    parser.addPositionalArgument("file", "A tile program to open.");
    parser.process(app);

    tb::app::MainWindow window;
    if (parser.isSet(light))
        window.setDarkTheme(false);
    window.show();
    const bool requested = parser.isSet(sample) || !parser.positionalArguments().isEmpty();
    // The autosave of a session that did not end cleanly is offered first, also when a file is named on the
    // command line: opening that file then asks about the recovered edits instead of deleting them.
    const bool recovered = !parser.isSet(screenshot) && window.recoverUnsavedWork(/*ask=*/true);
    bool opened = false;
    if (parser.isSet(sample))
        opened = window.openSample(parser.value(sample));
    else if (!parser.positionalArguments().isEmpty())
        opened = window.openFile(parser.positionalArguments().first());
    if (requested && !opened && !recovered) {
        std::fprintf(
            stderr, "tilebench: cannot open %s\n",
            qPrintable(parser.isSet(sample) ? parser.value(sample) : parser.positionalArguments().first()));
        return 2;
    }

    if (parser.isSet(screenshot)) {
        if (!opened)
            window.openSample("gemm_relu");
        window.compileNow();
        bool ok = window.saveScreenshots(parser.value(screenshot));
        return ok ? 0 : 1;
    }
    if (!opened && !recovered)
        QTimer::singleShot(0, &window, [&window] { window.openSample("gemm_relu"); });
    return app.exec();
}
