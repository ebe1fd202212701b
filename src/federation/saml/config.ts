/**
 * The SAML IdP configuration of an organisation (docs/federation.md "SAML 2.0"): its HTTP shape and
 * its validation. The IdP is described by its metadata (inline XML, or a URL fetched once through
 * the SSRF guard when saved) or by its entity ID, SSO URL and signing certificates; fields sent
 * beside the metadata override what it says.
 */
import { type Static, Type } from 'typebox';
import { InvalidRequest } from '../../platform/core/errors.js';
import { idpUrlProblem } from '../openid/config.js';
import { certificatePem, type IdpMetadata } from './metadata.js';

/** SAML 2.0 Core §8.3.7: a persistent, opaque, per-SP identifier: the one the link is made by. */
export const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
/** SAML 2.0 Core §8.3.1: the IdP's own choice, stable per IdP. */
export const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
/**
 * NameID formats a link may be made by. Threat: an account taken over through a NameID that is no
 * stable identifier: transient ones change every sign-in, and e-mail ones are an e-mail address,
 * which Assent never links by (docs/decisions/0013-federation-broker.md).
 */
export const NAME_ID_FORMATS = [PERSISTENT, UNSPECIFIED] as const;
/** Most signing certificates one configuration holds (count): the current one and its successor. */
const MAX_CERTIFICATES = 4;

const Mapping = Type.Object({
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});

/** The request body of POST and PUT; on PUT every field is optional and absent ones keep their value. */
export const SamlInput = Type.Object({
  metadataXml: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500_000, description: 'the IdP metadata; read when saved, not kept' }),
  ),
  metadataUrl: Type.Optional(
    Type.String({ maxLength: 2000, description: 'fetched when saved (SSRF-guarded, 5 s); "" for none' }),
  ),
  entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  ssoUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'SingleSignOnService, HTTP-Redirect binding' })),
  sloUrl: Type.Optional(
    Type.String({ maxLength: 2000, description: 'SingleLogoutService (HTTP-Redirect); "" for none' }),
  ),
  signingCertificates: Type.Optional(
    Type.Array(Type.String({ maxLength: 20_000 }), { minItems: 1, maxItems: MAX_CERTIFICATES }),
  ),
  nameIdFormat: Type.Optional(Type.String({ maxLength: 200, description: `default ${PERSISTENT}` })),
  attributeMapping: Type.Optional(Mapping),
  signAuthnRequests: Type.Optional(Type.Boolean({ description: 'sign AuthnRequests; default true' })),
  allowUnsolicited: Type.Optional(
    Type.Boolean({ description: 'accept IdP-initiated responses (RelayState = a registered app URI); default false' }),
  ),
});
/** A POST or PUT body. */
export type SamlInput = Static<typeof SamlInput>;

/** The answer of GET, POST and PUT, with Assent's own SP values to register at the IdP. */
export const SamlBody = Type.Object({
  metadataUrl: Type.String(),
  entityId: Type.String(),
  ssoUrl: Type.String(),
  sloUrl: Type.String(),
  signingCertificates: Type.Array(Type.String()),
  nameIdFormat: Type.String(),
  attributeMapping: Type.Object({ email: Type.String(), name: Type.String(), phone: Type.String() }),
  signAuthnRequests: Type.Boolean(),
  allowUnsolicited: Type.Boolean(),
  spEntityId: Type.String({ description: 'Assent’s entity ID: its metadata URL' }),
  acsUrl: Type.String({ description: 'AssertionConsumerService (HTTP-POST)' }),
  spSloUrl: Type.String({ description: 'SingleLogoutService (HTTP-Redirect and HTTP-POST)' }),
});

/** A complete configuration, as stored. */
export interface SamlSettings {
  metadataUrl: string;
  entityId: string;
  ssoUrl: string;
  sloUrl: string;
  signingCertificates: string[];
  nameIdFormat: string;
  attributeMapping: { email: string; name: string; phone: string };
  signAuthnRequests: boolean;
  allowUnsolicited: boolean;
}

