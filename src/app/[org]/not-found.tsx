import { NotFoundView } from "@/ui/shell/not-found-view";

export default function OrgNotFound() {
  return <NotFoundView />;
}
