/**
 * The front-channel bindings of single logout messages (SAML 2.0 Bindings §3.4 HTTP-Redirect,
 * §3.5 HTTP-POST): reading a LogoutRequest or LogoutResponse the IdP sent, with its signature
 * verified against the IdP's configured certificates, and writing Assent's signed LogoutResponse.
 * Profiles §4.4.4.2 requires these messages to be signed on a front-channel binding, so an unsigned
 * one is refused. Every refusal is a `LogoutRefusal` whose message names the failed check (safe to
 * log and to show); it never carries the message's content.
 */
import { createSign, createVerify, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { loadXmldom, parseXml, type Xmldom } from './checks.js';

/** SAML 2.0 protocol namespace (Core §3). */
export const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
/** SAML 2.0 assertion namespace (Core §2). */
export const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
/** Largest logout message accepted, inflated or decoded (characters). */
const MAX_XML_CHARS = 100_000;
/** Largest `SAMLRequest` or `SAMLResponse` field accepted (characters of base64). */
export const MAX_LOGOUT_CHARS = 140_000;
/** The signature algorithm Assent signs its LogoutResponses with (Bindings §3.4.4.1 `SigAlg`). */
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/**
 * `SigAlg` values accepted on the HTTP-Redirect binding and the Node.js hash each verifies with
 * (XML Signature Syntax and Processing 1.1 §6.4.2, RFC 6931 §2.3). rsa-sha1 is not accepted.
 */
const SIG_ALGS: Record<string, string> = {
  [RSA_SHA256]: 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': 'sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};

/** SAML 2.0 Bindings §3.4 (HTTP-Redirect) and §3.5 (HTTP-POST). */
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/**
 * Advertises Assent's SingleLogoutService on exactly the bindings it accepts, HTTP-Redirect and
 * HTTP-POST (SAML 2.0 Metadata §2.2.2, §2.4.2): node-saml writes one element, for HTTP-POST only;
 * it becomes one per binding, at the same Location and place.
 * @param metadataXml - node-saml's SP metadata, made with `logoutCallbackUrl`.
 * @throws {Error} when the metadata has no SingleLogoutService element (node-saml changed its output).
 */
export function withSloBindings(metadataXml: string): string {
  const element = /<SingleLogoutService Binding="[^"]*" (Location="[^"]*")\/>/;
  const found = element.exec(metadataXml);
  if (!found) throw new Error('the SP metadata has no SingleLogoutService element');
  const indent = /\n( *)$/.exec(metadataXml.slice(0, found.index))?.[1] ?? '';
  const both =
    `<SingleLogoutService Binding="${REDIRECT}" ${found[1]}/>\n` +
    `${indent}<SingleLogoutService Binding="${POST}" ${found[1]}/>`;
  return metadataXml.replace(element, both);
}

/** A logout message refused; the message names the check, never the message's content. */
export class LogoutRefusal extends Error {
  override name = 'LogoutRefusal';
}

/** Which message a request carries: `SAMLRequest` (LogoutRequest) or `SAMLResponse` (LogoutResponse). */
export type LogoutParameter = 'SAMLRequest' | 'SAMLResponse';

/** A logout message whose signature verified: its root element, and the RelayState sent with it. */
export interface VerifiedMessage {
  /** The root element, read from the signed bytes only (XML signature wrapping cannot add to it). */
  root: Element;
  relayState: string | undefined;
}

/** Refuses what no logout message needs and parsers have been attacked through. */
function screen(xml: string): string {
  if (xml.length > MAX_XML_CHARS) throw new LogoutRefusal('the message is too large');
  // Threat: XXE and entity expansion; SAML never needs a DTD (OWASP XML Security Cheat Sheet).
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new LogoutRefusal('a document type declaration is not accepted');
  // Threat: a comment splitting a signed NameID (CVE-2017-11427 class): c14n drops it, parsers may not.
  if (xml.includes('<!--')) throw new LogoutRefusal('the message contains an XML comment');
  return xml;
}

