/**
 * The checks of a logout message whose signature verified (`logout-binding.ts`), common to
 * LogoutRequest and LogoutResponse (SAML 2.0 Core §3.2.1, §3.2.2; Bindings §3.4.5.2, §3.5.5.2):
 * version 2.0, an ID, the IdP as Issuer, and Assent's SingleLogoutService as Destination, which a
 * signed front-channel message must carry.
 */
import { ASSERTION, LogoutRefusal, PROTOCOL } from './logout-binding.js';

/** The first child element of `parent` named `local` in namespace `ns`, or undefined. */
export function child(parent: Element, ns: string, local: string): Element | undefined {
  return Array.from(parent.childNodes).find(
    (n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === local,
  );
}

/** The trimmed text of an element, or "". */
export const textOf = (el: Element | undefined): string => el?.textContent?.trim() ?? '';

/** What a logout message is checked against. */
export interface Expected {
  /** The IdP's entity ID. */
  issuer: string;
  /** Assent's SingleLogoutService URL of the organisation. */
  destination: string;
}

/**
 * Checks Version, ID, Issuer and Destination.
 * @returns the message's ID.
 * @throws {LogoutRefusal} naming the first failed check.
 */
export function checkEnvelope(root: Element, expected: Expected): string {
  if (root.getAttribute('Version') !== '2.0') throw new LogoutRefusal('the message is not SAML 2.0 (Version)');
  const id = root.getAttribute('ID');
  if (!id) throw new LogoutRefusal('the message has no ID');
  // Threat: a message of another IdP (or another organisation's) signed with a key it shares.
  if (textOf(child(root, ASSERTION, 'Issuer')) !== expected.issuer)
    throw new LogoutRefusal('the message was issued by another identity provider (Issuer)');
  // Threat: a message obtained by another SP of the same IdP replayed here (Bindings §3.4.5.2, §3.5.5.2).
  if (root.getAttribute('Destination') !== expected.destination)
    throw new LogoutRefusal('the message was sent to another service (Destination)');
  return id;
}

/** The top-level status code of a LogoutResponse (Core §3.2.2.2), or "". */
export function statusOf(root: Element): string {
  const status = child(root, PROTOCOL, 'Status');
  return (status && child(status, PROTOCOL, 'StatusCode')?.getAttribute('Value')) ?? '';
}

/**
 * The instant of an xs:dateTime attribute (milliseconds since the epoch), or null when absent.
 * @throws {LogoutRefusal} when present and not a date.
 */
export function instantOf(root: Element, attribute: string): number | null {
  const value = root.getAttribute(attribute);
  if (!value) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new LogoutRefusal(`${attribute} is not a date`);
  return ms;
}
