import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { AppError, ERROR_CATALOGUE, renderErrorCatalogue } from "./errors";

test("docs/errors.md is generated from the catalogue (run `npm run docs:errors` after changing it)", () => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/errors.md"), "utf8");
  expect(doc).toBe(renderErrorCatalogue());
});

test("every code has a 4xx/5xx status and a message; AppError takes both from the table", () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    expect(entry.status, code).toBeGreaterThanOrEqual(400);
    expect(entry.message.length, code).toBeGreaterThan(5);
  }
  const e = new AppError("payload_too_large");
  expect(e.status).toBe(413);
  expect(e.message).toBe(ERROR_CATALOGUE.payload_too_large.message);
});
