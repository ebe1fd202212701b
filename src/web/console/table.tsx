/** Table parts shared by the console's pages (WCAG 2.2 SC 1.3.1: header cells name their scope). */

/** A table's header row: one `<th scope="col">` per name. */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th scope="col" key={n}>
            {n}
          </th>
        ))}
      </tr>
    </thead>
  );
}
