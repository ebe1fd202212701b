/**
 * Account deletion (GDPR Art. 17 "right to erasure"; docs/decisions/0012-account-deletion.md), by the user (`POST
 * {base}/users/unregister`)
 * or by an operator (`assent user delete ID`). Personal data and credentials are deleted; the
 * consent history is kept (GDPR Art. 7(1) and 17(3)(e): the organisation must still be able to
 * prove consent) and names the individual only by the random user ID, which nothing links back
 * to a person any more. The history's hash chain is untouched, so its verification still passes.
 */
import type { Db } from '../db/open.js';
import { eraseFederatedIdentities } from '../federation/erasure.js';
import { NotFound } from '../http/errors.js';
import { eraseCredentials } from '../identity/erasure.js';
import type { LivenessCache } from '../identity/liveness.js';
import { eraseImages } from '../images/erasure.js';
import { eraseMemberships } from '../orgs/erasure.js';
import { eraseResetToken } from '../passwords/erasure.js';
import { scrubAccount } from '../users/erasure.js';
import { isId } from '../util/ids.js';
import { eraseWalletIdentities } from '../wallet/erasure.js';

/** Deletes accounts. */
export class AccountService {
  /**
   * @param db - the database.
   * @param liveness - told of the deletion, so that the user's tokens stop working at once (in a
   *   process that serves no requests, the CLI's, it holds nothing and this changes nothing).
   */
  constructor(
    private readonly db: Db,
    private readonly liveness: LivenessCache,
  ) {}

  /**
   * Deletes the account `userId` in one transaction.
   * @throws {NotFound} when there is no such live account (never existed, or already deleted).
   */
  async delete(userId: string): Promise<void> {
    if (!isId(userId)) throw new NotFound('User not found');
    await this.db.transaction(async (tx) => {
      // The row lock of the scrub comes first: a concurrent deletion of the same user waits, then finds none.
      const oldUsername = await scrubAccount(tx, userId);
      if (oldUsername === null) throw new NotFound('User not found');
      // Each domain erases what it holds; the consent records and their history stay (GDPR Art. 17(3)(e)).
      await eraseImages(tx, userId);
      await eraseResetToken(tx, userId);
      await eraseFederatedIdentities(tx, userId);
      await eraseWalletIdentities(tx, userId);
      await eraseCredentials(tx, userId, oldUsername);
      await eraseMemberships(tx, userId);
    });
    this.liveness.forgetUser(userId);
  }
}
