// Shared by the SDK tests: starts switchyard-gateway on the demo workspace and talks to its
// simulator. SWITCHYARD_GATEWAY names the binary (set by CTest).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";

// Starts the gateway on a free port and reads its URL, admin token, simulator URL and demo key
// from stdout (bounded wait).
export function startGateway(binary = process.env.SWITCHYARD_GATEWAY) {
  assert.ok(binary, "SWITCHYARD_GATEWAY must name the switchyard-gateway binary");
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["--demo", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${out}`)), 20000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = out.match(/listening on (http:\/\/\S+)/);
      const admin = out.match(/admin token[^:]*: (\S+)/);
      const sim = out.match(/simulated providers at (http:\/\/\S+)/);
      const key = out.match(/demo key: (\S+)/);
      if (url && admin && sim && key) {
        clearTimeout(timer);
        resolve({ child, url: url[1], admin: admin[1], sim: sim[1], key: key[1] });
      }
    });
    child.on("exit", (code) => reject(new Error(`gateway exited with ${code}: ${out}`)));
  });
}

// A call to the simulator's control API (/_sim/...), e.g. rules that script failures.
export async function simControl(simURL, method, path, body) {
  const response = await fetch(`${simURL}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  return response.json();
}

// The gateway's admin API with its token.
export async function admin(gatewayURL, token, method, path, body) {
  const response = await fetch(`${gatewayURL}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
