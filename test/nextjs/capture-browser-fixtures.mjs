/**
 * Re-records the browser payloads in test/nextjs/fixtures/ (run by hand: `node test/nextjs/capture-browser-fixtures.mjs`).
 * The official @sentry/browser and React's production build run in Chromium and send to a local
 * sink; each event envelope is written as it arrived. Nothing here is hand-written: the messages
 * are what Chromium, React and the SDK produce.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import * as esbuild from "esbuild";
import { chromium } from "playwright-core";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OUT = path.join(import.meta.dirname, "fixtures");
const KEY = "0123456789abcdef0123456789abcdef";

const scenarios = {
  // React 19 reports a hydration mismatch through reportError → Sentry's global handler.
  "react-418-hydration": `
    const root = document.getElementById("root");
    root.innerHTML = "<p>server text</p>";
    hydrateRoot(root, React.createElement("p", null, "client text"));`,
  // An object rendered as a child: a minified error with an argument.
  "react-31-object-child": `
    createRoot(document.getElementById("root")).render(React.createElement("div", null, { a: 1 }));`,
  // A dynamic import of a chunk that is gone after a deploy.
  "chunk-dynamic-import": `
    import(/* @vite-ignore */ location.origin + "/_next/static/chunks/app/page-0a1b2c3d.js");`,
  // webpack's runtime error for a missing chunk (the same code webpack emits; here run directly).
  "chunk-webpack": `
    const s = document.createElement("script");
    s.src = location.origin + "/_next/static/chunks/418.7f3a9c.js";
    s.onerror = (event) => {
      const error = new Error();
      error.message = "Loading chunk 418 failed.\\n(" + event.type + ": " + s.src + ")";
      error.name = "ChunkLoadError";
      error.type = event.type;
      error.request = s.src;
      Promise.reject(error);
    };
    document.head.appendChild(s);`,
};

const bodies = [];
const sink = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") body = zlib.gunzipSync(body);
    if (req.method === "POST" && body.includes('{"type":"event"')) bodies.push(body.toString("utf8"));
    res.writeHead(200, { "access-control-allow-origin": "*", "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise((r) => sink.listen(0, "127.0.0.1", r));
const sinkPort = sink.address().port;

const pages = http.createServer(async (req, res) => {
  const name = decodeURIComponent((req.url ?? "/").slice(1).split("?")[0]);
  const body = scenarios[name];
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  const built = await esbuild.build({
    stdin: {
      contents: `
        import * as Sentry from "@sentry/browser";
        import * as React from "react";
        import { createRoot, hydrateRoot } from "react-dom/client";
        Sentry.init({ dsn: "http://${KEY}@127.0.0.1:${sinkPort}/1", release: "web@2.0.0", defaultIntegrations: false,
          integrations: [Sentry.globalHandlersIntegration(), Sentry.linkedErrorsIntegration(), Sentry.httpContextIntegration()] });
        ${body}`,
      resolveDir: ROOT,
    },
    bundle: true,
    write: false,
    format: "esm",
    define: { "process.env.NODE_ENV": '"production"' },
    minify: false,
  });
  res.writeHead(200, { "content-type": "text/html" });
  res.end(
    `<!doctype html><div id="root"></div><script type="module">${built.outputFiles[0].text.replaceAll("</script", "<\\/script")}</script>`,
  );
});
await new Promise((r) => pages.listen(0, "127.0.0.1", r));
const pageBase = `http://127.0.0.1:${pages.address().port}`;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
fs.mkdirSync(OUT, { recursive: true });
for (const name of Object.keys(scenarios)) {
  bodies.length = 0;
  const page = await browser.newPage();
  await page.goto(`${pageBase}/${name}`);
  const until = Date.now() + 10_000;
  while (bodies.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
  await page.close();
  if (bodies.length === 0) throw new Error(`${name}: no event arrived`);
  fs.writeFileSync(path.join(OUT, `browser-${name}.envelope`), bodies[0]);
  console.log(`${name}: ${bodies.length} event(s); first written`);
}
await browser.close();
pages.close();
sink.close();
