/**
 * Sentry's REST API (`/api/0/`) answers JSON, gzipped in one piece when the client accepts it.
 *
 * Why not the `compression` middleware the pages use: it deflates through a zlib stream on the
 * thread pool, and Next.js flushes that stream after every chunk it writes. Measured on the
 * 100 KB issue list, that added 1–1.5 ms to an answer of ~5.5 ms, most of what Sentry's `stats`
 * cost (issue 28's budget for them is 10 %), where one synchronous level-1 gzip of the whole body
 * takes ~0.2 ms. Level 1 is nginx's default, what Sentry's own proxy sends.
 *
 * So the body is held until the handler ends it (Next writes headers lazily, at the first chunk),
 * then sent gzipped with its length. A body that outgrows MAX_HELD_BYTES (a source file
 * download, not JSON) is let through as it comes, uncompressed; so is anything that is not JSON,
 * is small, or was already encoded.
 */
import type http from "node:http";
import { gzipSync } from "node:zlib";

const MIN_BYTES = 1024;
const MAX_HELD_BYTES = 1024 * 1024;

type Callback = (err?: Error | null) => void;
type Chunk = string | Uint8Array;

/** `Accept-Encoding` names gzip (or `*`) with a q-value above zero. */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((part) => {
    const [coding, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "*") return false;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function toBuffer(chunk: Chunk, encoding?: unknown): Buffer {
  return typeof chunk === "string"
    ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
    : Buffer.from(chunk);
}

function worthGzip(res: http.ServerResponse, size: number): boolean {
  if (res.headersSent || size < MIN_BYTES || res.statusCode === 204 || res.statusCode === 304) return false;
  if (res.getHeader("content-encoding")) return false;
  return String(res.getHeader("content-type") ?? "").startsWith("application/json");
}

/** Installs the holding on `res` for an `/api/0/` request; call before the handler writes. */
export function gzipApiJson(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.method === "HEAD" || !acceptsGzip(req.headers["accept-encoding"])) return;
  const write = res.write.bind(res) as (chunk: Chunk, cb?: Callback) => boolean;
  const end = res.end.bind(res) as (chunk?: Chunk, cb?: () => void) => http.ServerResponse;
  const flushHeaders = res.flushHeaders.bind(res);
  let held: Buffer[] | null = [];
  let size = 0;

  // Back to the response's own methods: nothing is held from here on.
  const restore = () => {
    held = null;
    Object.assign(res, { write, end, flushHeaders });
  };

  res.flushHeaders = () => {
    // Headers wait for the body: content-encoding and content-length depend on it.
  };
  res.write = ((chunk: Chunk, encoding?: unknown, cb?: unknown): boolean => {
    const done = (typeof encoding === "function" ? encoding : cb) as Callback | undefined;
    if (!held) return write(chunk, done);
    const buf = toBuffer(chunk, encoding);
    held.push(buf);
    size += buf.length;
    if (size > MAX_HELD_BYTES) {
      const chunks = held;
      restore();
      for (const c of chunks) write(c);
    }
    if (done) process.nextTick(done);
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown): http.ServerResponse => {
    const done = [chunk, encoding, cb].find((a) => typeof a === "function") as (() => void) | undefined;
    const last = typeof chunk === "string" || chunk instanceof Uint8Array ? toBuffer(chunk, encoding) : null;
    if (!held) return last ? end(last, done) : end(undefined, done);
    if (last) {
      held.push(last);
      size += last.length;
    }
    if (!worthGzip(res, size)) {
      const body = Buffer.concat(held);
      restore();
      return end(body.length ? body : undefined, done);
    }
    const gz = gzipSync(Buffer.concat(held), { level: 1 });
    restore();
    res.setHeader("content-encoding", "gzip");
    res.setHeader("content-length", gz.length);
    const vary = res.getHeader("vary");
    res.setHeader("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
    return end(gz, done);
  }) as typeof res.end;
}
