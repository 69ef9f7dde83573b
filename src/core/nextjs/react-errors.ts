/**
 * Decodes React's production error messages. Production builds replace each invariant with
 *   `Minified React error #418; visit https://react.dev/errors/418?args[]=text&args[]= for the full message …`
 * (React ≥ 19; before: `https://reactjs.org/docs/error-decoder.html?invariant=418&args[]=…`).
 * The text lives in React's error-code table, shipped here as data (`react-error-codes.json`,
 * MIT, see `REACT-LICENSE`), so the stream can show the real message and group by code.
 */
import codes from "./react-error-codes.json";

const TABLE = codes as Readonly<Record<string, string>>;

export interface ReactErrorInfo {
  code: number;
  /** the decoded message with its arguments interpolated; null when the code is not in our table */
  message: string | null;
  args: string[];
  /** the decoder page the message pointed at */
  url: string;
}

// `#418; visit <url> for the full message` — the url ends at whitespace.
const MINIFIED = /Minified React error #(\d{1,4}); visit (https?:\/\/\S+?)(?=\s|$)/;

/** The decoded React error in a message, or null when the message is not a minified React error. */
export function decodeReactError(message: string | undefined | null): ReactErrorInfo | null {
  if (!message) return null;
  const m = MINIFIED.exec(message);
  if (!m) return null;
  const code = Number(m[1]);
  const url = m[2] as string;
  const args = queryArgs(url);
  const template = TABLE[String(code)];
  return { code, message: template === undefined ? null : interpolate(template, args), args, url };
}

/** The React table's template for a code (for display next to a decoded message). */
export function reactErrorTemplate(code: number): string | undefined {
  return TABLE[String(code)];
}

/** `args[]=a&args[]=b` (also percent-encoded brackets) in order; undecodable values are kept raw. */
function queryArgs(url: string): string[] {
  const q = url.indexOf("?");
  if (q === -1) return [];
  const args: string[] = [];
  for (const part of url.slice(q + 1).split("&")) {
    const eq = part.indexOf("=");
    const name = eq === -1 ? part : part.slice(0, eq);
    if (name !== "args[]" && name.toLowerCase() !== "args%5b%5d") continue;
    args.push(decode(eq === -1 ? "" : part.slice(eq + 1)));
  }
  return args;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

/** React's decoder: each `%s` takes the next argument; missing arguments become empty. */
function interpolate(template: string, args: string[]): string {
  let i = 0;
  return template.replace(/%s/g, () => args[i++] ?? "");
}
