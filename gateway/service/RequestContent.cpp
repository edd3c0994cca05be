#include "service/RequestContent.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::service {

namespace {

// The text of choices[0].<member>.content, when it is a string.
QString firstChoiceText(const QByteArray &json, const char *member)
{
    const QJsonArray choices = QJsonDocument::fromJson(json).object().value("choices").toArray();
    if (choices.isEmpty())
        return {};
    return choices.at(0).toObject().value(QLatin1String(member)).toObject().value("content").toString();
}

} // namespace

QByteArray capUtf8(const QByteArray &text, qsizetype maxBytes, bool &truncated)
{
    if (text.size() <= maxBytes)
        return text;
    truncated = true;
    qsizetype end = maxBytes;
    // Step back over continuation bytes (10xxxxxx) so that no character is split.
    while (end > 0 && (uchar(text.at(end)) & 0xC0) == 0x80)
        --end;
    return text.left(end);
}

QJsonObject RequestContent::toJson() const
{
    return QJsonObject{{"request", QString::fromUtf8(request)},
                       {"request_truncated", requestTruncated},
                       {"response", QString::fromUtf8(response)},
                       {"response_truncated", responseTruncated}};
}

QByteArray RequestContent::toJsonBytes() const
{
    return QJsonDocument(toJson()).toJson(QJsonDocument::Compact);
}

std::optional<RequestContent> RequestContent::fromJsonBytes(const QByteArray &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject())
        return std::nullopt;
    const QJsonObject o = document.object();
    RequestContent content;
    content.request = o.value("request").toString().toUtf8();
    content.requestTruncated = o.value("request_truncated").toBool();
    content.response = o.value("response").toString().toUtf8();
    content.responseTruncated = o.value("response_truncated").toBool();
    return content;
}

void ContentCapture::setRequest(const QJsonValue &messages)
{
    QByteArray json;
    if (messages.isArray())
        json = QJsonDocument(messages.toArray()).toJson(QJsonDocument::Compact);
    else if (messages.isObject())
        json = QJsonDocument(messages.toObject()).toJson(QJsonDocument::Compact);
    m_content.requestTruncated = false;
    m_content.request = capUtf8(json, kMaxContentBytes, m_content.requestTruncated);
}

void ContentCapture::setPlainAnswer(const QByteArray &answerBody)
{
    resetAnswer();
    appendAnswer(firstChoiceText(answerBody, "message"));
}

void ContentCapture::setAnswerText(const QString &text)
{
    resetAnswer();
    appendAnswer(text);
}

void ContentCapture::addStreamChunk(const QByteArray &chunkData)
{
    if (m_content.responseTruncated)
        return;  // full: parsing the rest would only be thrown away
    appendAnswer(firstChoiceText(chunkData, "delta"));
}

void ContentCapture::resetAnswer()
{
    m_content.response.clear();
    m_content.responseTruncated = false;
}

void ContentCapture::appendAnswer(const QString &text)
{
    if (text.isEmpty() || m_content.responseTruncated)
        return;
    const QByteArray bytes = text.toUtf8();
    m_content.response += capUtf8(bytes, kMaxContentBytes - m_content.response.size(), m_content.responseTruncated);
}

} // namespace sy::service
