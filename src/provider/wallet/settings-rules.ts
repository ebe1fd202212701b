/**
 * The rules of an organisation's wallet settings (docs/wallet.md "Wallet settings"; docs/api.md "Authorization endpoint";
 * OpenID4VP 1.0 §5.9.3, §6, §14.4; HAIP 1.0): the fields, their defaults and what makes each
 * invalid. Both the admin API and `assent import` apply them, so a file cannot store what the API
 * refuses.
 */
import { createPrivateKey, type KeyObject, type X509Certificate } from 'node:crypto';
import { DcqlQuery } from 'dcql';
import { parseCertificates } from './pem.js';

/** `haip`: x509_hash, signed request by request_uri; `compat`: `redirect_uri:` client id, request by value. */
export type WalletProfile = 'haip' | 'compat';
/** Content encryption of `direct_post.jwt` responses (HAIP 1.0 §5; JWA RFC 7518 §5.3). */
export type ResponseEnc = 'A128GCM' | 'A256GCM';

/** The settings as an admin sends them (`PUT`) or an import file lists them; every field optional. */
export interface WalletSettingsInput {
  profile?: string;
  /** PEM, leaf first. */
  verifierCertificateChain?: string;
  /** PKCS#8 (or SEC1) PEM of the leaf's P-256 key; write-only. */
  verifierPrivateKey?: string;
  generateVerifierKey?: boolean;
  /** PEM certificates, one trust anchor each. */
  trustedIssuerCertificates?: string[];
  dcqlQuery?: unknown;
  /** ID-token claim → credential claim path (DCQL claims path pointer of strings). */
  claimMapping?: Record<string, unknown>;
  stableClaim?: string;
  sameDeviceOnly?: boolean;
  deepLinkScheme?: string;
  /** `[]` means plain `direct_post`; otherwise `direct_post.jwt` with these `enc` values. */
  responseEncryption?: string[];
}

/** The settings a transaction runs under (no private key): the defaults applied. */
export interface VerifierPolicy {
  profile: WalletProfile;
  /** PEM certificates, leaf first. */
  verifierCertificateChain: string[];
  trustedIssuerCertificates: string[];
  dcqlQuery: DcqlQuery;
  claimMapping: Record<string, string[]>;
  stableClaim: string;
  sameDeviceOnly: boolean;
  deepLinkScheme: string;
  responseEncryption: ResponseEnc[];
}

/** The default query: an e-mail address credential (iGrant's Authenticator; docs/wallet.md "Wallet settings"). */
export const DEFAULT_DCQL_QUERY = {
  credentials: [
    {
      id: 'authenticator',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['io.igrant.authenticator'] },
      claims: [{ path: ['email_address'] }],
    },
  ],
};
/** The default mapping: the ID token's `email` from `email_address` (then `email_verified: true`). */
export const DEFAULT_CLAIM_MAPPING = { email: ['email_address'] };
const ENCS: readonly ResponseEnc[] = ['A128GCM', 'A256GCM'];
const PROFILES: readonly WalletProfile[] = ['haip', 'compat'];
/** ID-token claims the provider sets itself (OIDC Core §2, §5.1): a mapping cannot forge them. */
const RESERVED_CLAIMS = new Set([
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'nbf',
  'nonce',
  'auth_time',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  'sid',
  'jti',
  'email_verified',
]);
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const SCHEME = /^[a-z][a-z0-9+.-]{0,30}:\/\/$/;
/**
 * Schemes a deep link may never use, whatever their spelling. Threat: the sign-in page's "Open in
 * wallet" link (and the QR code) running script in the provider's origin (`javascript:`,
 * `vbscript:`, `data:`), opening local or in-memory content (`file:`, `blob:`, `filesystem:`,
 * `about:`, `view-source:`), or carrying the request in clear text (`http:`, `ws:`, `ftp:`).
 */
const FORBIDDEN_SCHEMES = new Set([
  'javascript',
  'vbscript',
  'livescript',
  'data',
  'file',
  'blob',
  'filesystem',
  'about',
  'view-source',
  'http',
  'ws',
  'wss',
  'ftp',
]);

