// The official OpenAI SDK's Responses and Embeddings APIs against switchyard-gateway on the demo
// workspace: responses.create / responses.stream on channels of every format (the demo serves
// deepseek/deepseek-v4-flash on OpenAI- and Anthropic-format channels), a function-call round trip
// continued with previous_response_id, embeddings.create (the SDK asks for base64 and decodes it),
// and errors as the SDK's exception types. Each answered request is charged once in the ledger.
// Run by CTest with SWITCHYARD_GATEWAY naming the switchyard-gateway binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { admin, simControl, startGateway } from "./gateway.mjs";

const MODEL = "deepseek/deepseek-v4-flash";
const EMBEDDING_MODEL = process.env.SWITCHYARD_EMBEDDING_MODEL ?? "text-embedding-3-small";
let started;

before(async () => {
  started = await startGateway();
  // The demo fails a share of anthropic-sim's requests on purpose; these tests want clean answers.
  await simControl(started.sim, "POST", "/_sim/rules", { provider: "anthropic-sim", output_tokens: 24 });
});

after(() => started?.child.kill("SIGTERM"));

const client = (apiKey = started.key) => new OpenAI({ baseURL: `${started.url}/v1`, apiKey, maxRetries: 0, timeout: 20000 });

async function chargesFor(requestId) {
  const { body } = await admin(started.url, started.admin, "GET", "/admin/ledger?after=0");
  return body.filter((e) => e.kind === "charge" && e.request_id === requestId);
}

for (const channel of ["deepseek-main", "anthropic-sim"]) {
  test(`responses.create through the ${channel} channel answers output_text and usage, charged once`, async () => {
    const { data, response } = await client()
      .responses.create({ model: MODEL, input: "Say hello", instructions: "Be brief.", provider: { only: [channel] } })
      .withResponse();
    assert.equal(data.object, "response");
    assert.equal(data.status, "completed");
    assert.equal(data.model, MODEL);
    assert.ok(data.id.startsWith("resp_"));
    assert.ok(data.output_text.length > 0);
    assert.equal(data.output[0].type, "message");
    assert.equal(data.output[0].content[0].type, "output_text");
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    const charges = await chargesFor(response.headers.get("x-request-id"));
    assert.equal(charges.length, 1);
    assert.equal(charges[0].channel, channel);
  });

  test(`responses.stream through the ${channel} channel yields text deltas and a completed response`, async () => {
    const stream = client().responses.stream({ model: MODEL, input: [{ role: "user", content: "Count to five" }], provider: { only: [channel] } });
    let text = "";
    const types = [];
    stream.on("response.output_text.delta", (event) => {
      text += event.delta;
    });
    stream.on("event", (event) => types.push(event.type));
    const final = await stream.finalResponse();
    assert.ok(text.length > 0);
    assert.equal(final.output_text, text);
    assert.equal(final.status, "completed");
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");
    for (const expected of ["response.in_progress", "response.output_item.added", "response.content_part.added",
      "response.output_text.done", "response.output_item.done"])
      assert.ok(types.includes(expected), `missing ${expected} in ${types.join(",")}`);
  });

  test(`a function-call round trip through the ${channel} channel continues with previous_response_id`, async () => {
    const tools = [{ type: "function", name: "get_weather", description: "Weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" } } } }];
    const first = await client().responses.create({ model: MODEL, input: "Weather in Paris?", tools, provider: { only: [channel] } });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call, JSON.stringify(first.output));
    assert.equal(call.name, "get_weather");
    assert.ok(call.call_id);
    const second = await client().responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "{\"temp_c\": 21}" }],
      tools,
      provider: { only: [channel] },
    });
    assert.ok(second.output_text.length > 0);
    assert.ok(!second.output.some((item) => item.type === "function_call"));
  });
}

test("previous_response_id the gateway never stored is a BadRequestError naming the field", async () => {
  await assert.rejects(
    client().responses.create({ model: MODEL, input: "Hi", previous_response_id: "resp_never" }),
    (err) => err instanceof OpenAI.BadRequestError && err.status === 400 && err.code === "previous_response_not_found"
      && err.param === "previous_response_id",
  );
});

test("a response stored with store:false cannot be continued", async () => {
  const first = await client().responses.create({ model: MODEL, input: "Hi", store: false });
  await assert.rejects(
    client().responses.create({ model: MODEL, input: "Again", previous_response_id: first.id }),
    (err) => err instanceof OpenAI.BadRequestError && err.code === "previous_response_not_found",
  );
});

test("an unknown input item type is a BadRequestError naming the item", async () => {
  await assert.rejects(
    client().responses.create({ model: MODEL, input: [{ type: "no_such_item" }] }),
    (err) => err instanceof OpenAI.BadRequestError && /input\[0\]/.test(err.message),
  );
});

test("a wrong key on /v1/responses is an AuthenticationError", async () => {
  await assert.rejects(
    client("sk-test-wrong").responses.create({ model: MODEL, input: "Hi" }),
    (err) => err instanceof OpenAI.AuthenticationError && err.status === 401,
  );
});

test("embeddings.create answers one vector per input (base64 decoded by the SDK), charged once", async () => {
  const { data, response } = await client()
    .embeddings.create({ model: EMBEDDING_MODEL, input: ["first text", "second text"] })
    .withResponse();
  assert.equal(data.object, "list");
  assert.equal(data.data.length, 2);
  assert.deepEqual(data.data.map((d) => d.index), [0, 1]);
  assert.ok(data.data[0].embedding.length > 0);
  assert.ok(data.data[0].embedding.every((x) => Number.isFinite(x)));
  assert.ok(data.usage.prompt_tokens > 0);
  assert.equal(data.model, EMBEDDING_MODEL);
  assert.equal((await chargesFor(response.headers.get("x-request-id"))).length, 1);
});

test("embeddings.create with float encoding and dimensions", async () => {
  const data = await client().embeddings.create({ model: EMBEDDING_MODEL, input: "one text", encoding_format: "float", dimensions: 8 });
  assert.equal(data.data.length, 1);
  assert.equal(data.data[0].embedding.length, 8);
});

test("embeddings of a chat-only model is a BadRequestError unsupported_model_api", async () => {
  await assert.rejects(
    client().embeddings.create({ model: MODEL, input: "text" }),
    (err) => err instanceof OpenAI.BadRequestError && err.code === "unsupported_model_api",
  );
});
