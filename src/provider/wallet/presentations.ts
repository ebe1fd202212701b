/**
 * The `vp_token` of a verified response (docs/wallet.md "Verification steps", steps 5–7; OpenID4VP
 * 1.0 §8.1, §6): its shape (an object keyed by credential query IDs, each an array of
 * presentations, one unless the query says `multiple`), each presentation verified, and the DCQL
 * query satisfied.
 */
import { DcqlPresentationResult, type DcqlQuery } from 'dcql';
import { type PresentationContext, type VerifiedCredential, verifyPresentation } from './credential.js';
import { PresentationError } from './errors.js';

const shape = (why: string) => new PresentationError('vp_token', `vp_token: ${why}`);

function rawToken(value: unknown): Record<string, unknown> {
  let token = value;
  if (typeof token === 'string') {
    try {
      token = JSON.parse(token);
    } catch {
      throw shape('must be a JSON object keyed by credential query ID');
    }
  }
  if (!token || typeof token !== 'object' || Array.isArray(token))
    throw shape('must be a JSON object keyed by credential query ID');
  return token as Record<string, unknown>;
}

/**
 * Verifies every presentation of a `vp_token` and the query.
 * @param vpToken - the response's `vp_token` (object, or its JSON in a plain form post).
 * @param query - the transaction's DCQL query.
 * @param ctx - what every presentation must match (its `vctValues` is set per query here).
 * @returns the verified credentials (at least one).
 * @throws {PresentationError} `vp_token`, `dcql`, or the check of a presentation that failed.
 */
export async function verifyVpToken(
  vpToken: unknown,
  query: DcqlQuery,
  ctx: Omit<PresentationContext, 'vctValues'>,
): Promise<VerifiedCredential[]> {
  const token = rawToken(vpToken);
  const byId = new Map(query.credentials.map((c) => [c.id, c]));
  const entries = Object.entries(token);
  if (entries.length === 0) throw shape('is empty');
  for (const [id, value] of entries) {
    const cq = byId.get(id);
    if (!cq) throw shape('names a credential query that was not asked');
    if (!Array.isArray(value) || value.length === 0) throw shape('each entry must be a non-empty array');
    if (value.length > 1 && !cq.multiple) throw shape('more than one presentation for a query without multiple');
  }
  // Loaded with the first response, not at start-up: a process that signs no one in with a wallet need not load it.
  const { parseDcqlVpToken } = await import('@openid4vc/openid4vp');
  try {
    parseDcqlVpToken(token as never);
  } catch {
    throw shape('is not a DCQL vp_token');
  }
  const verified: VerifiedCredential[] = [];
  const forDcql: Record<string, unknown[]> = {};
  for (const [id, value] of entries) {
    const cq = byId.get(id)!;
    const vctValues = ((cq as { meta?: { vct_values?: string[] } }).meta?.vct_values ?? []) as string[];
    forDcql[id] = [];
    for (const presentation of value as unknown[]) {
      const cred = await verifyPresentation(presentation as string, { ...ctx, vctValues });
      verified.push(cred);
      forDcql[id]!.push({
        credential_format: 'dc+sd-jwt',
        vct: cred.vct,
        claims: cred.claims,
        cryptographic_holder_binding: true,
      });
    }
  }
  try {
    const result = DcqlPresentationResult.fromDcqlPresentation(forDcql as never, { dcqlQuery: query });
    if (!result.can_be_satisfied) throw new Error('unsatisfied');
    DcqlPresentationResult.validate(result);
  } catch {
    throw new PresentationError('dcql', 'the presentations do not satisfy the query');
  }
  return verified;
}
