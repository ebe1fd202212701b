/**
 * ES256 compact JWS (RFC 7515 §7.1, RFC 7518 §3.4) with the key ring's active key: the one place
 * that builds signers, for Assent's tokens (`tokens.ts`) and for the documents it signs that are
 * not credentials (the consent receipts, docs/consents.md "Consent receipts"). Every kind carries
 * its own `typ` header, which each verifier pins (RFC 8725 §3.11).
 */
import { createSigner } from 'fast-jwt';
import { ALG, type KeyRing } from './keys.js';

/**
 * The `typ` of each document kind Assent signs that is not a credential. None equals a `TokenType`:
 * the auth guard pins `at+jwt` / `apikey+jwt`, so a document is never accepted as a token.
 */
export const DocumentType = { consentReceipt: 'consent-receipt+jwt' } as const;
/** One of the `DocumentType` values. */
export type DocumentType = (typeof DocumentType)[keyof typeof DocumentType];

type SignFn = (payload: Record<string, unknown>) => string;

/**
 * Signs JSON payloads ES256 with the ring's active key, `kid` and `typ` in the protected header.
 * Signers are built once per (`kid`, `typ`) (fast-jwt: synchronous node:crypto ECDSA).
 */
export class Es256Signer {
  private signers = new Map<string, SignFn>();

  /**
   * @param keys - the signing-key ring.
   * @param claims - claims fast-jwt sets on every payload (`iss`, `aud`); none when absent.
   */
  constructor(
    private readonly keys: KeyRing,
    private readonly claims: { iss?: string; aud?: string } = {},
  ) {}

  /**
   * Signs `payload` with the active key; `iat` (seconds) is added when the payload has none.
   * @param typ - the `typ` header of this kind.
   * @returns the compact JWS.
   */
  async sign(typ: string, payload: Record<string, unknown>): Promise<string> {
    const { kid, privatePem } = await this.keys.signingKey();
    const id = `${kid} ${typ}`;
    let signer = this.signers.get(id);
    if (!signer) {
      if (this.signers.size > 32) this.signers.clear(); // old kids after rotations
      signer = createSigner({
        key: privatePem,
        algorithm: ALG,
        kid,
        header: { alg: ALG, typ },
        ...this.claims,
      }) as SignFn;
      this.signers.set(id, signer);
    }
    return signer(payload);
  }
}

/**
 * Signs Assent's documents (not credentials) for anyone to verify with the JWKS
 * (`/.well-known/jwks.json`): the JWS payload is the document itself, unchanged.
 */
export class DocumentSigner {
  private readonly es256: Es256Signer;

  /** @param keys - the signing-key ring (the same keys as the tokens', told apart by `typ`). */
  constructor(keys: KeyRing) {
    this.es256 = new Es256Signer(keys);
  }

  /**
   * @param type - the document kind; its `typ` header.
   * @param document - the JSON payload; carry `iat` (seconds) in it, or fast-jwt adds one.
   * @returns the compact JWS (`alg: ES256`, `kid`, `typ`).
   */
  signDocument(type: DocumentType, document: Record<string, unknown>): Promise<string> {
    return this.es256.sign(type, document);
  }
}