/**
 * The problem of a `deepLinkScheme`, or null (docs/wallet.md "Wallet settings"): a custom scheme
 * `name://` (OpenID4VP 1.0 §13.1 `openid4vp://`, HAIP's `haip-vp://`, `eudi-openid4vp://`) or an
 * https universal link with a host and no query, fragment or credentials; never one of
 * `FORBIDDEN_SCHEMES`.
 * @param value - the setting as given.
 */
function deepLinkSchemeProblem(value: string): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme && FORBIDDEN_SCHEMES.has(scheme))
    return `deepLinkScheme: ${scheme}: is not allowed; use a custom scheme such as openid4vp:// or an https universal link`;
  if (scheme === 'https' && value.startsWith('https://') && URL.canParse(value) && !/[\s\\]/.test(value)) {
    const url = new URL(value);
    if (url.hostname && !url.username && !url.password && !url.search && !url.hash && !value.includes('?')) return null;
  }
  if (SCHEME.test(value) && scheme !== 'https') return null;
  return 'deepLinkScheme: must be a custom scheme such as openid4vp:// or haip-vp://, or an https universal link such as https://wallet.example/openid4vp';
}
/** Most trust anchors per organisation (count). */
export const MAX_ANCHORS = 20;

function dcqlProblems(raw: unknown): string[] {
  let query: DcqlQuery;
  try {
    query = DcqlQuery.parse(raw as DcqlQuery.Input);
    DcqlQuery.validate(query);
  } catch {
    return ['dcqlQuery: is not a valid DCQL query (OpenID4VP 1.0 §6)'];
  }
  const out: string[] = [];
  query.credentials.forEach((c, i) => {
    // dcql accepts a dc+sd-jwt query without meta; OpenID4VP 1.0 §B.3.5 requires vct_values.
    const vcts = (c as { meta?: { vct_values?: unknown } }).meta?.vct_values;
    if (c.format !== 'dc+sd-jwt') out.push(`dcqlQuery.credentials[${i}].format: must be dc+sd-jwt`);
    else if (!Array.isArray(vcts) || vcts.length === 0)
      out.push(`dcqlQuery.credentials[${i}].meta.vct_values: required, at least one vct`);
  });
  return out;
}

function mappingProblems(raw: Record<string, unknown>): string[] {
  const entries = Object.entries(raw);
  if (entries.length > 30) return ['claimMapping: at most 30 claims'];
  return entries.flatMap(([claim, path]) => {
    if (!CLAIM_NAME.test(claim)) return [`claimMapping.${claim.slice(0, 64)}: not a claim name`];
    if (RESERVED_CLAIMS.has(claim)) return [`claimMapping.${claim}: set by the provider, cannot be mapped`];
    const ok =
      Array.isArray(path) &&
      path.length > 0 &&
      path.length <= 8 &&
      path.every((p) => typeof p === 'string' && p.length > 0 && p.length <= 100);
    return ok ? [] : [`claimMapping.${claim}: must be a claims path of 1 to 8 strings`];
  });
}

function certProblems(
  field: string,
  pems: string[],
  wantCa: boolean,
): { problems: string[]; certs: X509Certificate[] } {
  const certs: X509Certificate[] = [];
  const problems: string[] = [];
  pems.forEach((pem, i) => {
    try {
      const parsed = parseCertificates(pem);
      if (parsed.length !== 1) problems.push(`${field}[${i}]: must hold exactly one PEM certificate`);
      else if (wantCa && !parsed[0]!.ca) problems.push(`${field}[${i}]: is not a CA certificate`);
      else certs.push(parsed[0]!);
    } catch {
      problems.push(`${field}[${i}]: is not a PEM certificate`);
    }
  });
  return { problems, certs };
}

/**
 * Reads a verifier key and checks it against the chain's leaf (a P-256 key, the leaf's public key).
 * @returns the problem, or null.
 */
