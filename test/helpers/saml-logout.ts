/**
 * Crafted single logout messages for the tests (SAML 2.0 Core §3.7; Bindings §3.4 HTTP-Redirect,
 * §3.5 HTTP-POST): a LogoutRequest or LogoutResponse built as text, signed as each binding wants it
 * (the query-string signature, or an enveloped XML signature by xml-crypto) with a test key, and a
 * reader of the LogoutResponse Assent sends back, whose signature it checks with Assent's certificate.
 */
import { createSign, createVerify } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { call } from './assent.js';
import { samlId } from './saml-forge.js';
import type { TestKeyPair } from './saml-keys.js';

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const NS = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
/** Status codes (Core §3.2.2.2). */
export const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
export const RESPONDER = 'urn:oasis:names:tc:SAML:2.0:status:Responder';

const iso = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** A LogoutResponse; `inResponseTo: null` leaves the attribute out. */
export function logoutResponse(c: {
  issuer: string;
  destination: string;
  inResponseTo: string | null;
  status?: string;
}): string {
  const irt = c.inResponseTo === null ? '' : ` InResponseTo="${c.inResponseTo}"`;
  return (
    `<samlp:LogoutResponse ${NS} ID="${samlId()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${c.destination}"${irt}>` +
    `<saml:Issuer>${c.issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${c.status ?? SUCCESS}"/></samlp:Status></samlp:LogoutResponse>`
  );
}

/** A LogoutRequest for `nameId`; times in seconds from now. */
export function logoutRequest(c: {
  issuer: string;
  destination: string;
  nameId: string;
  sessionIndexes?: string[];
  id?: string;
  issuedAt?: number;
  notOnOrAfter?: number;
}): string {
  const nooa = c.notOnOrAfter === undefined ? '' : ` NotOnOrAfter="${iso(c.notOnOrAfter)}"`;
  return (
    `<samlp:LogoutRequest ${NS} ID="${c.id ?? samlId()}" Version="2.0" IssueInstant="${iso(c.issuedAt ?? 0)}" ` +
    `Destination="${c.destination}"${nooa}>` +
    `<saml:Issuer>${c.issuer}</saml:Issuer>` +
    `<saml:NameID Format="${PERSISTENT}">${c.nameId}</saml:NameID>` +
    (c.sessionIndexes ?? []).map((s) => `<samlp:SessionIndex>${s}</samlp:SessionIndex>`).join('') +
    `</samlp:LogoutRequest>`
  );
}

/** Signs the root element of `xml` (enveloped, exc-c14n, rsa-sha256), the signature after its Issuer. */
export function signRoot(xml: string, key: TestKeyPair): string {
  const sig = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: EXC_C14N,
  });
  sig.addReference({
    xpath: '/*',
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
  });
  sig.computeSignature(xml, { location: { reference: "/*/*[local-name(.)='Issuer']", action: 'after' } });
  return sig.getSignedXml();
}

/** The HTTP-POST binding's form body: base64 of `xml`, and RelayState when given. */
export function postForm(parameter: 'SAMLRequest' | 'SAMLResponse', xml: string, relayState?: string): string {
  const form = new URLSearchParams({ [parameter]: Buffer.from(xml).toString('base64') });
  if (relayState !== undefined) form.set('RelayState', relayState);
  return form.toString();
}

/**
 * The HTTP-Redirect binding's query (Bindings §3.4.4.1): the deflated message, RelayState, and
 * with `key` the rsa-sha256 SigAlg and Signature over those octets.
 */
export function redirectQuery(
  parameter: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  key: TestKeyPair | null,
  relayState?: string,
): string {
  let query = `${parameter}=${encodeURIComponent(deflateRawSync(xml).toString('base64'))}`;
  if (relayState !== undefined) query += `&RelayState=${encodeURIComponent(relayState)}`;
  if (!key) return query;
  query += `&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
  const signature = createSign('sha256').update(query).sign(key.privateKey, 'base64');
  return `${query}&Signature=${encodeURIComponent(signature)}`;
}

/** What Assent's LogoutResponse says. */
export interface SentLogoutResponse {
  xml: string;
  status: string[];
  inResponseTo: string | null;
  destination: string | null;
  issuer: string | null;
  relayState: string | null;
}

/**
 * Reads the LogoutResponse Assent sent on the HTTP-Redirect binding.
 * @param certificate - Assent's SP certificate (PEM) the signature must verify with.
 * @throws when it is unsigned or the signature does not verify.
 */
export function readSentResponse(location: string, certificate: string): SentLogoutResponse {
  const rawQuery = location.slice(location.indexOf('?') + 1);
  const parts = new Map(rawQuery.split('&').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  const relay = parts.has('RelayState') ? `&RelayState=${parts.get('RelayState')}` : '';
  const signed = `SAMLResponse=${parts.get('SAMLResponse')}${relay}&SigAlg=${parts.get('SigAlg')}`;
  if (decodeURIComponent(parts.get('SigAlg') ?? '') !== RSA_SHA256) throw new Error('not rsa-sha256');
  const signature = Buffer.from(decodeURIComponent(parts.get('Signature') ?? ''), 'base64');
  if (!createVerify('sha256').update(signed).verify(certificate, signature)) throw new Error('bad signature');
  const xml = inflateRawSync(Buffer.from(decodeURIComponent(parts.get('SAMLResponse')!), 'base64')).toString();
  const attr = (name: string) => new RegExp(`<samlp:LogoutResponse[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? null;
  return {
    xml,
    status: [...xml.matchAll(/StatusCode Value="([^"]+)"/g)].map((m) => m[1]!),
    inResponseTo: attr('InResponseTo'),
    destination: attr('Destination'),
    issuer: /<saml:Issuer>([^<]*)</.exec(xml)?.[1] ?? null,
    relayState: parts.has('RelayState') ? decodeURIComponent(parts.get('RelayState')!) : null,
  };
}

/**
 * Configures the organisation's SAML IdP (`POST …/idp/saml` with `body`) and, when given, registers
 * `appUri` as its app redirect URI.
 * @param base - Assent's `{base}` URL.
 * @throws when either answer is not the expected 201 or 200.
 */
export async function configureSaml(
  base: string,
  orgId: string,
  owner: string,
  body: Record<string, unknown>,
  appUri?: string,
): Promise<void> {
  const created = await call(`${base}/organizations/${orgId}/idp/saml`, { token: owner, body });
  if (created.status !== 201)
    throw new Error(`configuring SAML failed: ${created.status} ${JSON.stringify(created.body)}`);
  if (appUri === undefined) return;
  const uris = await call(`${base}/organizations/${orgId}/idp/open-id/app-redirect-uris`, {
    method: 'PUT',
    token: owner,
    body: { RedirectURIs: [appUri] },
  });
  if (uris.status !== 200) throw new Error(`registering ${appUri} failed: ${uris.status}`);
}

/** Assent's current SP certificate (PEM, 64-character lines), read from its SP metadata. */
export async function spCertificateOf(base: string, orgId: string): Promise<string> {
  const xml = await (await fetch(`${base}/organizations/${orgId}/idp/saml/metadata`)).text();
  const der = /<(?:ds:)?X509Certificate>([^<]+)</.exec(xml)![1]!.replace(/\s/g, '');
  return `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}
