/**
 * Blobs as files under DATA_DIR/blobs/ (SQLite installations). A put writes a temporary file in
 * the target's folder, fsyncs it, renames it over the key and fsyncs the folder: readers see the
 * old blob or the new one, and once put() resolved the blob survives kill -9 and power loss.
 * Temporary files a crash leaves behind start with ".tmp-" and are removed by `sweepTemp`.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { type BlobInfo, type BlobStore, BlobTooLargeError, checkKey, checkPrefix } from "./blob-types";

export const BLOB_DIR = "blobs";
const TMP = ".tmp-";

export function createFileBlobStore(
  dataDir: string,
): BlobStore & { root: string; sweepTemp(olderThanMs: number, now: number): Promise<number> } {
  const root = path.join(dataDir, BLOB_DIR);
  const fileOf = (key: string) => path.join(root, ...checkKey(key).split("/"));

  async function syncDir(dir: string): Promise<void> {
    const handle = await fs.promises.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async function put(key: string, data: Uint8Array): Promise<void> {
    const file = fileOf(key);
    const dir = path.dirname(file);
    await fs.promises.mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `${TMP}${randomBytes(6).toString("hex")}`);
    const handle = await fs.promises.open(tmp, "w", 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => {});
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    await handle.close();
    await fs.promises.rename(tmp, file);
    await syncDir(dir);
  }

  async function get(key: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
    const file = fileOf(key);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) throw new BlobTooLargeError(key, size);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async function stream(key: string): Promise<Readable | undefined> {
    const file = fileOf(key);
    try {
      const handle = await fs.promises.open(file, "r");
      return handle.createReadStream({ highWaterMark: 64 * 1024 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  async function remove(keys: readonly string[]): Promise<void> {
    for (const key of keys) await fs.promises.rm(fileOf(key), { force: true });
  }

  async function deletePrefix(prefix: string): Promise<number> {
    let n = 0;
    for await (const b of list(prefix)) {
      await fs.promises.rm(fileOf(b.key), { force: true });
      n += 1;
    }
    // A folder prefix goes with its (now empty) folders.
    if (prefix.endsWith("/")) await fs.promises.rm(path.join(root, ...checkPrefix(prefix).split("/")), { recursive: true, force: true });
    return n;
  }

  async function* list(prefix: string): AsyncIterable<BlobInfo> {
    checkPrefix(prefix);
    // Walk from the deepest folder the prefix names; filter the rest of it by name.
    const cut = prefix.lastIndexOf("/");
    const base = cut === -1 ? "" : prefix.slice(0, cut);
    yield* walk(base, prefix);
  }

  async function* walk(rel: string, prefix: string): AsyncIterable<BlobInfo> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(rel === "" ? root : path.join(root, ...rel.split("/")), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith(TMP)) continue;
      const key = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* walk(key, prefix);
      } else if (key.startsWith(prefix)) {
        const st = await fs.promises.stat(path.join(root, ...key.split("/"))).catch(() => undefined);
        if (st) yield { key, size: st.size, createdAt: st.mtimeMs };
      }
    }
  }

  /** Temporary files older than `olderThanMs` (left by a crash mid-put) are removed. */
  async function sweepTemp(olderThanMs: number, now: number): Promise<number> {
    let n = 0;
    async function visit(dir: string): Promise<void> {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) await visit(p);
        else if (e.name.startsWith(TMP)) {
          const st = await fs.promises.stat(p).catch(() => undefined);
          if (st && now - st.mtimeMs > olderThanMs) {
            await fs.promises.rm(p, { force: true });
            n += 1;
          }
        }
      }
    }
    await visit(root);
    return n;
  }

  return { kind: "files", root, put, get, stream, delete: remove, deletePrefix, list, sweepTemp };
}