export function keyProblem(keyPem: string, chain: readonly X509Certificate[]): string | null {
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    return 'verifierPrivateKey: is not a PEM private key';
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    return 'verifierPrivateKey: must be a P-256 key (ES256, HAIP 1.0 §7)';
  const leaf = chain[0];
  if (!leaf) return null;
  const pub = leaf.publicKey.export({ format: 'jwk' });
  const fromKey = key.export({ format: 'jwk' });
  if (pub.x !== fromKey.x || pub.y !== fromKey.y)
    return 'verifierPrivateKey: does not match the public key of the chain’s first certificate';
  return null;
}

/**
 * Checks a certificate chain of the verifier (PEM, leaf first, each issued by the next).
 * @returns the problems and the certificates.
 */
export function chainProblems(pem: string): { problems: string[]; certs: X509Certificate[] } {
  let certs: X509Certificate[];
  try {
    certs = parseCertificates(pem);
  } catch {
    return { problems: ['verifierCertificateChain: holds a block that is not a certificate'], certs: [] };
  }
  if (certs.length === 0 || certs.length > 5)
    return { problems: ['verifierCertificateChain: must hold 1 to 5 PEM certificates, leaf first'], certs };
  for (let i = 0; i + 1 < certs.length; i++)
    if (!certs[i]!.checkIssued(certs[i + 1]!))
      return { problems: [`verifierCertificateChain[${i}]: is not issued by the next certificate`], certs };
  return { problems: [], certs };
}

/**
 * Applies the defaults and checks every field but the key (see `keyProblem`, `chainProblems`).
 * @returns the policy (without the verifier chain, which the caller sets) and every problem as `field: problem`.
 */
export function policyFrom(input: WalletSettingsInput): {
  policy: Omit<VerifierPolicy, 'verifierCertificateChain'>;
  problems: string[];
} {
  const problems: string[] = [];
  const profile = (input.profile ?? 'haip') as WalletProfile;
  if (!PROFILES.includes(profile)) problems.push('profile: must be haip or compat');
  const anchors = input.trustedIssuerCertificates ?? [];
  if (anchors.length === 0 || anchors.length > MAX_ANCHORS)
    problems.push(`trustedIssuerCertificates: 1 to ${MAX_ANCHORS} PEM CA certificates are required`);
  else problems.push(...certProblems('trustedIssuerCertificates', anchors, true).problems);
  const dcqlQuery = (input.dcqlQuery ?? DEFAULT_DCQL_QUERY) as DcqlQuery;
  problems.push(...dcqlProblems(dcqlQuery));
  const claimMapping = (input.claimMapping ?? DEFAULT_CLAIM_MAPPING) as Record<string, string[]>;
  problems.push(...mappingProblems(claimMapping));
  const stableClaim = input.stableClaim ?? 'email_address';
  if (!CLAIM_NAME.test(stableClaim)) problems.push('stableClaim: not a claim name');
  else if (
    problems.every((p) => !p.startsWith('dcqlQuery')) &&
    !dcqlQuery.credentials.every((c) => (c.claims ?? []).some((cl) => 'path' in cl && cl.path[0] === stableClaim))
  )
    problems.push('stableClaim: every credential of dcqlQuery must request it (OpenID4VP 1.0 §14.4)');
  const deepLinkScheme = input.deepLinkScheme ?? 'openid4vp://';
  const schemeProblem = deepLinkSchemeProblem(deepLinkScheme);
  if (schemeProblem) problems.push(schemeProblem);
  const encs = input.responseEncryption ?? (profile === 'compat' ? [] : [...ENCS]);
  if (encs.some((e) => !ENCS.includes(e as ResponseEnc)) || new Set(encs).size !== encs.length)
    problems.push('responseEncryption: each of A128GCM, A256GCM at most once ([] for plain direct_post)');
  return {
    policy: {
      profile,
      trustedIssuerCertificates: anchors,
      dcqlQuery,
      claimMapping,
      stableClaim,
      sameDeviceOnly: input.sameDeviceOnly ?? false,
      deepLinkScheme,
      responseEncryption: encs as ResponseEnc[],
    },
    problems,
  };
}
