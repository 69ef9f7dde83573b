/**
 * Writes a backup archive (tar, gzip'd) file by file, streaming: no file is ever held whole in
 * memory, and each one's SHA-256 is computed as it passes. The archive is written to
 * `<out>.partial` and renamed into place by `finish`, so a crashed or failed backup never leaves
 * something that looks like a finished archive.
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { createGzip, type Gzip } from "node:zlib";
import type { ManifestFile } from "../../core/backup/manifest";
import { BLOCK, encodeHeader, paddingOf } from "../../core/backup/tar-header";

export interface ArchiveWriter {
  /** Streams a file on disk into the archive as `name`. */
  addFile(name: string, source: string): Promise<ManifestFile>;
  /** Adds a small in-memory entry (the manifest). */
  addBuffer(name: string, data: Buffer): Promise<void>;
  /** Ends the archive, fsyncs it and renames it into place; resolves to its size. */
  finish(): Promise<number>;
  /** Removes the partial archive (after a failure). */
  abort(): Promise<void>;
}

const CHUNK = 256 * 1024;

export async function createArchiveWriter(out: string): Promise<ArchiveWriter> {
  const partial = `${out}.partial`;
  await fs.promises.mkdir(path.dirname(out), { recursive: true });
  const sink = fs.createWriteStream(partial, { mode: 0o600 });
  const gzip: Gzip = createGzip({ level: 6 });
  gzip.pipe(sink);
  let failed: Error | undefined;
  gzip.on("error", (e) => {
    failed = e;
  });
  sink.on("error", (e) => {
    failed = e;
  });

  async function write(chunk: Buffer): Promise<void> {
    if (failed) throw failed;
    if (!gzip.write(chunk)) await once(gzip, "drain");
  }

  async function addFile(name: string, source: string): Promise<ManifestFile> {
    const handle = await fs.promises.open(source, "r");
    try {
      // The size at open: the files we archive are snapshots or blobs, written whole before we read them.
      const { size, mtimeMs } = await handle.stat();
      await write(encodeHeader({ name, size, mtime: mtimeMs / 1000 }));
      const hash = createHash("sha256");
      let done = 0;
      while (done < size) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - done));
        const { bytesRead } = await handle.read(buf, 0, buf.length, done);
        if (bytesRead === 0) throw new Error(`${source} shrank while it was archived`);
        const part = buf.subarray(0, bytesRead);
        hash.update(part);
        await write(part);
        done += bytesRead;
      }
      const pad = paddingOf(size);
      if (pad) await write(Buffer.alloc(pad));
      return { path: name, size, sha256: hash.digest("hex") };
    } finally {
      await handle.close();
    }
  }

  async function addBuffer(name: string, data: Buffer): Promise<void> {
    await write(encodeHeader({ name, size: data.length, mtime: Date.now() / 1000 }));
    await write(data);
    const pad = paddingOf(data.length);
    if (pad) await write(Buffer.alloc(pad));
  }

  async function finish(): Promise<number> {
    await write(Buffer.alloc(2 * BLOCK));
    gzip.end();
    await once(sink, "finish");
    if (failed) throw failed;
    const fd = await fs.promises.open(partial, "r");
    try {
      await fd.sync();
    } finally {
      await fd.close();
    }
    await fs.promises.rename(partial, out);
    return (await fs.promises.stat(out)).size;
  }

  async function abort(): Promise<void> {
    gzip.destroy();
    sink.destroy();
    await fs.promises.rm(partial, { force: true });
  }

  return { addFile, addBuffer, finish, abort };
}
