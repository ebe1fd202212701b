/**
 * The OpenID4VP 1.0 request of one transaction (docs/wallet.md "Wallet settings", `profile`, and
 * "The verifier"), made with `@openid4vc/openid4vp`
 * (docs/decisions/0015-wallet-sign-in-libraries.md §3):
 * - `haip`: client id `x509_hash:…` (§5.9.3), a request object signed ES256 with the verifier's
 *   `x5c` (RFC 9101; `typ oauth-authz-req+jwt`), fetched once by `request_uri`;
 * - `compat`: client id `redirect_uri:<response_uri>`, which may not be signed (§5.9.3), so its
 *   parameters travel by value in the deep link (`@openid4vc` refuses a request object for it).
 * `direct_post.jwt` (§8.3) carries a fresh ECDH-ES P-256 key per transaction in `client_metadata`.
 */
import { createHash, createPrivateKey, type KeyObject, randomBytes } from 'node:crypto';
import type { JwtSigner } from '@openid4vc/oauth2';
import { parseCertificates, x5cEntry, x509HashClientId } from './pem.js';
import type { Verifier } from './settings.js';

/** Lifetime of a transaction and its request object (seconds): docs/wallet.md "The verifier". */
export const TRANSACTION_TTL_SECONDS = 300;

/** 256 random bits, base64url: nonces, states, request IDs and response codes (OpenID4VP 1.0 §14.1). */
export const random = () => randomBytes(32).toString('base64url');

/** What a new transaction stores and shows. */
export interface BuiltRequest {
  /** `openid4vp://?client_id=…&request_uri=…` (or the parameters by value in `compat`). */
  deepLink: string;
  /** The request's parameters, kept to check the response against. */
  requestPayload: Record<string, unknown>;
  /** The signed request object to serve at the request_uri; null in `compat`. */
  requestJwt: string | null;
  vpState: string;
  /** `kid` and private JWK (JSON) of the ephemeral response-encryption key; null for plain `direct_post`. */
  encKid: string | null;
  encPrivateJwk: string | null;
}

/** Where the wallet fetches the request object and posts its response, under the provider's issuer. */
export function walletEndpoints(issuer: string, requestId: string) {
  return { requestUri: `${issuer}/oid4vp/request/${requestId}`, responseUri: `${issuer}/oid4vp/response` };
}

/** What a verifier signs with, derived from its settings once per process (`verifierMaterial`). */
interface VerifierMaterial {
  key: KeyObject;
  clientId: string;
  x5c: string[];
  signerJwk: Record<string, string> & { kty: string };
}

/** Most verifiers remembered (count); the oldest goes first. */
const MAX_VERIFIERS = 1000;
const materials = new Map<string, VerifierMaterial>();

/**
 * The verifier's private key, `x509_hash` client identifier, `x5c` and public JWK: parsed from the
 * settings' PEM once per process, not at every new transaction. Keyed by a SHA-256 of the key and
 * chain, so a changed setting is parsed afresh and no PEM text is kept as a key.
 */
function verifierMaterial(verifier: Verifier): VerifierMaterial {
  const chain = verifier.policy.verifierCertificateChain;
  const id = createHash('sha256').update(verifier.keyPem).update(chain.join('')).digest('base64url');
  const known = materials.get(id);
  if (known) return known;
  const certs = chain.map((p) => parseCertificates(p)[0]!);
  const leaf = certs[0]!;
  const made: VerifierMaterial = {
    key: createPrivateKey(verifier.keyPem),
    clientId: x509HashClientId(leaf),
    x5c: certs.map(x5cEntry),
    signerJwk: { ...(leaf.publicKey.export({ format: 'jwk' }) as Record<string, string>), kty: 'EC' },
  };
  if (materials.size >= MAX_VERIFIERS) materials.delete(materials.keys().next().value!);
  materials.set(id, made);
  return made;
}

/**
 * Builds the request of a new transaction.
 * @param verifier - the organisation's settings and key.
 * @param issuer - `{publicUrl}/v3/service/extension/oidc/{orgId}` (docs/wallet.md "The OpenID provider").
 * @param requestId - the random ID in the request_uri.
 * @throws the library's ValidationError if a URL is not https (only loopback http is allowed, see flow.ts).
 */
export async function buildRequest(verifier: Verifier, issuer: string, requestId: string): Promise<BuiltRequest> {
  // Loaded with the first request, not at start-up: a process that signs no one in with a wallet need not load them.
  const [{ createOpenid4vpAuthorizationRequest }, { exportJWK, generateKeyPair, SignJWT }] = await Promise.all([
    import('@openid4vc/openid4vp'),
    import('jose'),
  ]);
  const { policy } = verifier;
  const { requestUri, responseUri } = walletEndpoints(issuer, requestId);
  const material = verifierMaterial(verifier);
  const encrypted = policy.responseEncryption.length > 0;
  const vpState = random();
  let encKid: string | null = null;
  let encPrivateJwk: string | null = null;
  const clientMetadata: Record<string, unknown> = {
    vp_formats_supported: { 'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] } },
  };
  if (encrypted) {
    const pair = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    encKid = random();
    const pub = { ...(await exportJWK(pair.publicKey)), kid: encKid, use: 'enc', alg: 'ECDH-ES' };
    encPrivateJwk = JSON.stringify({ ...(await exportJWK(pair.privateKey)), kid: encKid });
    clientMetadata.jwks = { keys: [pub] };
    clientMetadata.encrypted_response_enc_values_supported = policy.responseEncryption;
  }
  const haip = policy.profile === 'haip';
  const payload = {
    response_type: 'vp_token' as const,
    client_id: haip ? material.clientId : `redirect_uri:${responseUri}`,
    response_mode: encrypted ? ('direct_post.jwt' as const) : ('direct_post' as const),
    response_uri: responseUri,
    nonce: random(),
    state: vpState,
    dcql_query: policy.dcqlQuery as Record<string, unknown>,
    client_metadata: clientMetadata,
  };
  const signer: JwtSigner = { method: 'x5c', x5c: material.x5c, alg: 'ES256' };
  const made = await createOpenid4vpAuthorizationRequest({
    scheme: policy.deepLinkScheme,
    authorizationRequestPayload: payload,
    ...(haip
      ? {
          jar: {
            requestUri,
            jwtSigner: signer,
            expiresInSeconds: TRANSACTION_TTL_SECONDS,
            additionalJwtPayload: { aud: 'https://self-issued.me/v2' },
          },
        }
      : {}),
    callbacks: {
      signJwt: async (_signer, jwt) => ({
        jwt: await new SignJWT(jwt.payload).setProtectedHeader({ ...jwt.header, alg: 'ES256' }).sign(material.key),
        signerJwk: material.signerJwk,
      }),
      encryptJwe: () => {
        throw new Error('the verifier encrypts no request');
      },
    },
  });
  return {
    deepLink: made.authorizationRequest,
    requestPayload: made.authorizationRequestPayload as Record<string, unknown>,
    requestJwt: (made.jar as { authorizationRequestJwt?: string } | undefined)?.authorizationRequestJwt ?? null,
    vpState,
    encKid,
    encPrivateJwk,
  };
}
