/** A console form's checkbox (docs/web.md "Console"): sent as `on` when ticked, absent otherwise. */

/**
 * A labelled checkbox, ticked when `values[name]` is `on`.
 * @param values - the form's values by field name (stored ones, or a refused form's as sent).
 */
export function Checkbox({ name, label, values }: { name: string; label: string; values: Record<string, string> }) {
  return (
    <label>
      <input type="checkbox" name={name} value="on" checked={values[name] === 'on'} /> {label}
    </label>
  );
}
