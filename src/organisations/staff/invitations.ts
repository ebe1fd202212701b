/**
 * Staff invitations (docs/staff.md "Inviting staff"): an Owner invites an e-mail address with one or more roles; the
 * link is mailed as an individual's invitation is (256 random bits, stored only as its SHA-256, single use, expiring
 * after `ASSENT_INVITATION_TTL_SECONDS`; ASVS 5.0 V6.4.1). The invited person then either
 * - signs in with an existing account whose username or e-mail is the invited address, and accepts; or
 * - creates an account (username and e-mail the invited address) with a password of their own.
 * Either way they gain the invited roles beside any they hold, and the join is an audit entry (`staff.join`).
 */
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { assertPasswordPolicy, hashPassword, normaliseUsername } from '../../identity/index.js';
import type { Config } from '../../platform/config/load.js';
import { AccessDenied, Conflict, InvalidRequest, NotFound, UpstreamFailure } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isEmailAddress } from '../../platform/mail/address.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { isUniqueViolation } from '../../platform/util/errors.js';
import { isId } from '../../platform/util/ids.js';
import { auditActor, auditChanges, recordAudit } from '../audit/service.js';
import { createUser } from '../individuals/store.js';
import {
  EXPIRED_INVITATION,
  INVALID_INVITATION,
  type InvitationBody,
  presentInvitation,
} from '../invitations/service.js';
import * as invitations from '../invitations/store.js';
import type { RolesCache } from '../membership/roles-cache.js';
import { staffInvitationMail } from './mail.js';
import { presentStaff, roleSet, type StaffBody } from './service.js';
import * as store from './store.js';

/** Bytes of randomness in a token: 256 bits (ASVS 5.0 V6.4.1). */
const TOKEN_BYTES = 32;

/** A pending staff invitation as the API shows it: an invitation with the RoleIDs it grants. */
export interface StaffInvitationBody extends InvitationBody {
  Roles: number[];
}

/** What an acceptance answers: the organisation and the person's roles there now. */
export interface StaffJoinedBody {
  Org: { OrgID: string; Name: string };
  Staff: StaffBody;
}

function present(row: invitations.InvitationRow): StaffInvitationBody {
  return { ...presentInvitation(row), Roles: row.roles };
}

/** Whether an account answers to the invited address: its username or its e-mail field, case-insensitively. */
function addressedTo(invited: string, account: { username: string; email: string }): boolean {
  const address = normaliseUsername(invited);
  return account.username === address || normaliseUsername(account.email) === address;
}

