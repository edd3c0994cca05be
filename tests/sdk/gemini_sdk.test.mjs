// The official Google Gen AI SDK (@google/genai) against switchyard-gateway on the demo workspace:
// generateContent, generateContentStream, a function-call round trip, the model list, and errors
// as the SDK's ApiError. The model id carries a '/' (deepseek/deepseek-v4-flash): the SDK puts it
// on the path as models/deepseek/deepseek-v4-flash:generateContent. Run by CTest with
// SWITCHYARD_GATEWAY naming the switchyard-gateway binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { GoogleGenAI, ApiError } from "@google/genai";
import { admin, simControl, startGateway } from "./gateway.mjs";

const MODEL = "deepseek/deepseek-v4-flash";
let started;

before(async () => {
  started = await startGateway();
  await simControl(started.sim, "POST", "/_sim/rules", { provider: "anthropic-sim", output_tokens: 24 });
});

after(() => started?.child.kill("SIGTERM"));

const client = (apiKey = started.key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: started.url, timeout: 20000 } });

test("generateContent answers text and usageMetadata, charged once", async () => {
  const response = await client().models.generateContent({ model: MODEL, contents: "Say hello",
    config: { systemInstruction: "Be brief.", temperature: 0.2, maxOutputTokens: 64 } });
  assert.ok(response.text.length > 0);
  assert.equal(response.candidates[0].content.role, "model");
  assert.ok(["STOP", "MAX_TOKENS"].includes(response.candidates[0].finishReason));
  assert.ok(response.usageMetadata.promptTokenCount > 0);
  assert.ok(response.usageMetadata.candidatesTokenCount > 0);
  const { body } = await admin(started.url, started.admin, "GET", "/admin/requests?limit=1");
  const logged = body[0];
  assert.equal(logged.status, 200);
  const ledger = await admin(started.url, started.admin, "GET", "/admin/ledger?after=0");
  assert.equal(ledger.body.filter((e) => e.kind === "charge" && e.request_id === logged.id).length, 1);
});

test("generateContentStream yields text chunks and a final usageMetadata", async () => {
  const stream = await client().models.generateContentStream({ model: MODEL, contents: [{ role: "user", parts: [{ text: "Count to five" }] }] });
  let text = "";
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    text += chunk.text ?? "";
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
    if (chunk.candidates?.[0]?.finishReason) finish = chunk.candidates[0].finishReason;
  }
  assert.ok(text.length > 0);
  assert.ok(usage && usage.candidatesTokenCount > 0);
  assert.equal(finish, "STOP");
});

test("a function call round trip: functionCall, then text after the functionResponse", async () => {
  const tools = [{ functionDeclarations: [{ name: "get_weather", description: "Weather in a city",
    parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } }] }];
  const first = await client().models.generateContent({ model: MODEL, contents: "Weather in Paris?", config: { tools } });
  assert.ok(first.functionCalls?.length > 0, JSON.stringify(first.candidates));
  const call = first.functionCalls[0];
  assert.equal(call.name, "get_weather");
  const second = await client().models.generateContent({
    model: MODEL,
    contents: [
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [{ functionCall: call }] },
      { role: "user", parts: [{ functionResponse: { name: call.name, id: call.id, response: { temp_c: 21 } } }] },
    ],
    config: { tools },
  });
  assert.ok(second.text.length > 0);
  assert.ok(!second.functionCalls?.length);
});

test("models.list lists the demo's models as models/<id>", async () => {
  const names = [];
  for await (const model of await client().models.list())
    names.push(model.name);
  assert.ok(names.includes(`models/${MODEL}`), names.join(","));
});

test("countTokens answers an estimate", async () => {
  const counted = await client().models.countTokens({ model: MODEL, contents: "Some words to count here" });
  assert.ok(counted.totalTokens > 0);
});

test("a wrong key is an ApiError 401 UNAUTHENTICATED", async () => {
  await assert.rejects(
    client("sk-test-wrong").models.generateContent({ model: MODEL, contents: "Hi" }),
    (err) => err instanceof ApiError && err.status === 401 && /UNAUTHENTICATED/.test(err.message),
  );
});

test("an unknown model is an ApiError 400 INVALID_ARGUMENT naming it", async () => {
  await assert.rejects(
    client().models.generateContent({ model: "nope/nope", contents: "Hi" }),
    (err) => err instanceof ApiError && err.status === 400 && /nope\/nope/.test(err.message),
  );
});

test("malformed contents is an ApiError 400 naming the field", async () => {
  await assert.rejects(
    client().models.generateContent({ model: MODEL, contents: [{ role: "user", parts: [{ noSuchPart: 1 }] }] }),
    (err) => err instanceof ApiError && err.status === 400 && /contents\[0\]/.test(err.message),
  );
});
