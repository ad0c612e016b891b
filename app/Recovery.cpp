// The recovery files: unsaved.py (the text) and unsaved.origin (the original path, may be empty).
#include "app/Recovery.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QStandardPaths>
#include <utility>

namespace tb::app {

Recovery::Recovery(QString directory) : m_directory(std::move(directory)) {
    if (m_directory.isEmpty())
        m_directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery";
}

QString Recovery::textPath() const {
    return m_directory + "/unsaved.py";
}

bool Recovery::save(const QString& text, const QString& originPath) const {
    QDir().mkpath(m_directory);
    // QSaveFile writes a temporary and renames it, so a crash mid-write never leaves half a file.
    QSaveFile file(textPath());
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(text.toUtf8());
    if (!file.commit())
        return false;
    QSaveFile origin(m_directory + "/unsaved.origin");
    if (!origin.open(QIODevice::WriteOnly))
        return false;
    origin.write(originPath.toUtf8());
    return origin.commit();
}

void Recovery::clear() const {
    QFile::remove(textPath());
    QFile::remove(m_directory + "/unsaved.origin");
}

bool Recovery::exists() const {
    return QFile::exists(textPath());
}

bool Recovery::load(QString& text, QString& originPath) const {
    QFile file(textPath());
    if (!file.open(QIODevice::ReadOnly))
        return false;
    text = QString::fromUtf8(file.readAll());
    QFile origin(m_directory + "/unsaved.origin");
    originPath = origin.open(QIODevice::ReadOnly) ? QString::fromUtf8(origin.readAll()) : QString();
    return true;
}

} // namespace tb::app