/** Creates, lists, revokes and accepts staff invitations. */
export class StaffInvitations {
  /**
   * @param db - the store.
   * @param config - the public URL (the link), `invitationTtlSeconds` and the argon2 parameters of new accounts.
   * @param mailer - sends the invitation.
   * @param roles - the access checks' role cache, told of each join after its commit.
   */
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly roles: RolesCache,
  ) {}

  /**
   * Invites `email` to the organisation's staff with `roles`: mails the link first, then stores the invitation and its
   * `staff.invite` entry, so that a refused mail leaves nothing behind.
   * @param actor - an Owner (checked by the access policy).
   * @throws {InvalidRequest} for a malformed address or role set; {NotFound} for an unknown organisation;
   *   {UpstreamFailure} when the mail cannot be sent (nothing is stored).
   */
  async invite(actor: Principal, orgId: string, email: string, roles: readonly number[]): Promise<StaffInvitationBody> {
    const address = email.trim();
    if (!isEmailAddress(address)) throw new InvalidRequest('email must be one e-mail address');
    const granted = roleSet(roles);
    const name = await invitations.organisationName(this.db, orgId);
    if (name === null) throw new NotFound('Organisation not found');
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const ttl = this.config.invitationTtlSeconds;
    // The token travels in the fragment, which browsers never send: it stays out of access logs and Referer.
    const link = `${this.config.publicUrl}/staff-invitations/accept#token=${token}`;
    try {
      await this.mailer.send(staffInvitationMail(address, name, granted, link, ttl));
    } catch {
      throw new UpstreamFailure('The invitation mail could not be sent; nothing was stored. Try again later.');
    }
    return this.db.transaction(async (tx) => {
      const row = await invitations.insertInvitation(tx, {
        id: uuidv7(),
        orgId,
        email: address,
        // Only its SHA-256 is stored, so a read of the database makes no one staff.
        tokenHash: sha256(token),
        createdBy: actor.userId,
        ttlSeconds: ttl,
        roles: granted,
      });
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action: 'staff.invite',
        target: { type: 'staff-invitation', id: row.id },
        detail: { email: address, roles: granted },
      });
      return present(row);
    });
  }

  /**
   * One page of the organisation's pending staff invitations, by ID.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - page size (count).
   */
  async page(orgId: string, startId: string | undefined, limit: number) {
    if (startId !== undefined && !isId(startId)) return { invitations: [] as StaffInvitationBody[] };
    const rows = await invitations.pendingPage(this.db, orgId, startId?.toLowerCase(), limit + 1, 'staff');
    const page = keysetPage(rows, limit, (i) => i.id);
    return { invitations: page.items.map(present), next: page.next };
  }

  /**
   * Revokes a pending staff invitation: its link stops working at once.
   * @throws {NotFound} when the organisation has no such pending staff invitation.
   */
  async revoke(actor: Principal, orgId: string, invitationId: string): Promise<void> {
    const id = isId(invitationId) ? invitationId.toLowerCase() : null;
    const revoked =
      id !== null &&
      (await this.db.transaction(async (tx) => {
        const row = await invitations.revokeInvitation(tx, orgId, id, 'staff');
        if (!row) return false;
        await recordAudit(tx, {
          orgId,
          ...auditActor(actor),
          action: 'staff.invitation.revoke',
          target: { type: 'staff-invitation', id },
          detail: { email: row.email, roles: row.roles },
        });
        return true;
      }));
    if (!revoked) throw new NotFound('Invitation not found');
  }

  /**
   * Accepts a staff invitation with the caller's existing account.
   * @param principal - the invited person, signed in with their own access token.
   * @param token - the token of the link's fragment.
   * @throws {InvalidRequest} for a spent, unknown or expired token; {AccessDenied} when the account's username and
   *   e-mail are not the invited address (the invitation stays pending).
   */
  async accept(principal: Principal, token: string): Promise<StaffJoinedBody> {
    return this.spend(token, async (tx, invitation) => {
      const account = await store.account(tx, principal.userId);
      // Threat: a forwarded or leaked link making someone else staff; it is for the address it was mailed to.
      if (!account || !addressedTo(invitation.email, account))
        throw new AccessDenied(
          'This invitation was sent to another e-mail address: sign in with the account of that address',
        );
      return account.id;
    });
  }

  /**
   * Accepts a staff invitation by creating an account: username and e-mail the invited address, `name`, and a
   * password under the password policy (docs/identity.md "Passwords").
   * @throws {InvalidRequest} for a spent, unknown or expired token or a refused password; {Conflict} when an account
   *   with that username exists (the holder of a token mailed to the address may learn it: sign in to accept instead).
   */
  async register(token: string, input: { name: string; password: string }): Promise<StaffJoinedBody> {
    const found = await invitations.pendingStaffInvitation(this.db, sha256(token));
    if (!found) throw await this.refusal(token);
    const username = normaliseUsername(found.email);
    const password = assertPasswordPolicy(input.password, { username });
    const passwordHash = await hashPassword(password, this.config.argon2);
    try {
      return await this.spend(token, async (tx, invitation) => {
        if (await store.accountIdByUsername(tx, username))
          throw new Conflict('An account with this e-mail address exists: sign in with it to accept the invitation');
        const user = await createUser(tx, {
          username,
          name: input.name.trim(),
          email: invitation.email,
          phone: '',
          passwordHash,
        });
        return user.id;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new Conflict('An account with this e-mail address exists: sign in with it to accept the invitation');
      throw error;
    }
  }

  /**
   * Spends the pending staff invitation of `token` for the account `who` names, and grants its roles, in one
   * transaction under the organisation's staff lock; the join is audited as `staff.join` by the person.
   */
  private async spend(
    token: string,
    who: (tx: Executor, invitation: invitations.InvitationRow & { orgId: string }) => Promise<string>,
  ): Promise<StaffJoinedBody> {
    const joined = await this.db.transaction(async (tx) => {
      const invitation = await invitations.pendingStaffInvitation(tx, sha256(token));
      if (!invitation) return null;
      const userId = await who(tx, invitation);
      await store.lockStaff(tx, invitation.orgId);
      const before = await store.rolesHeld(tx, invitation.orgId, userId);
      const after = roleSet([...before, ...invitation.roles]);
      await store.setRoles(tx, invitation.orgId, userId, after);
      await invitations.spendInvitation(tx, invitation.id, userId);
      await recordAudit(tx, {
        orgId: invitation.orgId,
        actorUserId: userId,
        actorApiKeyId: null,
        action: 'staff.join',
        target: { type: 'staff', id: userId },
        changes: auditChanges({ roles: before }, { roles: after }),
        detail: { invitationId: invitation.id },
      });
      return { orgId: invitation.orgId, member: await store.staffMember(tx, invitation.orgId, userId) };
    });
    if (!joined) throw await this.refusal(token);
    // The new roles count at once in this process (the others follow the change's notification).
    this.roles.forgetUser(joined.member!.id);
    const name = (await invitations.organisationName(this.db, joined.orgId)) ?? '';
    return { Org: { OrgID: joined.orgId, Name: name }, Staff: presentStaff(joined.member!) };
  }

  /** The refusal of a token that names no pending staff invitation: expired, or else not valid. */
  private async refusal(token: string): Promise<InvalidRequest> {
    // The lookup is by the SHA-256 of what was sent: its timing says nothing about stored tokens.
    const state = await invitations.tokenState(this.db, sha256(token), 'staff');
    return new InvalidRequest(state && !state.spent && state.expired ? EXPIRED_INVITATION : INVALID_INVITATION);
  }
}
