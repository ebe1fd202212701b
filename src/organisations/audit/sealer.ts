/**
 * Seals audit entries into their organisation's hash chain just after they commit
 * (docs/decisions/0033-audit-log-chain.md), as the consent history's sealer does (src/consent/evidence/sealer.ts): a
 * change writes its entry unsealed in its own transaction; the sealer numbers and links every committed unsealed
 * entry of the organisation in one transaction under the head's row lock. Changes never wait for one another's
 * commit on the head, and none can deadlock on it. Readers (`flush`) and a sweep every second seal what is waiting.
 */
import type { Db } from '../../platform/db/open.js';
import { PostCommitWorker } from '../../platform/jobs/post-commit.js';
import { auditLink } from './chain.js';
import * as store from './seal-store.js';

/** Entries sealed per transaction at most (count). */
const BATCH = 1000;
/** How long a wake waits before sealing (milliseconds), so that the entries of that moment are sealed together. */
const COALESCE_MS = 20;

/**
 * Seals up to `size` entries of the organisation in one transaction.
 * @returns how many it sealed.
 * @throws the database's error (the entries stay for the next round).
 */
async function sealBatch(db: Db, orgId: string, size: number): Promise<number> {
  if (!(await store.hasUnsealedAudit(db, orgId))) return 0; // nothing to do: no lock, no write
  return db.transaction(async (tx) => {
    let { seq, link } = await store.lockAuditHead(tx, orgId);
    const rows = await store.unsealedEntries(tx, orgId, size);
    const seals = rows.map((row) => {
      seq += 1;
      link = auditLink(row, seq, link);
      return { id: row.id, seq, link };
    });
    await store.storeAuditSeals(tx, orgId, seals);
    return rows.length;
  });
}

/**
 * Seals each organisation's audit chain, one organisation at a time per process: `flush(orgId)` before a read,
 * `startSweep(1, …)` in every `assent serve` for the entries no read has sealed yet, `stop()` at shutdown.
 */
export class AuditSealer extends PostCommitWorker {
  /** @param db - the database. */
  constructor(db: Db) {
    super(
      {
        batch: (orgId, size) => sealBatch(db, orgId, size),
        keysWithWork: () => store.organisationsWithUnsealedAudit(db),
      },
      BATCH,
      COALESCE_MS,
    );
  }
}
