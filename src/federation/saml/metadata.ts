/**
 * Reading an IdP's SAML 2.0 metadata (SAML 2.0 Metadata §2.3.2, §2.4.3): its entity ID, its
 * SingleSignOnService and SingleLogoutService for the HTTP-Redirect binding, and its signing
 * certificates. The XML comes inline from the administrator or from a URL fetched through the SSRF
 * guard of `src/platform/net/` (5 s, at most 1 MiB, no redirects). The metadata's own signature is not
 * checked: the administrator chose its source (docs/federation.md "SAML 2.0").
 */
import { X509Certificate } from 'node:crypto';
import { InvalidRequest } from '../../platform/core/errors.js';
import { guardedFetch } from '../../platform/net/guarded-fetch.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { loadXmldom } from './checks.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
/** SAML 2.0 Bindings §3.4: the binding of AuthnRequests and logout messages Assent sends. */
export const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What the metadata tells. */
export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** "" when the IdP has no HTTP-Redirect SingleLogoutService. */
  sloUrl: string;
  /** PEM certificates of the `signing` (or unqualified) KeyDescriptors. */
  signingCertificates: string[];
}

/**
 * Refuses XML with a document type declaration before any parser sees it. Threat: XXE and entity
 * expansion ("billion laughs"); SAML messages and metadata never need a DTD (SAML 2.0 Bindings §3.4.4.1,
 * OWASP XML Security Cheat Sheet).
 * @throws {InvalidRequest} when `xml` contains `<!DOCTYPE` or `<!ENTITY`.
 */
export function refuseDoctype(xml: string, what: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new InvalidRequest(`${what}: a document type declaration is not accepted`);
}

/**
 * A certificate as PEM, from PEM or bare base64 DER.
 * @returns the PEM, or null when it is no X.509 certificate.
 */
export function certificatePem(raw: string): string | null {
  const body = raw
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
    .trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  try {
    const cert = new X509Certificate(Buffer.from(body, 'base64'));
    return cert.toString().trim();
  } catch {
    return null;
  }
}

function children(parent: Element, ns: string, name: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(ns, name) as unknown as ArrayLike<Element>);
}

function redirectLocation(idp: Element, service: string): string {
  const el = children(idp, MD, service).find((e) => e.getAttribute('Binding') === REDIRECT_BINDING);
  return el?.getAttribute('Location')?.trim() ?? '';
}

/**
 * Parses IdP metadata.
 * @param xml - an EntityDescriptor, or an EntitiesDescriptor with exactly one IdP (or the one named `entityId`).
 * @throws {InvalidRequest} naming what is missing or malformed.
 */
export async function parseIdpMetadata(xml: string, entityId?: string): Promise<IdpMetadata> {
  refuseDoctype(xml, 'metadata');
  const { DOMParser } = await loadXmldom();
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: (level, msg) => level !== 'warning' && errors.push(String(msg)),
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) throw new InvalidRequest('metadata: not well-formed XML');
  const entities = children(doc.documentElement as unknown as Element, MD, 'EntityDescriptor');
  if (doc.documentElement.localName === 'EntityDescriptor') entities.unshift(doc.documentElement as unknown as Element);
  const idps = entities.filter(
    (e) => children(e, MD, 'IDPSSODescriptor').length > 0 && (!entityId || e.getAttribute('entityID') === entityId),
  );
  if (idps.length !== 1)
    throw new InvalidRequest(
      'metadata: expected exactly one EntityDescriptor with an IDPSSODescriptor (or name entityId)',
    );
  const entity = idps[0]!;
  const idp = children(entity, MD, 'IDPSSODescriptor')[0]!;
  const signingCertificates = children(idp, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') || 'signing') === 'signing')
    .flatMap((k) => children(k, DS, 'X509Certificate').map((c) => certificatePem(c.textContent ?? '')))
    .filter((c): c is string => c !== null);
  return {
    entityId: entity.getAttribute('entityID') ?? '',
    ssoUrl: redirectLocation(idp, 'SingleSignOnService'),
    sloUrl: redirectLocation(idp, 'SingleLogoutService'),
    signingCertificates: [...new Set(signingCertificates)],
  };
}

/**
 * Fetches metadata through the SSRF guard (only that host, checked addresses, no redirects, 5 s, 1 MiB).
 * @throws {InvalidRequest} when it cannot be fetched or is not a 200; the network detail goes to `log` only.
 */
export async function fetchIdpMetadata(
  url: string,
  policy: OutboundPolicy,
  log: { warn(obj: object, msg: string): void },
): Promise<string> {
  try {
    const res = await guardedFetch(url, { method: 'GET', headers: { accept: 'application/samlmetadata+xml' } }, policy);
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return await res.text();
  } catch (err) {
    // Threat: the admin API as a probe of Assent's network; the cause is logged, not answered.
    log.warn({ detail: (err as Error).message }, 'SAML metadata could not be fetched');
    throw new InvalidRequest('metadataUrl: the metadata could not be fetched (it must answer 200 within 5 s)');
  }
}
