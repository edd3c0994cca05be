#include "TextFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUrl>

#include <gtest/gtest.h>

using sy::app::TextFiles;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    ASSERT_EQ(file.write(bytes), bytes.size());
}

} // namespace

TEST(TextFilesTest, SavesUtf8AndLoadsItBack)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("config.yaml");
    const QString text = QStringLiteral("currency: ₽\nbalance: 25\n");
    TextFiles files;
    EXPECT_EQ(files.saveText(path, text), QString());
    EXPECT_EQ(readAll(path), text.toUtf8());
    const QVariantMap loaded = files.loadText(path);
    EXPECT_EQ(loaded.value("error").toString(), QString());
    EXPECT_EQ(loaded.value("text").toString(), text);
}

TEST(TextFilesTest, AcceptsFileUrls)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("with space.yaml");
    const QString url = QUrl::fromLocalFile(path).toString();
    TextFiles files;
    EXPECT_EQ(files.saveText(url, "a: 1\n"), QString());
    EXPECT_EQ(readAll(path), "a: 1\n");
    EXPECT_EQ(files.loadText(url).value("text").toString(), "a: 1\n");
}

TEST(TextFilesTest, SaveReplacesAnExistingFile)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("config.yaml");
    writeAll(path, "old: content that is longer than the new one\n");
    TextFiles files;
    EXPECT_EQ(files.saveText(path, "new: 1\n"), QString());
    EXPECT_EQ(readAll(path), "new: 1\n");
}

TEST(TextFilesTest, SaveIntoAMissingDirectoryNamesTheProblem)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("missing/config.yaml");
    const QString error = TextFiles().saveText(path, "a: 1\n");
    EXPECT_TRUE(error.contains(path)) << error.toStdString();
    EXPECT_FALSE(QFile::exists(path));
}

TEST(TextFilesTest, LoadingAMissingFileGivesAnErrorAndNoText)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QVariantMap loaded = TextFiles().loadText(dir.filePath("nothing.yaml"));
    EXPECT_TRUE(loaded.value("error").toString().contains("nothing.yaml"));
    EXPECT_EQ(loaded.value("text").toString(), QString());
}

TEST(TextFilesTest, RefusesNonUtf8AndOversizedFiles)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    TextFiles files;
    const QString latin1 = dir.filePath("latin1.yaml");
    writeAll(latin1, "note: caf\xe9\n");
    EXPECT_TRUE(files.loadText(latin1).value("error").toString().contains("UTF-8"));

    const QString big = dir.filePath("big.yaml");
    writeAll(big, QByteArray(TextFiles::kMaxBytes + 1, 'a'));
    EXPECT_TRUE(files.loadText(big).value("error").toString().contains("16 MiB"));
    EXPECT_EQ(files.loadText(big).value("text").toString(), QString());
}

TEST(TextFilesTest, RefusesNonFileUrls)
{
    TextFiles files;
    EXPECT_FALSE(files.saveText("https://example.com/config.yaml", "a: 1\n").isEmpty());
    EXPECT_FALSE(files.loadText("https://example.com/config.yaml").value("error").toString().isEmpty());
}

TEST(TextFilesTest, LocalPathOfPathsAndUrls)
{
    EXPECT_EQ(TextFiles::localPath("/tmp/a.yaml"), "/tmp/a.yaml");
    EXPECT_EQ(TextFiles::localPath("relative/a.yaml"), "relative/a.yaml");
    EXPECT_EQ(TextFiles::localPath("file:///tmp/a%20b.yaml"), "/tmp/a b.yaml");
    EXPECT_EQ(TextFiles::localPath("https://example.com/a.yaml"), QString());
}

TEST(TextFilesTest, SavedFilesAreReadableByTheOwnerOnly)
{
    // An export may carry provider credentials: other local users must not read it.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("export.yaml");
    {
        QFile existing(path);   // an existing, world-readable file is replaced by a private one
        ASSERT_TRUE(existing.open(QIODevice::WriteOnly));
        existing.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther);
    }
    TextFiles files;
    ASSERT_EQ(files.saveText(path, QStringLiteral("credentials: [sk-x]\n")), QString());
    const QFileDevice::Permissions p = QFileInfo(path).permissions();
    EXPECT_TRUE(p & QFileDevice::ReadOwner);
    EXPECT_FALSE(p & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther));
}
