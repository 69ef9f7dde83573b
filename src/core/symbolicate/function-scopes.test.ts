import { describe, expect, test } from "vitest";
import { enclosingScope, functionScopes } from "./function-scopes";

/** The enclosing function's name at the position of `marker` in `src`. */
function nameAt(src: string, marker: string): string | null | undefined {
  const offset = src.indexOf(marker);
  if (offset < 0) throw new Error(`marker ${marker} not found`);
  return enclosingScope(functionScopes(src), offset)?.name ?? null;
}

describe("functionScopes / enclosingScope", () => {
  test("declarations, expressions, arrows and methods", () => {
    const src = `
function thrower() { HERE1; }
const caller = function () { HERE2; };
const arrow = async (a, b) => { HERE3; };
obj.handler = (x) => { HERE4; };
const o = { method(a) { HERE5; }, prop: function () { HERE6; }, arrowProp: () => { HERE7; } };
class Cart { async total(items) { HERE8; } static of() { HERE9; } }
top(); HERE10;
setTimeout(() => { HERE11; }, 1);
`;
    expect(
      ["HERE1", "HERE2", "HERE3", "HERE4", "HERE5", "HERE6", "HERE7", "HERE8", "HERE9", "HERE10", "HERE11"].map((m) => nameAt(src, m)),
    ).toEqual(["thrower", "caller", "arrow", "handler", "method", "prop", "arrowProp", "total", "of", null, null]);
  });

  test("blocks are not functions; the innermost named function wins", () => {
    const src = `function outer(list) {
  if (list.length) { for (const x of list) { try { HERE1; } catch (e) { HERE2; } } }
  function inner() { while (true) { HERE3; } }
  return { a: 1, b: { c: HERE4 } };
}`;
    expect(["HERE1", "HERE2", "HERE3", "HERE4"].map((m) => nameAt(src, m))).toEqual(["outer", "outer", "inner", "outer"]);
  });

  test("TypeScript annotations, generics and JSX", () => {
    const src = `export async function load<T>(id: string): Promise<T | null> { HERE1; }
export const Button = ({ label }: { label: string }): JSX.Element => {
  const onClick = (e: MouseEvent): void => { HERE2; };
  return <button onClick={() => HERE3}>Don't {label}</button>;
};
class S { private handle(req: Req): void { HERE4; } }`;
    expect(["HERE1", "HERE2", "HERE3", "HERE4"].map((m) => nameAt(src, m))).toEqual(["load", "onClick", "Button", "handle"]);
  });

  test("strings, comments, templates and regexes do not confuse the braces", () => {
    const src = `function a() {
  const s = "}{"; const t = '}'; // } in a comment
  /* { */ const r = /[{}]+/g; const u = \`\${"}"} and \${ { x: 1 }.x } }\`;
  HERE1;
}
function b() { HERE2; }`;
    expect([nameAt(src, "HERE1"), nameAt(src, "HERE2")]).toEqual(["a", "b"]);
  });
});
