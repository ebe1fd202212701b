/**
 * The wallet benchmark's wallet (OpenID4VP 1.0 §8.3; RFC 9901 §4.3): a presentation of the
 * credential with a key-binding JWT for one request (`nonce`, `aud` = the full client identifier,
 * `sd_hash`), its `vp_token` encrypted for `direct_post.jwt` (ECDH-ES to the request's key, its
 * first offered `enc`, its `kid`), as the form body of `POST …/oid4vp/response`. The request object
 * is decoded, not verified: the wallet's checks are not what is measured (the tests do them).
 */
import { createHash } from 'node:crypto';
import { CompactEncrypt, decodeJwt, importJWK, SignJWT } from 'jose';

const sha256b64 = (s) => createHash('sha256').update(s).digest('base64url');

/** The parameters of a deep link: `request_uri` (haip) or the request by value. */
export function requestUriOf(deepLink) {
  const params = new URL(deepLink).searchParams;
  const uri = params.get('request_uri');
  if (!uri) throw new Error(`deep link without request_uri: ${deepLink.slice(0, 120)}`);
  return uri;
}

/** Decodes a fetched request object (compact JWS). */
export function requestPayload(jwt) {
  return decodeJwt(jwt);
}

/**
 * Builds the response of the holder to `request`.
 * @param request - the request object's payload.
 * @param credential - the compact SD-JWT (ending with `~`).
 * @param holderPrivate - the holder's key (a jose KeyLike for ES256).
 * @returns the form body (`response=<JWE>`), URL-encoded.
 */
export async function responseBody(request, credential, holderPrivate) {
  const kb = await new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    aud: request.client_id,
    nonce: request.nonce,
    sd_hash: sha256b64(credential),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
    .sign(holderPrivate);
  const queryId = request.dcql_query.credentials[0].id;
  const params = { vp_token: { [queryId]: [`${credential}${kb}`] }, state: request.state };
  const meta = request.client_metadata;
  const jwk = meta.jwks.keys[0];
  const offered = meta.encrypted_response_enc_values_supported;
  // A256GCM when offered: the raw rate (wallet-raw.mjs) measures that one.
  const enc = offered.includes('A256GCM') ? 'A256GCM' : offered[0];
  const jwe = await new CompactEncrypt(Buffer.from(JSON.stringify(params)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: jwk.kid })
    .encrypt(await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, 'ECDH-ES'));
  return new URLSearchParams({ response: jwe }).toString();
}

/** The holder's private key for KB-JWTs. */
export const holderSigner = (holder) => importJWK(holder.privateJwk, 'ES256');
