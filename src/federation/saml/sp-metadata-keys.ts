/**
 * The key parts of Assent's SP metadata (SAML 2.0 Metadata §2.4.1.1 KeyDescriptor, §2.4.4
 * `AuthnRequestsSigned`), written over what node-saml generates: node-saml publishes one encryption
 * certificate and says `AuthnRequestsSigned="true"` whenever it is given a signing key, while
 * Assent publishes every signing and encryption certificate of its rings (`sp-keys.ts`: active,
 * staged, retired within the overlap) and says whether it signs AuthnRequests for this organisation.
 */
import { loadXmldom } from './checks.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
/** The content encryption algorithms node-saml's decryption (xml-encryption) supports, strongest first. */
const ENCRYPTION_METHODS = [
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
  'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
];

/** What the SPSSODescriptor says about keys. */
export interface SpKeyDescriptors {
  /** Whether AuthnRequests are signed (the organisation's `signAuthnRequests`). */
  authnRequestsSigned: boolean;
  /** PEM certificates of `use="signing"`, the active one first. */
  signing: string[];
  /** PEM certificates of `use="encryption"`, the active one first. */
  encryption: string[];
}

const base64Of = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

/**
 * Replaces the SPSSODescriptor's KeyDescriptors and `AuthnRequestsSigned` in `xml`.
 * @param xml - SP metadata (an EntityDescriptor with one SPSSODescriptor).
 * @returns the metadata, the KeyDescriptors first in the SPSSODescriptor as the schema orders them.
 * @throws {Error} when `xml` has no SPSSODescriptor.
 */
export async function withKeyDescriptors(xml: string, keys: SpKeyDescriptors): Promise<string> {
  const { DOMParser, XMLSerializer } = await loadXmldom();
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const sp = doc.getElementsByTagNameNS(MD, 'SPSSODescriptor')[0];
  if (!sp) throw new Error('SP metadata without an SPSSODescriptor');
  sp.setAttribute('AuthnRequestsSigned', String(keys.authnRequestsSigned));
  for (const old of Array.from(sp.getElementsByTagNameNS(MD, 'KeyDescriptor'))) sp.removeChild(old);
  const first = sp.firstChild;
  const descriptor = (use: 'signing' | 'encryption', pem: string) => {
    const kd = doc.createElementNS(MD, 'KeyDescriptor');
    kd.setAttribute('use', use);
    const info = doc.createElementNS(DS, 'ds:KeyInfo');
    const data = doc.createElementNS(DS, 'ds:X509Data');
    const cert = doc.createElementNS(DS, 'ds:X509Certificate');
    cert.appendChild(doc.createTextNode(base64Of(pem)));
    data.appendChild(cert);
    info.appendChild(data);
    kd.appendChild(info);
    if (use === 'encryption')
      for (const algorithm of ENCRYPTION_METHODS) {
        const method = doc.createElementNS(MD, 'EncryptionMethod');
        method.setAttribute('Algorithm', algorithm);
        kd.appendChild(method);
      }
    sp.insertBefore(kd, first);
  };
  for (const pem of keys.signing) descriptor('signing', pem);
  for (const pem of keys.encryption) descriptor('encryption', pem);
  return new XMLSerializer().serializeToString(doc);
}
