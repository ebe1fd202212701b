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

/**
 * A data attribute's consent in words, the same on the dashboard and the console (docs/web.md
 * "Privacy dashboard"): days belong to AskMe (docs/api.md "AskMe with days"), so an AskMe reads
 * `AskMe, 12 of 45 days left` or `AskMe, no time limit` (`Days: 0`), and Allow or Disallow reads as
 * the value alone, whatever days a record holds (an AskMe whose days ran out reads `Disallow`).
 * @param status - the API's `Status`: `Consent`, `Days` and `Remaining` (days).
 */
export function consentState(status: { Consent: string; Days: number; Remaining: number }): string {
  if (status.Consent !== 'AskMe') return status.Consent;
  return status.Days > 0 ? `AskMe, ${status.Remaining} of ${status.Days} days left` : 'AskMe, no time limit';
}
