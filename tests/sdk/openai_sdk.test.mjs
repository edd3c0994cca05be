// The official OpenAI SDK against switchyard-gateway on the demo workspace, as a user's program
// would use it: plain and streaming completions, model listing, and errors surfacing as the SDK's
// own exception types. Run by CTest: node --test openai_sdk.test.mjs <path to switchyard-gateway>
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startGateway } from "./gateway.mjs";

let gateway;
let baseURL;
let demoKey;

before(async () => {
  const started = await startGateway();
  gateway = started.child;
  baseURL = `${started.url}/v1`;
  demoKey = started.key;
});

after(() => gateway?.kill("SIGTERM"));

const client = () => new OpenAI({ baseURL, apiKey: demoKey, maxRetries: 0, timeout: 20000 });

test("plain chat completion returns the public model id, content and usage", async () => {
  const { data, response } = await client().chat.completions
    .create({ model: "deepseek/deepseek-v4-flash", messages: [{ role: "user", content: "Say hello" }] })
    .withResponse();
  assert.equal(data.model, "deepseek/deepseek-v4-flash");
  assert.ok(data.choices[0].message.content.length > 0);
  assert.ok(data.usage.completion_tokens > 0);
  assert.ok(response.headers.get("x-request-id").startsWith("req_"));
  assert.ok(["deepseek", "cloudru", "anthropic-sim"].includes(response.headers.get("x-tsarrouter-provider")));
  const attempts = JSON.parse(response.headers.get("x-tsarrouter-attempts"));
  assert.equal(attempts.at(-1).status, "ok");
});

test("streaming completion yields deltas and usage when asked", async () => {
  const stream = await client().chat.completions.create({
    model: "Qwen/Qwen3.6-35B-A3B",
    messages: [{ role: "user", content: "Count to five" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let usage = null;
  for await (const chunk of stream) {
    if (chunk.choices.length > 0) text += chunk.choices[0].delta.content ?? "";
    if (chunk.usage) usage = chunk.usage;
    assert.equal(chunk.model, "Qwen/Qwen3.6-35B-A3B");
  }
  assert.ok(text.length > 0);
  assert.ok(usage && usage.completion_tokens > 0);
});

test("streaming without include_usage carries no usage chunk", async () => {
  const stream = await client().chat.completions.create({
    model: "deepseek/deepseek-v4-flash",
    messages: [{ role: "user", content: "Hi" }],
    stream: true,
  });
  for await (const chunk of stream) assert.equal(chunk.usage ?? null, null);
});

test("models list includes demo models with pricing and the deprecation date", async () => {
  const ids = [];
  let deprecated = null;
  for await (const model of client().models.list()) {
    ids.push(model.id);
    if (model.id === "yandex/yandexgpt-5-lite") deprecated = model.deprecated;
    if (model.id === "deepseek/deepseek-v4-flash") assert.ok(model.pricing.prompt > 0);
  }
  assert.ok(ids.includes("deepseek/deepseek-v4-flash"));
  assert.ok(ids.includes("team/coder"));
  assert.equal(deprecated, "2027-06-30");
});

test("unknown model surfaces as BadRequestError with the gateway's message", async () => {
  await assert.rejects(
    client().chat.completions.create({ model: "nope/nope", messages: [{ role: "user", content: "Hi" }] }),
    (err) => err instanceof OpenAI.BadRequestError && /does not exist/.test(err.message) && err.code === "model_not_found",
  );
});

test("wrong key surfaces as AuthenticationError", async () => {
  const bad = new OpenAI({ baseURL, apiKey: "sk-wrong", maxRetries: 0 });
  await assert.rejects(
    bad.chat.completions.create({ model: "deepseek/deepseek-v4-flash", messages: [{ role: "user", content: "Hi" }] }),
    (err) => err instanceof OpenAI.AuthenticationError && err.status === 401,
  );
});
