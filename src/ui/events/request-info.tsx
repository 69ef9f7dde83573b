import { CodeBlock } from "../kit/code-block";
import { curlCommand } from "./curl-command";
import { KvTable } from "./kv-table";
import type { RequestView } from "./model";

/** Method + URL (as text, never a link), a copyable curl command, query string, headers, cookies, body. */
export function RequestInfo({ request }: { request: RequestView }) {
  const curl = curlCommand(request);
  return (
    <div className="flex flex-col gap-3">
      <p className="font-mono text-[12.5px] break-all">
        {request.method ? <span className="mr-2 font-semibold">{request.method}</span> : null}
        {request.url ?? <span className="text-fg-dim">(no URL)</span>}
        {request.query ? <span className="text-fg-muted">?{request.query.replace(/^\?/, "")}</span> : null}
      </p>
      {curl ? <CodeBlock label="As curl" code={curl} copyLabel="Copy as curl" /> : null}
      {request.headers.length > 0 ? (
        <div>
          <h3 className="section-title mb-1">Headers</h3>
          <KvTable pairs={request.headers} label="Request headers" />
        </div>
      ) : null}
      {request.cookies.length > 0 ? (
        <div>
          <h3 className="section-title mb-1">Cookies</h3>
          <KvTable pairs={request.cookies} label="Request cookies" />
        </div>
      ) : null}
      {request.data ? (
        <div>
          <h3 className="section-title mb-1">Body</h3>
          <CodeBlock code={request.data} copyLabel="Copy request body" />
        </div>
      ) : null}
      {request.env.length > 0 ? (
        <div>
          <h3 className="section-title mb-1">Environment</h3>
          <KvTable pairs={request.env} label="Request environment" />
        </div>
      ) : null}
    </div>
  );
}
