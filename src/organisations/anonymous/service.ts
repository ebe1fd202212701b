/**
 * Anonymous users (docs/api.md "User management" "Add anonymous user"; docs/api.md "Anonymous user";
 * docs/decisions/0012-account-deletion.md): an app records consents before the person has an
 * account. The user is subscribed to the organisation with a consent record at once; the
 * organisation's API key acts for it (see `consent/records/access.ts`). Later it can be upgraded in place
 * to a full account, keeping its ID and so its consent history.
 */

import { v7 as uuidv7 } from 'uuid';
import {
  assertPasswordPolicy,
  hashPassword,
  normaliseUsername,
  presentUser,
  type UserBody,
  userProfile,
} from '../../identity/index.js';
import type { Config } from '../../platform/config/load.js';
import { Conflict, NotFound } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import { enforce } from '../../platform/ratelimit/limit.js';
import { isUniqueViolation } from '../../platform/util/errors.js';
import { isId } from '../../platform/util/ids.js';
import { subscribe } from '../membership/membership.js';
import * as store from './store.js';

/** What an upgrade sets. */
export interface UpgradeInput {
  username: string;
  name?: string;
  email?: string;
  phone?: string;
  /** Absent: the account signs in only through the organisation (its API key) until a password is set. */
  password?: string;
}

/** Anonymous users of organisations. */
export class AnonymousService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  /**
   * Creates an anonymous user subscribed to `orgId`, with its consent record.
   * @returns the bare User (docs/api.md "Resources").
   * @throws {RateLimited} past `ASSENT_ANONYMOUS_LIMIT` creations per window in the organisation.
   */
  async create(orgId: string): Promise<UserBody> {
    // Anti-automation (ASVS 5.0 V2.4.1): a leaked API key must not mint users without bound.
    await enforce(this.db, `anon:${orgId}`, this.config.anonymousLimit);
    const id = uuidv7();
    await this.db.transaction(async (tx) => {
      await store.insertAnonymous(tx, id);
      await subscribe(tx, id, orgId);
    });
    return this.present(id);
  }

  /**
   * Upgrades an anonymous subscriber of `orgId` to a full account with the same ID.
   * @throws {NotFound} when `userId` is not an anonymous user subscribed to the organisation.
   * @throws {Conflict} when the username is taken.
   * @throws {PasswordPolicyError} (400) when the password breaks the policy (docs/identity.md "Passwords").
   */
  async upgrade(orgId: string, userId: string, input: UpgradeInput): Promise<UserBody> {
    if (!isId(userId)) throw new NotFound('Anonymous user not found in this organisation');
    const username = normaliseUsername(input.username);
    // A password must pass the policy (NIST SP 800-63B §5.1.1.2); it is hashed in its NFKC form.
    const password = input.password === undefined ? undefined : assertPasswordPolicy(input.password, { username });
    // Hashed before the transaction: argon2id must not hold a connection.
    const passwordHash = password === undefined ? null : await hashPassword(password, this.config.argon2);
    const fields = {
      username,
      name: input.name ?? '',
      email: input.email ?? '',
      phone: input.phone ?? '',
      passwordHash,
    };
    try {
      await this.db.transaction(async (tx) => {
        if (!(await store.lockAnonymousSubscriber(tx, orgId, userId)))
          throw new NotFound('Anonymous user not found in this organisation');
        await store.upgrade(tx, userId, fields);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict('A user with this username exists');
      throw err;
    }
    return this.present(userId);
  }

  private async present(userId: string): Promise<UserBody> {
    const profile = (await userProfile(this.db, userId))!;
    return presentUser(profile.row, profile.orgs, profile.roles, this.config.publicUrl);
  }
}
