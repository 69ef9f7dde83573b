import Link from "next/link";

export function NotFoundView() {
  return (
    <main className="flex flex-col items-center px-4 pt-[14vh]">
      <div className="w-full max-w-[460px]">
        <p className="font-mono text-[12px] text-fg-dim">404</p>
        <h1 className="mt-1 text-lg font-semibold">Not found</h1>
        <p className="mt-1 text-fg-muted">This page does not exist, or you do not have access to it.</p>
        <div className="mt-6">
          <Link href="/" className="btn">
            Go to the start page
          </Link>
        </div>
      </div>
    </main>
  );
}
