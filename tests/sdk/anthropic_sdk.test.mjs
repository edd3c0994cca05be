// The official Anthropic SDK against switchyard-gateway on the demo workspace, as a user's program
// would use it: plain and streamed messages, a tool round trip, token counting, and errors
// surfacing as the SDK's own exception types. `provider.only` pins a request to the demo's
// Anthropic-format channel (anthropic-sim) or to an OpenAI-format one (deepseek), so both
// translations are exercised. Run by CTest: node --test anthropic_sdk.test.mjs, with
// SWITCHYARD_GATEWAY naming the switchyard-gateway binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { simControl as simCall, startGateway } from "./gateway.mjs";

const MODEL = "deepseek/deepseek-v4-flash";
const ANTHROPIC_CHANNEL = { only: ["anthropic-sim"] };
const OPENAI_CHANNEL = { only: ["deepseek"] };
let gateway;
let gatewayURL;
let simURL;
let adminToken;
let demoKey;
const RELIABLE_ANTHROPIC_SIM = { provider: "anthropic-sim", output_tokens: 24 };

before(async () => {
  const started = await startGateway();
  gateway = started.child;
  gatewayURL = started.url;
  simURL = started.sim;
  adminToken = started.admin;
  demoKey = started.key;
  // The demo fails 5 % of anthropic-sim's requests on purpose; these tests script failures themselves.
  await simControl("POST", "/_sim/rules", RELIABLE_ANTHROPIC_SIM);
});

after(() => gateway?.kill("SIGTERM"));

// The SDK appends /v1/messages to baseURL itself.
const client = (apiKey = demoKey) => new Anthropic({ baseURL: gatewayURL, apiKey, maxRetries: 0, timeout: 20000 });

const hello = (extra = {}) => ({
  model: MODEL,
  max_tokens: 64,
  messages: [{ role: "user", content: "Say hello" }],
  ...extra,
});

const simControl = (method, path, body) => simCall(simURL, method, path, body);

for (const [name, provider, channel] of [
  ["anthropic", ANTHROPIC_CHANNEL, "anthropic-sim"],
  ["openai", OPENAI_CHANNEL, "deepseek-main"],
]) {
  test(`messages.create on the ${name}-format channel returns a message with text and usage`, async () => {
    const { data, response } = await client().messages.create(hello({ provider })).withResponse();
    assert.equal(data.type, "message");
    assert.equal(data.role, "assistant");
    assert.equal(data.model, MODEL);
    assert.equal(data.stop_reason, "end_turn");
    assert.equal(data.content[0].type, "text");
    assert.ok(data.content[0].text.length > 0);
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    assert.ok(response.headers.get("x-request-id").startsWith("req_"));
    assert.ok([channel, provider.only[0]].includes(response.headers.get("x-tsarrouter-provider")));
  });

  test(`messages.stream on the ${name}-format channel yields text events and a final message`, async () => {
    const stream = client().messages.stream(hello({ provider }));
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const message = await stream.finalMessage();
    assert.ok(text.length > 0);
    assert.equal(message.content[0].type, "text");
    assert.equal(message.content[0].text, text);
    assert.equal(message.model, MODEL);
    assert.equal(message.stop_reason, "end_turn");
    assert.ok(message.usage.output_tokens > 0);
  });

  test(`a tool round trip on the ${name}-format channel: tool_use, then text after the tool_result`, async () => {
    const tools = [
      {
        name: "get_weather",
        description: "Weather in a city",
        input_schema: { type: "object", properties: { city: { type: "string" } } },
      },
    ];
    const question = { role: "user", content: "Weather in Oslo?" };
    const first = await client().messages.create(hello({ provider, tools, messages: [question] }));
    assert.equal(first.stop_reason, "tool_use");
    const call = first.content.find((block) => block.type === "tool_use");
    assert.ok(call, JSON.stringify(first.content));
    assert.equal(call.name, "get_weather");
    assert.ok(call.id.length > 0);

    const second = await client().messages.create(hello({
      provider,
      tools,
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny, 21 C" }] },
      ],
    }));
    assert.equal(second.stop_reason, "end_turn");
    assert.equal(second.content[0].type, "text");
    assert.ok(second.content[0].text.length > 0);
  });
}

test("countTokens answers a positive input token count", async () => {
  const counted = await client().messages.countTokens({
    model: MODEL,
    system: "You are terse.",
    messages: [{ role: "user", content: "Count the tokens of this sentence, please." }],
  });
  assert.ok(Number.isInteger(counted.input_tokens) && counted.input_tokens > 0, JSON.stringify(counted));
});

test("a wrong key surfaces as AuthenticationError", async () => {
  await assert.rejects(
    client("sk-test-wrong").messages.create(hello()),
    (err) => err instanceof Anthropic.AuthenticationError && err.status === 401 && err.error?.error?.type === "authentication_error",
  );
});

test("a key over its rpm surfaces as RateLimitError with retry-after", async () => {
  const created = await fetch(`${gatewayURL}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "sdk-rpm-1", rpm: 1 }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { secret } = await created.json();
  await client(secret).messages.create(hello());
  await assert.rejects(
    client(secret).messages.create(hello()),
    (err) => err instanceof Anthropic.RateLimitError && err.status === 429 && err.error?.error?.type === "rate_limit_error"
      && Number(err.headers.get("retry-after")) > 0,
  );
});

test("an unknown route surfaces as NotFoundError", async () => {
  await assert.rejects(
    client().post("/v1/no-such-route", { body: hello() }),
    (err) => err instanceof Anthropic.NotFoundError && err.status === 404,
  );
});

test("an unknown model surfaces as BadRequestError (the gateway's 400, SPEC 3.1)", async () => {
  await assert.rejects(
    client().messages.create(hello({ model: "nope/nope" })),
    (err) => err instanceof Anthropic.BadRequestError && err.status === 400 && err.error?.error?.type === "invalid_request_error"
      && /does not exist/.test(err.message),
  );
});

test("missing max_tokens surfaces as BadRequestError naming the field", async () => {
  await assert.rejects(
    client().post("/v1/messages", { body: { model: MODEL, messages: [{ role: "user", content: "Hi" }] } }),
    (err) => err instanceof Anthropic.BadRequestError && /max_tokens/.test(err.message),
  );
});

test("an overloaded (529) only channel surfaces as InternalServerError 502 api_error after failover fails", async () => {
  await simControl("POST", "/_sim/rules", { provider: "anthropic-sim", failure: "status:529" });
  try {
    for (const call of [
      () => client().messages.create(hello({ provider: ANTHROPIC_CHANNEL })),
      () => client().messages.stream(hello({ provider: ANTHROPIC_CHANNEL })).finalMessage(),
    ]) {
      await assert.rejects(call(), (err) =>
        err instanceof Anthropic.InternalServerError && err instanceof Anthropic.APIError && err.status === 502
          && err.error?.type === "error" && err.error?.error?.type === "api_error"
          && /All providers failed/.test(err.message));
    }
  } finally {
    await simControl("POST", "/_sim/rules", RELIABLE_ANTHROPIC_SIM);
  }
});
