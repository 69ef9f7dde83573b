/** The Errata wordmark: a small mark and the name. */
export function Wordmark({ size = "md" }: { size?: "sm" | "md" }) {
  const px = size === "sm" ? 16 : 20;
  return (
    <span className="inline-flex items-center gap-2 font-semibold tracking-tight text-fg">
      <svg width={px} height={px} viewBox="0 0 20 20" aria-hidden="true">
        <rect x="1" y="1" width="18" height="18" rx="5" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <path d="M5.5 6.5h9M5.5 10h9M5.5 13.5h4.5" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
        <circle cx="13.5" cy="13.5" r="1.7" fill="var(--level-error)" />
      </svg>
      <span className={size === "sm" ? "text-[14px]" : "text-[16px]"}>Errata</span>
    </span>
  );
}
