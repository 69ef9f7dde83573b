/**
 * Rules for what users type (SPEC §5). Strict on purpose: every failure names the field and rule.
 */
import { z } from "zod";
import { AppError, type FieldError } from "./errors";

export const SLUG_RULE = /^[a-z0-9-]{1,50}$/;

// Passwords people pick when told "at least 12 characters"; the short classics fail the length rule.
const COMMON_PASSWORDS = new Set([
  "123456789012",
  "1234567890123",
  "12345678901234",
  "111111111111",
  "000000000000",
  "password1234",
  "password12345",
  "password123!",
  "passwordpassword",
  "qwertyuiop12",
  "qwerty123456",
  "qwertyuiopas",
  "1q2w3e4r5t6y",
  "1qaz2wsx3edc",
  "abcdefghijkl",
  "abc123456789",
  "iloveyou1234",
  "administrator",
  "letmein12345",
  "welcome12345",
  "changeme1234",
  "trustno11234",
  "monkey123456",
  "dragon123456",
  "football1234",
  "baseball1234",
  "superman1234",
  "sunshine1234",
  "princess1234",
  "aaaaaaaaaaaa",
]);

export const slugSchema = z.string().regex(SLUG_RULE, "use 1–50 lowercase letters, digits or dashes");
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email("enter a valid email address")).pipe(z.string().max(254));
export const passwordSchema = z
  .string()
  .min(12, "use at least 12 characters")
  .max(256, "use at most 256 characters")
  .refine((p) => !COMMON_PASSWORDS.has(p.toLowerCase()), "this password is too common");
export const nameSchema = z.string().trim().min(1, "required").max(100, "use at most 100 characters");

/** Parses with a zod schema, turning failures into `validation_failed` with per-field rules. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields: FieldError[] = result.error.issues.map((i) => ({
    field: i.path.join(".") || "input",
    rule: i.code,
    message: i.message,
  }));
  throw new AppError("validation_failed", fields.map((f) => `${f.field}: ${f.message}`).join("; "), { fields });
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 50) || "org"
  );
}
