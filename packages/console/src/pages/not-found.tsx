import { Link } from "react-router";
import { Empty, PageHead } from "../ui.tsx";

export function NotFoundPage() {
  return (
    <>
      <PageHead title="No such page" />
      <Empty>
        This page does not exist. <Link to="/">Go to your first page</Link>.
      </Empty>
    </>
  );
}
