/**
 * The better-sqlite3 build this Node runs safely.
 *
 * better-sqlite3 12 wraps its objects in Node's raw `node::ObjectWrap`; on Node 24 that class
 * removes an environment cleanup hook in its destructor, and a statement collected while no
 * environment is current (a worker thread's teardown, some GCs) aborts the whole process with
 * `Assertion failed: (env) != nullptr`. Version 13 is rebuilt on Node-API 10 and has no such
 * destructor, but it needs Node-API 10 (Node ≥ 22.14): on older runtimes it segfaults on open.
 * So: 13 wherever Node-API 10 exists, 12 (the `better-sqlite3-napi9` alias) elsewhere. Both
 * have the same JavaScript API.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/** The package name to load on this runtime. */
export const SQLITE_PACKAGE = Number(process.versions.napi ?? 0) >= 10 ? "better-sqlite3" : "better-sqlite3-napi9";

/** Absolute path of the chosen package's entry, for worker threads that `require` it themselves. */
export function sqliteModulePath(): string {
  return require.resolve(SQLITE_PACKAGE);
}

const SQLite: typeof BetterSqlite3 = require(SQLITE_PACKAGE);

export default SQLite;
export type { BetterSqlite3 };
