// Writes docs/errors.md from the error catalogue in src/core/errors.ts.
import fs from "node:fs";
import path from "node:path";
import { register } from "tsx/esm/api";
import { root } from "./ensure-build.mjs";

register();
const { renderErrorCatalogue } = await import(path.join(root, "src/core/errors.ts"));
fs.writeFileSync(path.join(root, "docs/errors.md"), renderErrorCatalogue());
console.log("docs/errors.md written");
