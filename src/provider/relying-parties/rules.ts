/**
 * The rules of a relying-party registration (docs/wallet.md "Relying parties";
 * docs/decisions/0016-oidc-relying-parties.md): the form of a `client_id`, which redirect URIs
 * may be registered, and the generated client secret with its stored hash. Shared by the admin
 * API (`service.ts`) and `assent import` (`import.ts`), so both refuse the same input.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { redirectUriProblem } from '../../federation/index.js';
import { sha256 } from '../../platform/crypto/digest.js';

/** Most redirect URIs (and most post-logout redirect URIs) one client may register (count). */
export const MAX_CLIENT_URIS = 50;
/** Longest `client_id` (characters). */
export const MAX_CLIENT_ID = 100;
/** Longest client name (characters). */
export const MAX_CLIENT_NAME = 200;
/** Random bytes of a generated client secret: 256 bits, answered as 43 base64url characters. */
const SECRET_BYTES = 32;
/** Random bytes of a generated `client_id` (128 bits: 22 base64url characters). */
const CLIENT_ID_BYTES = 16;

/** A `client_id`: the unreserved characters of RFC 3986 §2.3, so it needs no escaping in a URL or a Basic header. */
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,100}$/;

/** What a registration declares (the admin API's body, an import file's entry), before validation. */
export interface ClientFields {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Public (no secret, PKCE S256 required) or confidential (client_secret_basic / client_secret_post). */
  public: boolean;
}

/**
 * Why `clientId` may not name a client, or null: 1 to 100 characters of `[A-Za-z0-9._~-]`.
 * @param clientId - as sent.
 */
export function clientIdProblem(clientId: string): string | null {
  return CLIENT_ID.test(clientId) ? null : 'must be 1 to 100 characters of A-Z a-z 0-9 . _ ~ -';
}

/** Whether `clientId` has the form of a `client_id` (a path parameter of another form names nothing: 404). */
export function isClientId(clientId: string): boolean {
  return CLIENT_ID.test(clientId);
}

/** A new random `client_id` (128 bits, base64url), for a registration that names none. */
export function newClientId(): string {
  return randomBytes(CLIENT_ID_BYTES).toString('base64url');
}

/**
 * Why `raw` may not be a redirect URI (or post-logout redirect URI) of a client, or null. The rule
 * of federation's app redirect URIs (`redirectUriProblem`): absolute, no fragment (RFC 6749
 * §3.1.2), no credentials, `https`, or `http` only at a loopback host (127.0.0.1, [::1],
 * localhost; RFC 8252 §7.3). A private-use scheme (`com.example.app:/cb`, RFC 8252 §7.1) only for
 * a public client: it names a native app, and a native app cannot keep a secret (RFC 8252 §8.4).
 * No whitespace or control character: the URI is compared as an exact string (RFC 9700 §4.1.3),
 * and `new URL` would silently drop them.
 * @param raw - the URI as sent.
 * @param isPublic - whether the client is public.
 */
export function clientUriProblem(raw: string, isPublic: boolean): string | null {
  // Threat: a URI that parses differently from how it is compared (trimmed spaces, tabs, newlines).
  const control = [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (control || /\s/.test(raw)) return 'must not contain whitespace or control characters';
  const problem = redirectUriProblem(raw, []);
  if (problem) return problem;
  const scheme = new URL(raw).protocol;
  if (!isPublic && scheme !== 'https:' && scheme !== 'http:')
    return 'a private-use scheme is allowed only for a public client (RFC 8252 §7.1)';
  return null;
}

/**
 * Every problem of a registration, each as `field: problem` (`redirectUris[2]: must not have a
 * fragment`): the name (1 to 200 characters, not blank), 1 to 50 redirect URIs and 0 to 50
 * post-logout redirect URIs, each valid (`clientUriProblem`) and listed once.
 * @param fields - the declared fields.
 * @returns the problems; empty when the registration is valid.
 */
export function clientProblems(fields: ClientFields): string[] {
  const problems: string[] = [];
  if (fields.name.trim() === '' || fields.name.length > MAX_CLIENT_NAME)
    problems.push(`name: must be 1 to ${MAX_CLIENT_NAME} characters, not blank`);
  const lists = [
    ['redirectUris', fields.redirectUris, 1],
    ['postLogoutRedirectUris', fields.postLogoutRedirectUris, 0],
  ] as const;
  for (const [field, uris, min] of lists) {
    if (uris.length < min || uris.length > MAX_CLIENT_URIS)
      problems.push(`${field}: must list ${min} to ${MAX_CLIENT_URIS} URIs`);
    const seen = new Set<string>();
    uris.forEach((uri, i) => {
      const problem = seen.has(uri) ? 'listed twice' : clientUriProblem(uri, fields.public);
      if (problem) problems.push(`${field}[${i}]: ${problem}`);
      seen.add(uri);
    });
  }
  return problems;
}

/**
 * A new client secret: 256 random bits, base64url (RFC 4648 §5), answered once and never stored.
 * @returns the secret and its hash (`hashSecret`) to store.
 */
export function newSecret(): { secret: string; hash: Buffer } {
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}

/**
 * The stored form of a client secret: its SHA-256 (32 bytes). A fast unsalted hash is adequate
 * here, unlike for passwords: the secret is 256 random bits generated by Assent, so a stolen hash
 * cannot be reversed by guessing, and no two clients share a secret (NIST SP 800-63B §5.1.1.2
 * asks for a slow salted hash only of secrets people choose).
 * @param secret - the secret as presented.
 */
export function hashSecret(secret: string): Buffer {
  return sha256(secret);
}

/**
 * Whether `presented` is the secret whose hash is `stored`, compared in constant time.
 * @param stored - the stored hash (32 bytes).
 * @param presented - the secret the client sent.
 */
export function secretMatches(stored: Buffer, presented: string): boolean {
  const hash = hashSecret(presented);
  // Threat: timing side channel on the comparison; both sides are 32-byte digests, so lengths never differ.
  return stored.length === hash.length && timingSafeEqual(stored, hash);
}

/** The fields a registration names in its audit entry (`clientSecret` only for a confidential client, never its value). */
export function createdFields(isPublic: boolean): string[] {
  const named = ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public'];
  return isPublic ? named : [...named, 'clientSecret'];
}

/** The fields an update may change, in the order the audit log names them. */
type Updatable = 'name' | 'redirectUris' | 'postLogoutRedirectUris';

/**
 * The fields of `next` that differ from `stored`; URI lists compare as ordered exact strings.
 * @param next - the fields after the update.
 * @param stored - the fields before.
 */
export function changedFields(next: Pick<ClientFields, Updatable>, stored: Pick<ClientFields, Updatable>): Updatable[] {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return (['name', 'redirectUris', 'postLogoutRedirectUris'] as const).filter((f) =>
    f === 'name' ? next.name !== stored.name : !same(next[f], stored[f]),
  );
}
