// The Qt -> ImGui adapter. ImGui 1.86 has no input queue of its own: Qt's mouse events queue here and reach
// ImGuiIO frame by frame, one button change per frame, so no click is lost between frames.
#include "views/canvas/ImGuiCanvas.h"

#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cfloat>
#include <utility>

namespace tb::views {

namespace {

int imguiButton(Qt::MouseButton button) {
    switch (button) {
    case Qt::LeftButton:
        return 0;
    case Qt::RightButton:
        return 1;
    case Qt::MiddleButton:
        return 2;
    default:
        return -1;
    }
}

// Restores the previously current ImGui context when a scope ends, so canvases never leak their
// context into each other.
class ContextScope {
public:
    explicit ContextScope(ImGuiContext* context) : m_previous(ImGui::GetCurrentContext()) {
        ImGui::SetCurrentContext(context);
    }
    ~ContextScope() { ImGui::SetCurrentContext(m_previous); }

private:
    ImGuiContext* m_previous;
};

} // namespace

ImGuiCanvas::ImGuiCanvas(QWidget* parent) : QOpenGLWidget(parent) {
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // the app saves its own layout with QSettings
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui::SetCurrentContext(previous);
    setMouseTracking(true);
    setMinimumSize(200, 150);
    m_clock.start();
}

ImGuiCanvas::~ImGuiCanvas() {
    if (m_rendererReady && context()) {
        makeCurrent();
        shutdownRenderer();
        doneCurrent();
    }
    ImGui::DestroyContext(m_context);
}

void ImGuiCanvas::setDrawFunction(DrawFunction draw) {
    m_draw = std::move(draw);
    requestFrames(2);
}

void ImGuiCanvas::setDarkTheme(bool dark) {
    m_dark = dark;
    ContextScope scope(m_context);
    if (dark)
        ImGui::StyleColorsDark();
    else
        ImGui::StyleColorsLight();
    requestFrames(2);
}

void ImGuiCanvas::shutdownRenderer() {
    if (!m_rendererReady)
        return;
    ContextScope scope(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    m_rendererReady = false;
}

void ImGuiCanvas::initializeGL() {
    // A second initializeGL (the dock floated or re-docked) comes with a new GL context: the old
    // renderer's objects died with the old context, so only the backend's bookkeeping is reset.
    if (m_rendererReady)
        shutdownRenderer();
    ContextScope scope(m_context);
    ImGui_ImplOpenGL3_Init("#version 130");
    m_rendererReady = true;
}

void ImGuiCanvas::paintGL() {
    if (!m_rendererReady)
        return;
    ContextScope scope(m_context);
    ImGuiIO& io = ImGui::GetIO();
    qreal ratio = devicePixelRatioF();
    io.DisplaySize = ImVec2(float(width()), float(height()));
    io.DisplayFramebufferScale = ImVec2(float(ratio), float(ratio));
    double seconds = double(m_clock.restart()) / 1000.0;
    io.DeltaTime = float(seconds > 0 ? std::min(seconds, 0.25) : 1.0 / 60.0);
    applyQueuedInput();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("##canvas", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    if (m_draw)
        m_draw();
    ImGui::End();
    ImGui::Render();
    m_wantedMouse = io.WantCaptureMouse;

    QOpenGLFunctions* gl = context()->functions();
    gl->glViewport(0, 0, int(width() * ratio), int(height() * ratio));
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    gl->glClearColor(bg.x, bg.y, bg.z, 1.0f);
    gl->glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++m_frames;
    if (m_pendingFrames > 0) {
        --m_pendingFrames;
        QTimer::singleShot(0, this, [this] { update(); });
    }
}

void ImGuiCanvas::requestFrames(int count) {
    m_pendingFrames = std::max(m_pendingFrames, count);
    update();
}

QImage ImGuiCanvas::renderImage() {
    QImage image;
    for (int i = 0; i < 3; ++i)
        image = grabFramebuffer();
    return image;
}

bool ImGuiCanvas::savePng(const QString& path) {
    return renderImage().save(path, "PNG");
}

void ImGuiCanvas::queueInput(const QueuedInput& input) {
    m_input.push_back(input);
    requestFrames(2);
}

void ImGuiCanvas::applyQueuedInput() {
    ImGuiIO& io = ImGui::GetIO();
    bool buttonChanged = false;
    while (!m_input.empty()) {
        const QueuedInput& e = m_input.front();
        if (e.kind == QueuedInput::Kind::Button && buttonChanged)
            break; // the next press or release gets a frame of its own
        switch (e.kind) {
        case QueuedInput::Kind::Move:
            io.MousePos = ImVec2(e.x, e.y);
            break;
        case QueuedInput::Kind::Button:
            io.MousePos = ImVec2(e.x, e.y);
            io.MouseDown[e.button] = e.down;
            buttonChanged = true;
            break;
        case QueuedInput::Kind::Wheel:
            io.MouseWheel += e.wheelY;
            io.MouseWheelH += e.wheelX;
            io.KeyCtrl = e.ctrl;
            break;
        case QueuedInput::Kind::Leave:
            io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            break;
        }
        m_input.pop_front();
    }
    if (!m_input.empty())
        requestFrames(1);
}

void ImGuiCanvas::mouseMoveEvent(QMouseEvent* event) {
    QueuedInput e;
    e.x = float(event->position().x());
    e.y = float(event->position().y());
    queueInput(e);
}

void ImGuiCanvas::queueButton(QMouseEvent* event, bool down) {
    if (int b = imguiButton(event->button()); b >= 0) {
        QueuedInput e;
        e.kind = QueuedInput::Kind::Button;
        e.x = float(event->position().x());
        e.y = float(event->position().y());
        e.button = b;
        e.down = down;
        queueInput(e);
    }
}

void ImGuiCanvas::mousePressEvent(QMouseEvent* event) {
    queueButton(event, true);
}

void ImGuiCanvas::mouseReleaseEvent(QMouseEvent* event) {
    queueButton(event, false);
}

void ImGuiCanvas::wheelEvent(QWheelEvent* event) {
    QueuedInput e;
    e.kind = QueuedInput::Kind::Wheel;
    e.wheelY = float(event->angleDelta().y()) / 120.0f;
    e.wheelX = float(event->angleDelta().x()) / 120.0f;
    e.ctrl = event->modifiers() & Qt::ControlModifier;
    queueInput(e);
}

void ImGuiCanvas::leaveEvent(QEvent*) {
    QueuedInput e;
    e.kind = QueuedInput::Kind::Leave;
    queueInput(e);
}

} // namespace tb::views
