/**
 * The test wallet (docs/wallet.md "Development and tests"): it parses the deep link and resolves
 * the request with `@openid4vc/openid4vp`'s holder functions (fetching the request_uri, checking
 * the request object's x5c chain, signature and `x509_hash`), then presents a credential with key
 * binding and posts the response (`direct_post`, or `direct_post.jwt` encrypted with jose). Knobs
 * corrupt every field the negative cases of test/wallet-negative.test.ts need.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { type CallbackContext, HashAlgorithm } from '@openid4vc/oauth2';
import { Openid4vpClient, parseOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { CompactEncrypt, compactVerify, importJWK, SignJWT } from 'jose';
import type { HolderKey } from './issuer.js';

/** A resolved request: its parameters as the wallet verified them. */
export interface ResolvedRequest {
  payload: Record<string, any>;
}

/** Ways to corrupt a presentation or its response. */
export interface Knobs {
  nonce?: string;
  aud?: string;
  /** Sign the KB-JWT with this key instead of the credential's holder key. */
  kbKey?: HolderKey;
  /** Added to the KB-JWT's `iat` (seconds). */
  kbIatOffset?: number;
  sdHash?: string;
  /** Send the KB-JWT unsecured (`alg: none`, empty signature). */
  kbAlgNone?: boolean;
  noKb?: boolean;
  tamperIssuerSignature?: boolean;
  tamperDisclosure?: boolean;
  duplicateDisclosure?: boolean;
  extraDisclosure?: boolean;
  /** Claim names to disclose (default all). */
  disclose?: string[];
  /** Replaces the whole vp_token. */
  vpToken?: unknown;
  /** Send plain `direct_post` even when `direct_post.jwt` was asked. */
  plaintext?: boolean;
  /** Encrypt to this public JWK instead of the verifier's. */
  encryptTo?: JsonWebKey & { kid?: string };
  enc?: string;
  state?: string;
  /** Send this wallet error instead of a presentation. */
  error?: string;
}

/** The answer of the response_uri. */
export interface Submitted {
  status: number;
  body: any;
  /** The vp_token sent (to replay it). */
  vpToken: unknown;
}

const b64json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const sha256b64 = (s: string) => createHash('sha256').update(s).digest('base64url');

