/**
 * Account deletion (GDPR Art. 17 "right to erasure"; docs/decisions/0012-account-deletion.md), by the user (`POST
 * {base}/users/unregister`)
 * or by an operator (`assent user delete ID`). Personal data and credentials are deleted; the
 * consent history is kept (GDPR Art. 7(1) and 17(3)(e): the organisation must still be able to
 * prove consent) and names the individual only by the random user ID, which nothing links back
 * to a person any more. The history's hash chain is untouched, so its verification still passes.
 */
import type { Db } from '../db/open.js';
import { NotFound } from '../http/errors.js';
import type { LivenessCache } from '../identity/liveness.js';
import { isId } from '../util/ids.js';
import * as store from './store.js';

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
      const oldUsername = await store.scrubUser(tx, userId);
      if (oldUsername === null) throw new NotFound('User not found');
      await store.deleteUserData(tx, userId, oldUsername);
    });
    this.liveness.forgetUser(userId);
  }
}
