/**
 * The audit log's tamper evidence (docs/decisions/0033-audit-log-chain.md; docs/audit.md "Verification"), as for the
 * consent history (docs/decisions/0005-consent-evidence.md): each entry is hashed over its RFC 8785 canonical JSON, and
 * the hashes are chained per organisation, `link(n) = SHA-256(link(n-1) ‖ SHA-256(entry n))`, from 32 zero bytes.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditRow } from './store.js';

/** The link before an organisation's first entry (32 bytes). */
export const AUDIT_GENESIS_LINK = Buffer.alloc(32);

/**
 * Exactly what an entry's hash covers: every stored field but the link itself.
 * @param row - a stored entry.
 * @param seq - its place in the chain (from 1).
 */
function hashedContent(row: AuditRow, seq: number) {
  return {
    id: row.id,
    orgId: row.orgId,
    seq,
    at: row.at.toISOString(),
    actor: {
      userId: row.actorUserId ?? '',
      apiKeyId: row.actorApiKeyId ?? '',
      name: row.actorName,
      email: row.actorEmail,
    },
    source: row.source,
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    changes: row.changes,
    detail: row.detail,
    requestId: row.requestId,
    clientIp: row.clientIp,
  };
}

/**
 * The chain link of an entry at `seq` after `prevLink`.
 * @param row - the stored entry (its own `seq` and `link` are not read).
 * @param seq - its place in the chain (from 1).
 * @param prevLink - its predecessor's link (32 bytes).
 * @returns 32 bytes.
 */
export function auditLink(row: AuditRow, seq: number, prevLink: Buffer): Buffer {
  const content = createHash('sha256')
    .update(canonicalize(hashedContent(row, seq)) ?? '', 'utf8')
    .digest();
  return createHash('sha256').update(prevLink).update(content).digest();
}

/**
 * Checks one sealed entry against its expected place.
 * @param row - the stored entry, read in `seq` order.
 * @param expectedSeq - the seq it should have (its predecessor's + 1).
 * @param prevLink - its predecessor's stored link (32 bytes).
 * @returns null when it holds, else why not.
 */
export function checkEntry(row: AuditRow, expectedSeq: number, prevLink: Buffer): string | null {
  if (row.seq !== expectedSeq) return `entry ${expectedSeq} is missing (found ${row.seq})`;
  if (!row.link || !auditLink(row, expectedSeq, prevLink).equals(row.link))
    return 'the entry does not match its link: its content or its link was changed';
  return null;
}
