// Crash safety for unsaved edits: the editor text is written every few seconds to a recovery file under
// QStandardPaths::AppDataLocation (with the path of the file it belongs to), removed on save or clean exit,
// and offered back on the next start.
#pragma once

#include <QString>

namespace tb::app {

class Recovery {
public:
    // `directory` empty: AppDataLocation/recovery.
    explicit Recovery(QString directory = {});

    bool save(const QString& text, const QString& originPath) const;
    void clear() const;
    bool exists() const;
    // Fills text and originPath; false when there is nothing to recover.
    bool load(QString& text, QString& originPath) const;
    QString textPath() const;

private:
    QString m_directory;
};

} // namespace tb::app
