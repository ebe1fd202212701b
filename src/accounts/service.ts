/**
 * The individual's account as a whole: its data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR
 * Art. 15 and 20)"), assembled in `export.ts`, and its deletion.
 *
 * Account deletion (GDPR Art. 17 "right to erasure"; docs/decisions/0012-account-deletion.md), by the user (`POST
 * {base}/users/unregister`)
 * or by an operator (`assent user delete ID`). Personal data and credentials are deleted; the
 * consent history is kept (GDPR Art. 7(1) and 17(3)(e): the organisation must still be able to
 * prove consent) and names the individual only by the random user ID, which nothing links back
 * to a person any more. The history's hash chain is untouched, so its verification still passes.
 */

import { eraseFederatedIdentities } from '../federation/index.js';
import {
  eraseCredentials,
  eraseFactors,
  eraseImages,
  eraseResetToken,
  type LivenessCache,
  scrubAccount,
} from '../identity/index.js';
import { eraseMemberships, recordAudit } from '../organisations/index.js';
import { NotFound } from '../platform/core/errors.js';
import type { Db } from '../platform/db/open.js';
import type { EventSequencer } from '../platform/events/sequencer.js';
import { isId } from '../platform/util/ids.js';
import { eraseWalletIdentities } from '../provider/index.js';
import { type AccountExport, assembleExport, type ExportSources } from './export.js';

/** Exports and deletes accounts. */
export class AccountService {
  /**
   * @param db - the database.
   * @param liveness - told of the deletion, so that the user's tokens stop working at once (in a
   *   process that serves no requests, the CLI's, it holds nothing and this changes nothing).
   * @param exports - what the data export reads: the public URL and the consent domain's export.
   * @param events - woken after a deletion wrote its `individual.deleted` events (docs/events.md); none in the CLI,
   *   whose events the serving processes' sweep numbers.
   */
  constructor(
    private readonly db: Db,
    private readonly liveness: LivenessCache,
    private readonly exports: Omit<ExportSources, 'db'>,
    private readonly events?: EventSequencer,
  ) {}

  /**
   * Everything Assent keeps about the user (GDPR Art. 15 and 20): every part read now but the consent history,
   * read in chunks while `ConsentHistory` is iterated; `exportJson` writes it as the JSON document of
   * `GET {base}/user/export`. Only ever called with the caller's own ID (threat: IDOR, reading someone else's data).
   * @throws {NotFound} when there is no such live account (never existed, or deleted).
   */
  exportData(userId: string): Promise<AccountExport> {
    return assembleExport({ db: this.db, ...this.exports }, userId);
  }

  /**
   * Deletes the account `userId` in one transaction, with an `individual.deleted` event (docs/events.md) and an audit
   * entry `individual.delete` (docs/audit.md; target the individual, by ID only) in each organisation the user was
   * subscribed to.
   * @param actorUserId - who deletes it: the user themselves (the default, `POST {base}/users/unregister`), or null
   *   for an operator's `assent user delete`.
   * @throws {NotFound} when there is no such live account (never existed, or already deleted).
   */
  async delete(userId: string, actorUserId: string | null = userId): Promise<void> {
    if (!isId(userId)) throw new NotFound('User not found');
    const left = await this.db.transaction(async (tx) => {
      // The row lock of the scrub comes first: a concurrent deletion of the same user waits, then finds none.
      const oldUsername = await scrubAccount(tx, userId);
      if (oldUsername === null) throw new NotFound('User not found');
      // Each domain erases what it holds; the consent records and their history stay (GDPR Art. 17(3)(e)).
      await eraseImages(tx, userId);
      await eraseResetToken(tx, userId);
      await eraseFederatedIdentities(tx, userId);
      await eraseWalletIdentities(tx, userId);
      await eraseCredentials(tx, userId, oldUsername);
      await eraseFactors(tx, userId);
      // Then: it writes an `individual.deleted` event per organisation left (docs/events.md).
      const orgs = await eraseMemberships(tx, userId);
      for (const orgId of orgs)
        await recordAudit(tx, {
          orgId,
          actorUserId,
          actorApiKeyId: null,
          action: 'individual.delete',
          target: { type: 'individual', id: userId },
          detail: {},
        });
      return orgs;
    });
    this.liveness.forgetUser(userId);
    for (const orgId of left) this.events?.wake(orgId);
  }
}
