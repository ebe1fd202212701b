/**
 * Text the web front ends show for the API's values (docs/web.md), one wording for the dashboard
 * and the console.
 */

/** An RFC 3339 instant as `YYYY-MM-DD HH:MM:SS` (the API's instants are UTC; pages say so). */
export function utcTime(rfc3339: string): string {
  return rfc3339.replace('T', ' ').slice(0, 19);
}

/**
 * A consent history event's change, e.g. `Allow → AskMe (30 d)`: the values with their days
 * (days, shown only when not 0, which means no limit).
 */
export function consentChange(e: { OldValue: string; OldDays: number; NewValue: string; NewDays: number }): string {
  const days = (n: number) => (n ? ` (${n} d)` : '');
  return `${e.OldValue}${days(e.OldDays)} → ${e.NewValue}${days(e.NewDays)}`;
}