/** Every stored field, for the audit's list of changed fields. */
export const SAML_FIELDS = [
  'metadataUrl',
  'entityId',
  'ssoUrl',
  'sloUrl',
  'signingCertificates',
  'nameIdFormat',
  'attributeMapping',
  'signAuthnRequests',
  'allowUnsolicited',
] as const satisfies readonly (keyof SamlSettings)[];

/** The attribute names of a new configuration: eduPerson / inetOrgPerson names, as most IdPs release them. */
export const DEFAULT_MAPPING = { email: 'email', name: 'displayName', phone: 'telephoneNumber' };

/**
 * Merges a POST or PUT body (and the metadata it named) onto the stored settings and validates the result.
 * @param input - the body.
 * @param metadata - what `metadataXml` or `metadataUrl` said, or null; explicit fields win over it.
 * @param stored - the current settings (PUT), or null (POST).
 * @param allowHttpHosts - `ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`.
 * @throws {InvalidRequest} naming every field that is missing or invalid.
 */
export function mergeSamlSettings(
  input: SamlInput,
  metadata: IdpMetadata | null,
  stored: SamlSettings | null,
  allowHttpHosts: readonly string[],
): SamlSettings {
  const base: SamlSettings = stored ?? {
    metadataUrl: '',
    entityId: '',
    ssoUrl: '',
    sloUrl: '',
    signingCertificates: [],
    nameIdFormat: PERSISTENT,
    attributeMapping: DEFAULT_MAPPING,
    signAuthnRequests: true,
    allowUnsolicited: false,
  };
  const { metadataXml: _xml, attributeMapping, ...fields } = input;
  const merged: SamlSettings = { ...base, ...(metadata ?? {}) };
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined)
      (merged as unknown as Record<string, unknown>)[key] = typeof value === 'string' ? value.trim() : value;
  if (input.metadataXml !== undefined && input.metadataUrl === undefined) merged.metadataUrl = '';
  merged.attributeMapping = { ...merged.attributeMapping, ...attributeMapping };
  const problems: string[] = [];
  if (!merged.entityId) problems.push('entityId: required (or metadataXml / metadataUrl)');
  if (!merged.ssoUrl) problems.push('ssoUrl: required (or metadata with an HTTP-Redirect SingleSignOnService)');
  for (const key of ['ssoUrl', 'sloUrl', 'metadataUrl'] as const) {
    const problem = merged[key] ? idpUrlProblem(merged[key], allowHttpHosts) : null;
    if (problem) problems.push(`${key}: ${problem}`);
  }
  const pems = merged.signingCertificates.map(certificatePem);
  pems.forEach((pem, i) => {
    if (!pem) problems.push(`signingCertificates[${i}]: not an X.509 certificate (PEM or base64 DER)`);
  });
  if (pems.length === 0) problems.push('signingCertificates: at least one is required');
  if (pems.length > MAX_CERTIFICATES) problems.push(`signingCertificates: at most ${MAX_CERTIFICATES}`);
  if (!(NAME_ID_FORMATS as readonly string[]).includes(merged.nameIdFormat))
    problems.push(`nameIdFormat: must be one of ${NAME_ID_FORMATS.join(', ')} (a stable identifier to link by)`);
  if (problems.length > 0) throw new InvalidRequest(`Invalid SAML IdP configuration: ${problems.join('; ')}`);
  return { ...merged, signingCertificates: pems as string[] };
}

/** Assent's SP values of one organisation (SAML 2.0 Metadata §2.4.4). */
export interface SpEndpoints {
  spEntityId: string;
  acsUrl: string;
  spSloUrl: string;
}

/**
 * The answer body.
 * @param settings - the stored settings.
 * @param sp - Assent's entity ID, ACS and SLO URLs for the organisation.
 */
export function presentSamlSettings(settings: SamlSettings, sp: SpEndpoints): Static<typeof SamlBody> {
  return { ...settings, ...sp };
}
