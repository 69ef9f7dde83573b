import type { Metadata } from "next";
import { NotFoundView } from "@/ui/shell/not-found-view";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return <NotFoundView />;
}
