// ImGuiCanvas: a QOpenGLWidget that hosts one Dear ImGui context and redraws a view function every frame.
// The one small adapter between Qt and ImGui (style.md §14): it forwards mouse and wheel events from Qt
// into its own ImGuiIO, renders with the stock imgui_impl_opengl3 backend into the widget's framebuffer,
// and reports whether ImGui wanted the mouse. Each canvas owns its context, so docks can float, re-dock
// (initializeGL runs again: the renderer is re-created) and be destroyed independently.
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QOpenGLWidget>
#include <deque>
#include <functional>

struct ImGuiContext;

namespace tb::views {

class ImGuiCanvas : public QOpenGLWidget {
    Q_OBJECT
public:
    // Called between ImGui::Begin and End of one full-canvas window, every frame.
    using DrawFunction = std::function<void()>;

    explicit ImGuiCanvas(QWidget* parent = nullptr);
    ~ImGuiCanvas() override;

    void setDrawFunction(DrawFunction draw);
    void setDarkTheme(bool dark);
    // Renders a few frames (ImGui settles sizes over two) and returns the framebuffer.
    QImage renderImage();
    bool savePng(const QString& path);
    int framesDrawn() const { return m_frames; }
    bool wantedMouse() const { return m_wantedMouse; }

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void makeContextCurrentForImGui();
    void shutdownRenderer();
    void requestFrames(int count);
    // ImGui 1.86 reads the mouse as a state per frame, so a press and release between two frames (a quick
    // click) would never be seen. Qt's events queue here; each frame applies them up to one button change.
    struct QueuedInput {
        enum class Kind { Move, Button, Wheel, Leave } kind = Kind::Move;
        float x = 0, y = 0;
        int button = -1;
        bool down = false;
        float wheelX = 0, wheelY = 0;
        bool ctrl = false;
    };
    void queueInput(const QueuedInput& input);
    void queueButton(QMouseEvent* event, bool down); // a press or release of a button ImGui knows
    void applyQueuedInput();
    std::deque<QueuedInput> m_input;

    ImGuiContext* m_context = nullptr;
    bool m_rendererReady = false;
    bool m_dark = true;
    bool m_wantedMouse = false;
    int m_frames = 0;
    int m_pendingFrames = 0;
    QElapsedTimer m_clock;
    DrawFunction m_draw;
};

} // namespace tb::views
