/**
 * Reads a backup archive into a staging folder, streaming, measuring each file's size and SHA-256
 * as it is written. The checks against the manifest come after (core/backup/manifest.ts); the
 * staging folder is the only thing written, so a refused restore changes nothing in its target.
 * A gzip stream that ends early is a truncated archive; any other unreadable byte is corruption.
 */
import { createHash, type Hash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createGunzip } from "node:zlib";
import { MANIFEST_NAME } from "../../core/backup/manifest";
import { BLOCK, decodeHeader, paddingOf } from "../../core/backup/tar-header";
import { AppError } from "../../core/errors";

export interface ExtractedArchive {
  /** manifest.json's text; undefined when the archive has none (truncated) */
  manifest: string | undefined;
  /** every other file: its size and SHA-256 as read */
  seen: Map<string, { size: number; sha256: string }>;
}

/** A name that stays inside the staging folder. */
function safeName(name: string): string {
  const norm = path.posix.normalize(name);
  if (norm.startsWith("/") || norm.startsWith("..") || norm.includes("/../") || norm === ".")
    throw new AppError("backup_corrupt", `The archive names a file outside itself: ${name}. Nothing was restored.`);
  return norm;
}

interface Entry {
  name: string;
  size: number;
  left: number;
  pad: number;
  hash: Hash;
  out?: fs.WriteStream;
  buffer?: Buffer[];
}

export async function extractArchive(file: string, stageDir: string): Promise<ExtractedArchive> {
  const seen = new Map<string, { size: number; sha256: string }>();
  let manifest: string | undefined;
  let pending: Buffer = Buffer.alloc(0);
  let entry: Entry | undefined;
  let ended = false;

  async function closeEntry(e: Entry): Promise<void> {
    if (e.out) {
      const out = e.out;
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
    if (e.name === MANIFEST_NAME) manifest = Buffer.concat(e.buffer ?? []).toString("utf8");
    else seen.set(e.name, { size: e.size, sha256: e.hash.digest("hex") });
  }

  async function openEntry(name: string, size: number): Promise<Entry> {
    const e: Entry = { name, size, left: size, pad: paddingOf(size), hash: createHash("sha256") };
    if (name === MANIFEST_NAME) e.buffer = [];
    else {
      const target = path.join(stageDir, ...name.split("/"));
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      e.out = fs.createWriteStream(target, { mode: 0o600 });
      // Destroyed mid-write when the archive proves bad: the staging folder goes anyway.
      e.out.on("error", () => {});
    }
    return e;
  }

  async function writeData(e: Entry, data: Buffer): Promise<void> {
    e.hash.update(data);
    if (e.buffer) e.buffer.push(Buffer.from(data));
    else if (e.out && !e.out.write(data)) await new Promise<void>((r) => e.out?.once("drain", () => r()));
  }

  async function consume(): Promise<void> {
    for (;;) {
      if (ended) {
        pending = Buffer.alloc(0);
        return;
      }
      if (entry) {
        if (entry.left > 0) {
          if (pending.length === 0) return;
          const take = Math.min(entry.left, pending.length);
          await writeData(entry, pending.subarray(0, take));
          entry.left -= take;
          pending = pending.subarray(take);
          continue;
        }
        if (pending.length < entry.pad) return;
        pending = pending.subarray(entry.pad);
        await closeEntry(entry);
        entry = undefined;
        continue;
      }
      if (pending.length < BLOCK) return;
      let header: ReturnType<typeof decodeHeader>;
      try {
        header = decodeHeader(Buffer.from(pending.subarray(0, BLOCK)));
      } catch {
        throw new AppError("backup_corrupt", "The archive holds an unreadable tar header. Nothing was restored.");
      }
      pending = pending.subarray(BLOCK);
      if (header === null) {
        ended = true;
        continue;
      }
      if (header.type !== "0" && header.type !== "\0")
        throw new AppError("backup_corrupt", `The archive holds ${header.name}, which is not a regular file. Nothing was restored.`);
      entry = await openEntry(safeName(header.name), header.size);
    }
  }

  const gunzip = createGunzip();
  fs.createReadStream(file).pipe(gunzip);
  try {
    for await (const chunk of gunzip) {
      pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
      await consume();
    }
  } catch (err) {
    entry?.out?.destroy();
    if ((err as NodeJS.ErrnoException).code === "Z_BUF_ERROR" || /unexpected end/i.test((err as Error).message))
      throw new AppError("backup_truncated", "The backup archive ends early (truncated). Nothing was restored.");
    if ((err as NodeJS.ErrnoException).code?.startsWith("Z_"))
      throw new AppError("backup_corrupt", `The backup archive cannot be decompressed (${(err as Error).message}). Nothing was restored.`);
    throw err;
  }
  if (entry || !ended) {
    entry?.out?.destroy();
    throw new AppError("backup_truncated", "The backup archive ends in the middle of a file (truncated). Nothing was restored.");
  }
  return { manifest, seen };
}