/** The wallet of one holder. */
export class TestWallet {
  /**
   * @param holder - the holder key of its credentials.
   * @param verifierAnchors - PEM CA certificates the request object's x5c must chain to; empty: pinned by x509_hash alone.
   * @param fetch - how it reaches the verifier (request_uri, response_uri); an HTTPS test passes one trusting its CA.
   */
  constructor(
    readonly holder: HolderKey,
    private readonly verifierAnchors: string[] = [],
    private readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {}

  private callbacks(): Partial<CallbackContext> {
    const anchors = this.verifierAnchors.map((p) => new X509Certificate(p));
    return {
      hash: (data, alg) => {
        if (alg !== HashAlgorithm.Sha256) throw new Error('sha-256 only');
        return createHash('sha256').update(data).digest();
      },
      getX509CertificateMetadata: () => ({ sanDnsNames: [], sanUriNames: [] }),
      fetch: (input, init) => this.fetch(input, init),
      verifyJwt: async (signer, jwt) => {
        if (signer.method !== 'x5c') return { verified: false };
        const leaf = new X509Certificate(Buffer.from(signer.x5c[0]!, 'base64'));
        const chain = signer.x5c.map((c) => new X509Certificate(Buffer.from(c, 'base64')));
        if (anchors.length > 0) {
          const top = chain[chain.length - 1]!;
          if (!anchors.some((a) => top.checkIssued(a) && top.verify(a.publicKey))) return { verified: false };
        }
        try {
          await compactVerify(jwt.compact, leaf.publicKey, { algorithms: ['ES256'] });
        } catch {
          return { verified: false };
        }
        return { verified: true, signerJwk: leaf.publicKey.export({ format: 'jwk' }) as never };
      },
    };
  }

  /**
   * Parses the deep link and resolves the request (fetching the request_uri).
   * @throws the library's error when the request object is not trusted (N17).
   */
  async resolve(deepLink: string): Promise<ResolvedRequest> {
    const parsed = parseOpenid4vpAuthorizationRequest({ authorizationRequest: deepLink });
    const client = new Openid4vpClient({ callbacks: this.callbacks() as CallbackContext });
    const resolved = await client.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
      wallet: {},
    } as never);
    return { payload: resolved.authorizationRequestPayload as Record<string, any> };
  }

  /** Builds a presentation of `credential` for `request`, with key binding unless `noKb`. */
  async presentation(request: ResolvedRequest, credential: string, k: Knobs = {}): Promise<string> {
    const parts = credential.split('~');
    let jwt = parts[0]!;
    let disclosures = parts.slice(1).filter(Boolean);
    if (k.disclose) {
      const names = new Set(k.disclose);
      disclosures = disclosures.filter((d) => names.has(JSON.parse(Buffer.from(d, 'base64url').toString())[1]));
    }
    if (k.tamperDisclosure && disclosures[0]) {
      const [salt, name] = JSON.parse(Buffer.from(disclosures[0], 'base64url').toString());
      disclosures[0] = b64json([salt, name, 'mallory@example.test']);
    }
    if (k.duplicateDisclosure && disclosures[0]) disclosures.push(disclosures[0]);
    if (k.extraDisclosure) disclosures.push(b64json(['c2FsdHNhbHRzYWx0', 'role', 'admin']));
    if (k.tamperIssuerSignature) {
      const [h, p, s] = jwt.split('.');
      const sig = Buffer.from(s!, 'base64url');
      sig[5] = (sig[5]! ^ 0xff) & 0xff;
      jwt = `${h}.${p}.${sig.toString('base64url')}`;
    }
    const presented = `${[jwt, ...disclosures].join('~')}~`;
    if (k.noKb) return presented;
    const key = k.kbKey ?? this.holder;
    const kbPayload = {
      iat: Math.floor(Date.now() / 1000) + (k.kbIatOffset ?? 0),
      aud: k.aud ?? request.payload.client_id,
      nonce: k.nonce ?? request.payload.nonce,
      sd_hash: k.sdHash ?? sha256b64(presented),
    };
    if (k.kbAlgNone) return `${presented}${b64json({ alg: 'none', typ: 'kb+jwt' })}.${b64json(kbPayload)}.`;
    const kb = await new SignJWT(kbPayload)
      .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
      .sign(await importJWK(key.privateJwk as never, 'ES256'));
    return `${presented}${kb}`;
  }

  /** Presents `credential` and posts the response to the request's response_uri. */
  async present(request: ResolvedRequest, credential: string, k: Knobs = {}): Promise<Submitted> {
    const queryId = request.payload.dcql_query.credentials[0].id as string;
    const vpToken = k.vpToken ?? { [queryId]: [await this.presentation(request, credential, k)] };
    return this.submit(request, vpToken, k);
  }

  /** Posts a response with this vp_token (or a wallet error) to the request's response_uri. */
  async submit(request: ResolvedRequest, vpToken: unknown, k: Knobs = {}): Promise<Submitted> {
    const state = k.state ?? request.payload.state;
    const params: Record<string, unknown> = k.error ? { error: k.error, state } : { vp_token: vpToken, state };
    let form: URLSearchParams;
    if (request.payload.response_mode === 'direct_post.jwt' && !k.plaintext) {
      const meta = request.payload.client_metadata;
      const jwk = k.encryptTo ?? meta.jwks.keys[0];
      const jwe = await new CompactEncrypt(Buffer.from(JSON.stringify(params)))
        .setProtectedHeader({
          alg: 'ECDH-ES',
          enc: k.enc ?? meta.encrypted_response_enc_values_supported[0],
          kid: k.encryptTo?.kid ?? meta.jwks.keys[0].kid,
        })
        .encrypt(await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as never, 'ECDH-ES'));
      form = new URLSearchParams({ response: jwe });
    } else {
      form = new URLSearchParams();
      for (const [key, v] of Object.entries(params)) form.set(key, typeof v === 'string' ? v : JSON.stringify(v));
    }
    const res = await this.fetch(request.payload.response_uri, { method: 'POST', body: form });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, vpToken };
  }
}
