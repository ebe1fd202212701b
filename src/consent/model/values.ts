/**
 * The rules of an attribute consent's value (docs/api.md "Requests", "Defaults", "Count",
 * "AskMe with days"): three values, defaults from the lawful basis, AskMe expiry, counting.
 */
import { InvalidRequest } from '../../platform/core/errors.js';

/** The three consent values; AskMe means "allowed for a number of days; ask again after". */
export type ConsentValue = 'Allow' | 'Disallow' | 'AskMe';

const VALUES: Readonly<Record<string, ConsentValue>> = { allow: 'Allow', disallow: 'Disallow', askme: 'AskMe' };
const DAY_MS = 86_400_000;
/** Longest `days` accepted with a choice: 100 years (days). */
export const MAX_DAYS = 36_500;

/**
 * Normalises a consent value sent by a client; the match ignores case (docs/api.md: clients send
 * `allow`, `DisAllow`, `Askme` …).
 * @param raw - the value as sent.
 * @throws {InvalidRequest} when it is none of the three.
 */
export function parseConsentValue(raw: string): ConsentValue {
  const value = VALUES[raw.trim().toLowerCase()];
  if (!value) throw new InvalidRequest(`Consented must be one of Allow, Disallow, AskMe (got "${raw.slice(0, 40)}")`);
  return value;
}

/** A choice on one attribute: the value and the days given with it (days; 0 = no time limit). */
export interface AttributeChoice {
  value: ConsentValue;
  days: number;
}

/**
 * A value with the days sent alongside it, as stored (docs/api.md "AskMe with days"): days belong to
 * AskMe. An `Allow` with `days` ≥ 1 is AskMe for that many days (the bb-consent privacy dashboard's
 * AskMe control sends `{"Consented":"Allow","Days":N}`), so it runs out like any AskMe; a `Disallow`
 * stores no days; an `Allow` with 0 days is a plain Allow.
 * @param value - the value as parsed.
 * @param days - the days sent with it (days, 0 to `MAX_DAYS`; 0 = no time limit).
 */
export function choiceOf(value: ConsentValue, days: number): AttributeChoice {
  if (value === 'Allow' && days >= 1) return { value: 'AskMe', days };
  return { value, days: value === 'AskMe' ? days : 0 };
}

/**
 * The choice of a single-attribute PATCH body (docs/api.md "Permissions and consents"; docs/api.md "`days` is optional"): `days`
 * defaults to 0; `{"days": N}` without `consented` is AskMe for N days (N ≥ 1), the iOS SDK's
 * slider; a value sent with days is stored as `choiceOf` says.
 * @param consented - the value as sent, or undefined.
 * @param days - the days as sent (days, 0 to `MAX_DAYS`, checked by the schema), or undefined.
 * @throws {InvalidRequest} when neither is sent, when `days` alone is 0, or when the value is none of the three.
 */
export function attributeChoice(consented: string | undefined, days: number | undefined): AttributeChoice {
  if (consented !== undefined) return choiceOf(parseConsentValue(consented), days ?? 0);
  if (days === undefined) throw new InvalidRequest('The body must carry consented, days, or both');
  if (days < 1) throw new InvalidRequest('days alone means AskMe for that many days, so it must be at least 1');
  return { value: 'AskMe', days };
}

/** An attribute consent as stored, or the default when nobody decided yet. */
export interface StoredConsent {
  value: ConsentValue;
  /** Days given with the choice (0 = no time limit). */
  days: number;
  /** When the choice was made; for a default, when the consent record was created. */
  decidedAt: Date;
  /** Whether this is a default (no decision on record). */
  isDefault: boolean;
}

/**
 * The default of an undecided attribute: Allow under a lawful basis other than consent, else
 * Disallow (docs/api.md "Defaults"; GDPR Art. 6(1)).
 * @param lawfulUsage - the purpose's `LawfulUsage`.
 * @param since - when the consent record was created.
 */
export function defaultConsent(lawfulUsage: boolean, since: Date): StoredConsent {
  return { value: lawfulUsage ? 'Allow' : 'Disallow', days: 0, decidedAt: since, isDefault: true };
}

/**
 * When an AskMe with days runs out, or null when it never does (other values, or `Days: 0`).
 * @param value - the value chosen.
 * @param days - days given (days).
 * @param decidedAt - when.
 */
export function expiryOf(value: ConsentValue, days: number, decidedAt: Date): Date | null {
  return value === 'AskMe' && days > 0 ? new Date(decidedAt.getTime() + days * DAY_MS) : null;
}

/**
 * The value that holds at `now`: an AskMe that ran out reads Disallow.
 * @param consent - the stored consent.
 * @param now - the instant of reading.
 */
export function effectiveValue(consent: StoredConsent, now: Date): ConsentValue {
  const expiry = expiryOf(consent.value, consent.days, consent.decidedAt);
  return expiry && expiry.getTime() <= now.getTime() ? 'Disallow' : consent.value;
}

/**
 * Whether the attribute counts as consented: Allow, or an unexpired AskMe (docs/api.md "Count").
 * @param consent - the stored consent.
 * @param now - the instant of reading.
 */
export function counts(consent: StoredConsent, now: Date): boolean {
  return effectiveValue(consent, now) !== 'Disallow';
}

/**
 * `Remaining`: `Days` minus the whole days elapsed since the choice, never below 0.
 * @param consent - the stored consent.
 * @param now - the instant of reading.
 * @returns days.
 */
export function remainingDays(consent: StoredConsent, now: Date): number {
  const elapsed = Math.floor((now.getTime() - consent.decidedAt.getTime()) / DAY_MS);
  return Math.max(0, consent.days - elapsed);
}