/** The root element of `xml`, which must be `local` in the protocol namespace; `dom` is xmldom (`loadXmldom`). */
function rootOf(xml: string, local: string, dom: Xmldom): Element {
  let root: Element | null;
  try {
    root = parseXml(xml, dom).documentElement;
  } catch {
    throw new LogoutRefusal('the message is not well-formed XML');
  }
  if (!root || root.namespaceURI !== PROTOCOL || root.localName !== local)
    throw new LogoutRefusal(`the message is not a ${local}`);
  return root;
}

/** The local name the parameter must carry (Bindings §3.4.4, §3.5.4). */
const expected = (parameter: LogoutParameter) => (parameter === 'SAMLRequest' ? 'LogoutRequest' : 'LogoutResponse');

/**
 * Reads an HTTP-Redirect message (Bindings §3.4.4.1): the signature covers the exact URL-encoded
 * octets `SAMLRequest=…` or `SAMLResponse=…`, then `&RelayState=…` when present, then `&SigAlg=…`,
 * as they appear in the query string, so they are taken from the raw query, not re-encoded.
 * @param rawQuery - the query string as received, without `?`.
 * @param certificates - the IdP's PEM signing certificates.
 * @throws {LogoutRefusal} unsigned, a signature by no configured certificate, an unknown `SigAlg`,
 *   a repeated parameter, or a message that does not inflate to the expected element.
 */
export async function readRedirect(
  rawQuery: string,
  parameter: LogoutParameter,
  certificates: string[],
): Promise<VerifiedMessage> {
  const raw = new Map<string, string>();
  for (const part of rawQuery.split('&')) {
    const at = part.indexOf('=');
    const key = at < 0 ? part : part.slice(0, at);
    // Threat: a second copy of a signed parameter read instead of the one the signature covers.
    if (raw.has(key)) throw new LogoutRefusal(`the query repeats ${key}`);
    raw.set(key, at < 0 ? '' : part.slice(at + 1));
  }
  const value = (key: string) => {
    const v = raw.get(key);
    if (v === undefined) return undefined;
    try {
      return decodeURIComponent(v.replace(/\+/g, '%20'));
    } catch {
      throw new LogoutRefusal(`${key} is not URL-encoded`);
    }
  };
  const message = raw.get(parameter);
  if (message === undefined) throw new LogoutRefusal(`the query carries no ${parameter}`);
  const sigAlg = value('SigAlg');
  const signature = value('Signature');
  // Threat: a forged logout message; the front-channel bindings must be signed (Profiles §4.4.4.2).
  if (!sigAlg || !signature) throw new LogoutRefusal('the message is not signed (Signature, SigAlg)');
  const hash = SIG_ALGS[sigAlg];
  if (!hash) throw new LogoutRefusal('the signature algorithm (SigAlg) is not accepted');
  const relay = raw.get('RelayState');
  const relayPart = relay !== undefined ? `&RelayState=${relay}` : '';
  const signed = `${parameter}=${message}${relayPart}&SigAlg=${raw.get('SigAlg')}`;
  const sig = Buffer.from(signature, 'base64');
  const ok = certificates.some((cert) => {
    try {
      return createVerify(hash).update(signed).verify(cert, sig);
    } catch {
      return false;
    }
  });
  if (!ok) throw new LogoutRefusal('the message is not signed by a configured certificate');
  let xml: string;
  try {
    xml = inflateRawSync(Buffer.from(value(parameter)!, 'base64'), { maxOutputLength: MAX_XML_CHARS }).toString();
  } catch {
    throw new LogoutRefusal('the message is not DEFLATE-encoded');
  }
  const dom = await loadXmldom();
  return { root: rootOf(screen(xml), expected(parameter), dom), relayState: value('RelayState') };
}

