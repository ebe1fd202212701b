/**
 * What Assent reads from a SAML Response before node-saml validates it (docs/federation.md "SAML
 * 2.0"): the top-level status, which signatures are present (each present one must then verify),
 * and which of Assent's encryption keys an `EncryptedAssertion` was encrypted to.
 */

import { loadXmldom, SamlCheckError, type Xmldom } from './checks.js';

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const XENC = 'http://www.w3.org/2001/04/xmlenc#';
/** SAML 2.0 Core §3.2.2.2: the only top-level status of a successful Response. */
export const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
/**
 * What the app is told of any refused Response whose assertion is encrypted, whatever the check:
 * AES-CBC has no integrity, so distinct answers (bad padding, not XML, bad signature) would be a
 * decryption oracle (Jager and Somorovsky, "How to Break XML Encryption", ACM CCS 2011).
 */
export const ENCRYPTED_REFUSED = 'the encrypted assertion was refused';
/** Content encryption accepted (XML Encryption 1.1 §5.2): AES-GCM, and AES-CBC, which ADFS and SimpleSAMLphp use by default. */
const CONTENT_ALGORITHMS = [
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  `${XENC}aes256-cbc`,
  `${XENC}aes128-cbc`,
];
/** Key transport accepted (XML Encryption 1.1 §5.5): RSA-OAEP only. */
const KEY_TRANSPORT = `${XENC}rsa-oaep-mgf1p`;

/** What the Response carries, as far as it can be read before validation. */
export interface ResponseShape {
  /** The Response carries an enveloped signature of its own. */
  responseSigned: boolean;
  /** The (decrypted) Assertion carries an enveloped signature of its own. */
  assertionSigned: boolean;
  /** The private key that decrypts the `EncryptedAssertion`, or undefined when the assertion is not encrypted. */
  decryptionKey?: string;
}

const children = (el: Element, ns: string, local: string) =>
  Array.from(el.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === local,
  );

/**
 * The document element of `xml`, or null.
 * @param dom - xmldom (`loadXmldom`).
 * @param strict - null as well when the parser reported anything (xmldom repairs broken XML
 *   silently) or when anything but white space and the XML declaration lies beside the element
 *   (xmldom keeps text after it without a word).
 */
function parse(dom: Xmldom, xml: string, strict = false): Element | null {
  let reported = false;
  const doc = new dom.DOMParser({
    errorHandler: () => {
      reported = true;
    },
  }).parseFromString(xml, 'text/xml') as unknown as Document;
  if (!strict) return doc.documentElement;
  const beside = Array.from(doc.childNodes).some(
    (n) =>
      n !== doc.documentElement &&
      !(n.nodeType === 3 && !n.nodeValue?.trim()) &&
      !(n.nodeType === 7 && n.nodeName === 'xml'),
  );
  return reported || beside ? null : doc.documentElement;
}

/** The last path segment of a status URI, for messages (`Responder`, `AuthnFailed`). */
const tail = (uri: string) => uri.slice(uri.lastIndexOf(':') + 1).slice(0, 60);

/**
 * Reads the Response's status, signatures and encryption.
 * @param xml - the Response, decoded.
 * @param decryptionKeys - Assent's encryption private keys (PEM), tried in order.
 * @throws {SamlCheckError} when the top-level StatusCode is not Success (SAML 2.0 Core §3.2.2.2:
 *   a Response that is not a success is no sign-in, whatever assertion it carries), when the
 *   EncryptedAssertion uses another algorithm than AES-GCM or AES-CBC with RSA-OAEP, or when no key
 *   decrypts it.
 */
export async function inspectResponse(xml: string, decryptionKeys: () => Promise<string[]>): Promise<ResponseShape> {
  const dom = await loadXmldom();
  const root = parse(dom, xml);
  if (!root || root.namespaceURI !== SAMLP || root.localName !== 'Response')
    throw new SamlCheckError('the message is not a SAML Response', 'the document element is not samlp:Response');
  const [status] = children(root, SAMLP, 'Status');
  const [code] = status ? children(status, SAMLP, 'StatusCode') : [];
  const value = code?.getAttribute('Value') ?? '';
  // Threat: a failed authentication turned into a sign-in by the assertion an IdP (or an attacker
  // replaying parts of one) left in an error Response; only a top-level Success signs in.
  if (value !== SUCCESS) {
    const [second] = code ? children(code, SAMLP, 'StatusCode') : [];
    const codes = [value, second?.getAttribute('Value') ?? ''].filter(Boolean).map(tail).join('/');
    throw new SamlCheckError(
      'the identity provider refused the sign-in',
      `top-level StatusCode is ${codes || 'missing'}, not Success`,
    );
  }
  const responseSigned = children(root, DS, 'Signature').length > 0;
  const [plain] = children(root, SAML, 'Assertion');
  if (plain) return { responseSigned, assertionSigned: children(plain, DS, 'Signature').length > 0 };
  const [encrypted] = children(root, SAML, 'EncryptedAssertion');
  if (!encrypted) return { responseSigned, assertionSigned: false };
  const methods = Array.from(encrypted.getElementsByTagNameNS(XENC, 'EncryptionMethod'));
  const content = methods.filter((m) => (m.parentNode as Element | null)?.localName === 'EncryptedData');
  const transport = methods.filter((m) => (m.parentNode as Element | null)?.localName === 'EncryptedKey');
  // Threat: RSA PKCS #1 v1.5 key transport (Bleichenbacher's oracle) and 3DES, which the decryption
  // library would otherwise accept.
  if (
    content.length !== 1 ||
    !CONTENT_ALGORITHMS.includes(content[0]!.getAttribute('Algorithm') ?? '') ||
    transport.length !== 1 ||
    transport[0]!.getAttribute('Algorithm') !== KEY_TRANSPORT
  )
    throw new SamlCheckError(
      ENCRYPTED_REFUSED,
      `EncryptedAssertion algorithms not accepted (content ${content.map((m) => m.getAttribute('Algorithm')).join(', ') || 'none'}; key transport ${transport.map((m) => m.getAttribute('Algorithm')).join(', ') || 'none'})`,
    );
  const causes: string[] = [];
  // node-saml's XML decryption, loaded with the first encrypted assertion, not at start-up (see `loadNodeSaml`).
  const { decryptXml } = await import('@node-saml/node-saml/lib/xml.js');
  for (const key of await decryptionKeys()) {
    let decrypted: string;
    try {
      decrypted = await decryptXml(encrypted.toString(), key);
    } catch (err) {
      causes.push(err instanceof Error ? err.message : String(err));
      continue;
    }
    // Threat: ciphertext altered by an attacker (AES-CBC has no integrity): a decryption that is not a
    // well-formed Assertion is refused before anything reads it, not repaired by the parser.
    const assertion = parse(dom, decrypted, true);
    if (!assertion || assertion.namespaceURI !== SAML || assertion.localName !== 'Assertion')
      throw new SamlCheckError(ENCRYPTED_REFUSED, 'the EncryptedAssertion does not decrypt to a well-formed Assertion');
    return { responseSigned, assertionSigned: children(assertion, DS, 'Signature').length > 0, decryptionKey: key };
  }
  throw new SamlCheckError(
    ENCRYPTED_REFUSED,
    `no published encryption key decrypts the EncryptedAssertion (${causes.join('; ')})`,
  );
}
