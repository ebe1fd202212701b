/**
 * The checks Assent makes on a SAML response beyond node-saml's (SAML 2.0 Profiles §4.1.4.3,
 * Bindings §3.5.5.2), and the words a failure is reported in. node-saml checks the signature,
 * Issuer, Audience, times and InResponseTo (`sp.ts`); it does not check where the response was
 * sent: the Response's `Destination` and the bearer SubjectConfirmationData's `Recipient` must be
 * Assent's ACS URL, or a response obtained by another SP of the same IdP could be replayed here.
 */
import { REQUEST_TTL_MS } from './sp.js';

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/**
 * A SAML response refused: `message` is safe to show the app (it names the check, never the IdP's
 * text); `detail` is the real cause for the operator's log (a library's message, status codes),
 * never the assertion's content (no NameID, no attribute value).
 */
export class SamlCheckError extends Error {
  override name = 'SamlCheckError';
  /** The cause for the log, at most 300 characters on one line. */
  readonly detail: string;

  /**
   * @param message - the check, for the app.
   * @param detail - the cause, for the operator; `message` when omitted.
   */
  constructor(message: string, detail?: string) {
    super(message);
    this.detail = (detail ?? message).replace(/\s+/g, ' ').slice(0, 300);
  }
}

/** What the verified assertion tells beyond node-saml's profile. */
export interface AssertionFacts {
  /** The Assertion's ID: accepted once (replay). */
  assertionId: string;
  /** Until when the assertion is valid: how long its ID is kept. */
  expiresAt: Date;
}

/** xmldom's module, as `import('@xmldom/xmldom')` resolves it. */
export type Xmldom = typeof import('@xmldom/xmldom');

/**
 * xmldom, loaded with the first SAML message or metadata read or written, not at start-up: a process that handles
 * none (the CLI) need not load it; then from the module cache.
 */
export function loadXmldom(): Promise<Xmldom> {
  return import('@xmldom/xmldom');
}

/**
 * Parses a SAML message's XML leniently (xmldom, its warnings dropped); the caller reads only what it
 * checks. Screening (DTD, comments) is the caller's, before this.
 * @param dom - xmldom (`loadXmldom`).
 * @returns the document; its `documentElement` is null when nothing could be read.
 */
export function parseXml(xml: string, dom: Xmldom): Document {
  return new dom.DOMParser({ errorHandler: () => undefined }).parseFromString(xml, 'text/xml') as unknown as Document;
}

/**
 * Checks where the response was sent and reads the assertion's ID and expiry.
 * @param responseXml - the whole Response (its Destination; signed or not, the Recipient below is signed).
 * @param assertionXml - the Assertion node-saml verified the signature of.
 * @param acsUrl - Assent's ACS URL of the organisation.
 * @param clockSkewMs - the accepted clock skew (milliseconds), added to how long the ID is kept.
 * @throws {SamlCheckError} when Destination or Recipient differ, or the assertion has no ID.
 */
export async function assertionFacts(
  responseXml: string,
  assertionXml: string,
  acsUrl: string,
  clockSkewMs: number,
): Promise<AssertionFacts> {
  const dom = await loadXmldom();
  const destination = parseXml(responseXml, dom).documentElement?.getAttribute('Destination');
  if (destination && destination !== acsUrl)
    throw new SamlCheckError('the response was sent to another service (Destination)');
  const assertion = parseXml(assertionXml, dom).documentElement;
  const assertionId = assertion?.getAttribute('ID');
  if (!assertion || !assertionId) throw new SamlCheckError('the assertion has no ID');
  const data = Array.from(assertion.getElementsByTagNameNS(SAML, 'SubjectConfirmation'))
    .filter((c) => c.getAttribute('Method') === BEARER)
    .flatMap((c) => Array.from(c.getElementsByTagNameNS(SAML, 'SubjectConfirmationData')));
  // Threat: an assertion issued to another SP's ACS presented here (Profiles §4.1.4.3 "Recipient").
  if (data.length === 0 || !data.every((d) => d.getAttribute('Recipient') === acsUrl))
    throw new SamlCheckError('the assertion was issued to another service (Recipient)');
  const times = [
    ...data.map((d) => d.getAttribute('NotOnOrAfter')),
    ...Array.from(assertion.getElementsByTagNameNS(SAML, 'Conditions')).map((c) => c.getAttribute('NotOnOrAfter')),
  ]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter((t) => Number.isFinite(t));
  const expiresAt = new Date(times.length > 0 ? Math.max(...times) + clockSkewMs : Date.now() + REQUEST_TTL_MS);
  return { assertionId, expiresAt };
}

/**
 * A node-saml failure as a refusal: words from its fixed messages for the app, and its message as
 * the operator's cause (for a status error only the status codes, never the IdP's status text).
 * @param err - what node-saml threw.
 */
export function nodeSamlFailure(err: unknown): SamlCheckError {
  const text = err instanceof Error ? err.message : String(err);
  const status = err instanceof Error && err.name === 'SamlStatusError';
  return new SamlCheckError(describeFailure(err), status ? text.replace(/ error: .*/, ' error') : `node-saml: ${text}`);
}

/**
 * Words for a node-saml failure, from its fixed messages (never the IdP's status text).
 * @param err - what node-saml threw.
 */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? err.message : '';
  if (err instanceof Error && err.name === 'SamlStatusError') return 'the identity provider refused the sign-in';
  if (/InResponseTo/i.test(text)) return 'the response does not answer a request Assent sent (InResponseTo)';
  if (/signature|signed/i.test(text)) return 'the response is not signed by a configured certificate';
  if (/audience/i.test(text)) return 'the assertion is meant for another service provider (Audience)';
  if (/expired|NotBefore|NotOnOrAfter|not yet valid|too old|no valid subject confirmation/i.test(text))
    return 'the assertion is expired or not yet valid';
  if (/issuer/i.test(text)) return 'the response was issued by another identity provider (Issuer)';
  if (/multiple assertions/i.test(text)) return 'the response carries more than one assertion';
  return 'the SAML response failed validation';
}