/**
 * Reads an HTTP-POST message (Bindings §3.5.4): base64 XML whose root carries an enveloped XML
 * signature by a configured certificate; only what that signature covers is read.
 * @param form - the form fields (`SAMLRequest` or `SAMLResponse`, `RelayState`).
 * @throws {LogoutRefusal} unsigned, a signature by no configured certificate or not over the root,
 *   or not the expected element.
 */
export async function readPost(
  form: Record<string, string | undefined>,
  parameter: LogoutParameter,
  certificates: string[],
): Promise<VerifiedMessage> {
  const encoded = form[parameter];
  if (!encoded) throw new LogoutRefusal(`the form carries no ${parameter}`);
  const xml = screen(Buffer.from(encoded, 'base64').toString('utf8'));
  const dom = await loadXmldom();
  const root = rootOf(xml, expected(parameter), dom);
  // node-saml's XML signature code, loaded with the first signed message, not at start-up (see `loadNodeSaml`).
  const { getVerifiedXml } = await import('@node-saml/node-saml/lib/xml.js');
  let verified: string | null;
  try {
    verified = getVerifiedXml(xml, root, certificates);
  } catch {
    verified = null;
  }
  // Threat: a forged logout message; the front-channel bindings must be signed (Profiles §4.4.4.2).
  if (!verified) {
    const signed = Array.from(root.childNodes).some((n) => (n as Element).localName === 'Signature');
    throw new LogoutRefusal(
      signed ? 'the message is not signed by a configured certificate' : 'the message is not signed (XML signature)',
    );
  }
  return { root: rootOf(verified, expected(parameter), dom), relayState: form.RelayState };
}

/** What Assent answers an IdP's LogoutRequest with (Core §3.7.2, §3.2.2.2). */
export interface LogoutAnswer {
  /** The IdP's SingleLogoutService (HTTP-Redirect) URL: the response's Destination. */
  destination: string;
  /** Assent's entity ID (Issuer). */
  issuer: string;
  /** The answered LogoutRequest's ID. */
  inResponseTo: string;
  /** Top-level status code, and the second-level one when not Success (Core §3.2.2.2). */
  status: string[];
  relayState: string | undefined;
}

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Assent's LogoutResponse on the HTTP-Redirect binding (Bindings §3.4.4.1): the URL of the IdP's
 * SingleLogoutService with the deflated message, the RelayState it was sent, and an rsa-sha256
 * signature by Assent's SP key over the query.
 * @param privateKey - PKCS #8 PEM of the SP key.
 */
export function logoutResponseUrl(answer: LogoutAnswer, privateKey: string): string {
  const [top, second] = answer.status;
  const code = second
    ? `<samlp:StatusCode Value="${top}"><samlp:StatusCode Value="${second}"/></samlp:StatusCode>`
    : `<samlp:StatusCode Value="${top}"/>`;
  const xml =
    `<samlp:LogoutResponse xmlns:samlp="${PROTOCOL}" xmlns:saml="${ASSERTION}" ` +
    `ID="_${randomBytes(20).toString('hex')}" Version="2.0" IssueInstant="${new Date().toISOString()}" ` +
    `Destination="${escapeXml(answer.destination)}" InResponseTo="${escapeXml(answer.inResponseTo)}">` +
    `<saml:Issuer>${escapeXml(answer.issuer)}</saml:Issuer><samlp:Status>${code}</samlp:Status></samlp:LogoutResponse>`;
  let query = `SAMLResponse=${encodeURIComponent(deflateRawSync(xml).toString('base64'))}`;
  if (answer.relayState !== undefined) query += `&RelayState=${encodeURIComponent(answer.relayState)}`;
  query += `&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
  const signature = createSign('sha256').update(query).sign(privateKey, 'base64');
  const url = new URL(answer.destination);
  return `${url.href}${url.search ? '&' : '?'}${query}&Signature=${encodeURIComponent(signature)}`;
}
