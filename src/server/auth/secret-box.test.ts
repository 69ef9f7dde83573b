import { expect, test } from "vitest";
import { createSecretBox } from "./secret-box";

test("a sealed secret opens with the same secret and purpose only, and tampering is refused", () => {
  const box = createSecretBox("installation-secret", "sso-client");
  const sealed = box.seal("s3cr3t");
  expect(sealed).not.toContain("s3cr3t");
  expect(box.seal("s3cr3t")).not.toBe(sealed);
  expect(box.open(sealed)).toBe("s3cr3t");
  expect(createSecretBox("installation-secret", "sso-state").open(sealed)).toBeNull();
  expect(createSecretBox("other-secret", "sso-client").open(sealed)).toBeNull();
  const parts = sealed.split(".");
  const flipped = `${parts[0]}.${parts[1]}.${parts[2]}.${Buffer.from("x").toString("base64url")}${parts[3]}`;
  expect(box.open(flipped)).toBeNull();
  expect(box.open("garbage")).toBeNull();
});
