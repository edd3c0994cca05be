#include "onboarding/ConnectGuide.h"

#include <QStringList>

namespace sy::onboarding {

namespace {

// Every template uses %URL% (the gateway, no trailing slash), %KEY% and %MODEL%.
struct Guide {
    ConnectClient client;
    const char *text;
};

const std::vector<Guide> &guides()
{
    static const std::vector<Guide> list{
        {{"claude-code", "Claude Code"},
         "# Claude Code speaks the Anthropic Messages API (/v1/messages).\n"
         "# Add to your shell profile, or to \"env\" in ~/.claude/settings.json:\n"
         "export ANTHROPIC_BASE_URL=\"%URL%\"\n"
         "export ANTHROPIC_AUTH_TOKEN=\"%KEY%\"\n"
         "export ANTHROPIC_MODEL=\"%MODEL%\"\n"
         "claude\n"},
        {{"codex", "Codex CLI"},
         "# Codex CLI speaks the OpenAI Responses API (/v1/responses).\n"
         "# ~/.codex/config.toml:\n"
         "model = \"%MODEL%\"\n"
         "model_provider = \"switchyard\"\n"
         "\n"
         "[model_providers.switchyard]\n"
         "name = \"Switchyard\"\n"
         "base_url = \"%URL%/v1\"\n"
         "env_key = \"SWITCHYARD_API_KEY\"\n"
         "wire_api = \"responses\"\n"
         "\n"
         "# Then, in your shell:\n"
         "export SWITCHYARD_API_KEY=\"%KEY%\"\n"
         "codex\n"},
        {{"gemini-cli", "Gemini CLI"},
         "# Gemini CLI speaks the Gemini API (/v1beta/models/...).\n"
         "export GOOGLE_GEMINI_BASE_URL=\"%URL%\"\n"
         "export GEMINI_API_KEY=\"%KEY%\"\n"
         "export GEMINI_MODEL=\"%MODEL%\"\n"
         "gemini\n"},
        {{"cursor", "Cursor"},
         "# Cursor: Settings → Models → API Keys → OpenAI API Key\n"
         "#   OpenAI API Key:           %KEY%\n"
         "#   Override OpenAI Base URL: %URL%/v1\n"
         "# Then add the model \"%MODEL%\" under Models and enable it.\n"
         "# Cursor sends these requests from its own servers: a gateway that listens on\n"
         "# loopback only must be reachable from the internet (for example through a tunnel)\n"
         "# before Cursor can use it.\n"},
        {{"continue", "Continue"},
         "# Continue: ~/.continue/config.yaml\n"
         "name: Switchyard\n"
         "version: 0.0.1\n"
         "schema: v1\n"
         "models:\n"
         "  - name: %MODEL% (Switchyard)\n"
         "    provider: openai\n"
         "    model: %MODEL%\n"
         "    apiBase: %URL%/v1\n"
         "    apiKey: %KEY%\n"
         "    roles: [chat, edit, apply]\n"},
        {{"aider", "Aider"},
         "# Aider talks to any OpenAI-compatible API.\n"
         "export OPENAI_API_BASE=\"%URL%/v1\"\n"
         "export OPENAI_API_KEY=\"%KEY%\"\n"
         "aider --model \"openai/%MODEL%\"\n"},
        {{"openai-sdk", "OpenAI SDK"},
         "# Python (pip install openai); the Node SDK takes the same baseURL and apiKey.\n"
         "from openai import OpenAI\n"
         "\n"
         "client = OpenAI(base_url=\"%URL%/v1\", api_key=\"%KEY%\")\n"
         "reply = client.chat.completions.create(\n"
         "    model=\"%MODEL%\",\n"
         "    messages=[{\"role\": \"user\", \"content\": \"Hello\"}],\n"
         ")\n"
         "print(reply.choices[0].message.content)\n"},
        {{"anthropic-sdk", "Anthropic SDK"},
         "# Python (pip install anthropic); the SDK adds /v1/messages to base_url.\n"
         "from anthropic import Anthropic\n"
         "\n"
         "client = Anthropic(base_url=\"%URL%\", api_key=\"%KEY%\")\n"
         "reply = client.messages.create(\n"
         "    model=\"%MODEL%\",\n"
         "    max_tokens=256,\n"
         "    messages=[{\"role\": \"user\", \"content\": \"Hello\"}],\n"
         ")\n"
         "print(reply.content[0].text)\n"},
        {{"gemini-sdk", "Gemini SDK"},
         "# Python (pip install google-genai); the SDK adds /v1beta/models/... to base_url.\n"
         "from google import genai\n"
         "from google.genai import types\n"
         "\n"
         "client = genai.Client(api_key=\"%KEY%\",\n"
         "                      http_options=types.HttpOptions(base_url=\"%URL%\"))\n"
         "reply = client.models.generate_content(model=\"%MODEL%\", contents=\"Hello\")\n"
         "print(reply.text)\n"},
        {{"curl", "curl"},
         "curl %URL%/v1/chat/completions \\\n"
         "  -H \"Authorization: Bearer %KEY%\" \\\n"
         "  -H \"Content-Type: application/json\" \\\n"
         "  -d '{\"model\": \"%MODEL%\", \"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}'\n"
         "\n"
         "# Embeddings, the model list:\n"
         "curl %URL%/v1/embeddings -H \"Authorization: Bearer %KEY%\" \\\n"
         "  -H \"Content-Type: application/json\" -d '{\"model\": \"<embedding model>\", \"input\": \"Hello\"}'\n"
         "curl %URL%/v1/models -H \"Authorization: Bearer %KEY%\"\n"},
    };
    return list;
}

} // namespace

const std::vector<ConnectClient> &connectClients()
{
    static const std::vector<ConnectClient> clients = [] {
        std::vector<ConnectClient> out;
        for (const Guide &guide : guides())
            out.push_back(guide.client);
        return out;
    }();
    return clients;
}

namespace {

// No model chosen: an `export X="%MODEL%"` line is left out rather than printed with a
// placeholder that fails once pasted; the client then asks for its own default model.
QString withoutModelExports(const QString &text)
{
    QStringList kept;
    bool dropped = false;
    for (const QString &line : text.split(u'\n')) {
        if (line.startsWith(QLatin1String("export ")) && line.contains(QLatin1String("%MODEL%")))
            dropped = true;
        else
            kept << line;
    }
    if (dropped)
        kept.insert(1, QStringLiteral("# No model chosen: the client asks for its own default model, which must be a model\n"
                                      "# or virtual model of this gateway (GET /v1/models lists them)."));
    return kept.join(u'\n');
}

} // namespace

std::optional<ConnectText> connectText(const QString &clientId, const ConnectRequest &request)
{
    for (const Guide &guide : guides()) {
        if (guide.client.id != clientId)
            continue;
        QString url = request.gatewayUrl;
        while (url.endsWith(u'/'))
            url.chop(1);
        QString text = QString::fromUtf8(guide.text);
        text.replace(QLatin1String("%URL%"), url);
        text.replace(QLatin1String("%KEY%"), request.secret.isEmpty() ? QString::fromLatin1(kKeyPlaceholder) : request.secret);
        if (request.model.isEmpty())
            text = withoutModelExports(text);
        text.replace(QLatin1String("%MODEL%"), request.model.isEmpty() ? QStringLiteral("<model id>") : request.model);
        return ConnectText{guide.client.id, guide.client.title, true, text};
    }
    return std::nullopt;
}

} // namespace sy::onboarding
