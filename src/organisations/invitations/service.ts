/**
 * The rules of invitations to an organisation (docs/consents.md "Invitations"): the way, besides subscribing
 * themselves, for an existing user to join an organisation by their own act.
 *
 * - Staff (Owner or Admin; the access policy checks the role) invite an e-mail address. The token
 *   is 256 random bits, stored only as its SHA-256, mailed as a link, single use, and expires
 *   after `ASSENT_INVITATION_TTL_SECONDS` (ASVS 5.0 V6.4.1 for the token's strength).
 * - Staff list the pending invitations and revoke them.
 * - The invited person accepts with their own access token and the link's token: they are then
 *   subscribed, with the organisation's consent record, as subscribing does.
 * - Every change is in the organisation audit log (ASVS 5.0 V16.2.1), never the token.
 */
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../../platform/config/load.js';
import { InvalidRequest, NotFound, UpstreamFailure } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isEmailAddress } from '../../platform/mail/address.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { isId } from '../../platform/util/ids.js';
import { auditActor, recordAudit } from '../audit/service.js';
import { subscribe } from '../membership/membership.js';
import { invitationMail } from './mail.js';
import * as store from './store.js';

/** Bytes of randomness in a token: 256 bits (the task asks for at least 128; ASVS 5.0 V6.4.1). */
const TOKEN_BYTES = 32;
/** The answer to a token never issued, already accepted, or revoked. */
export const INVALID_INVITATION =
  'This invitation link is not valid: it was already used or revoked. Ask the organisation for a new one.';
/** The answer to an expired token. */
export const EXPIRED_INVITATION = 'This invitation link has expired. Ask the organisation for a new one.';

/** An invitation as the API shows it to staff. */
export interface InvitationBody {
  ID: string;
  Email: string;
  /** The staff member who created it. */
  CreatedBy: string;
  /** RFC 3339. */
  CreatedAt: string;
  /** RFC 3339. */
  ExpiresAt: string;
}

/** What an acceptance answers: the organisation joined and the consent record. */
export interface AcceptedBody {
  Org: { OrgID: string; Name: string };
  ConsentID: string;
}

/**
 * The API shape of a pending invitation (staff invitations add their `Roles`: src/organisations/staff/invitations.ts).
 * @param row - the stored invitation.
 */
export function presentInvitation(row: store.InvitationRow): InvitationBody {
  return {
    ID: row.id,
    Email: row.email,
    CreatedBy: row.createdBy,
    CreatedAt: row.createdAt.toISOString(),
    ExpiresAt: row.expiresAt.toISOString(),
  };
}

/** Creates, lists, revokes and accepts invitations. */
export class InvitationService {
  /**
   * @param db - the store.
   * @param config - the public URL (the link) and `invitationTtlSeconds`.
   * @param mailer - sends the invitation.
   */
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly mailer: Mailer,
  ) {}

  /**
   * Invites `email` to the organisation: mails the link first, then stores the invitation and its
   * audit entry, so that a refused mail leaves nothing behind.
   * @param actor - the staff member (Owner or Admin, checked by the access policy).
   * @throws {InvalidRequest} when `email` is not one address; {NotFound} for an unknown organisation;
   *   {UpstreamFailure} when the mail relay refuses or cannot be reached (nothing is stored).
   */
  async create(actor: Principal, orgId: string, email: string): Promise<InvitationBody> {
    const address = email.trim();
    if (!isEmailAddress(address)) throw new InvalidRequest('email must be one e-mail address');
    const name = await store.organisationName(this.db, orgId);
    if (name === null) throw new NotFound('Organisation not found');
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const ttl = this.config.invitationTtlSeconds;
    try {
      await this.mailer.send(invitationMail(address, name, this.link(token), ttl));
    } catch {
      throw new UpstreamFailure('The invitation mail could not be sent; nothing was stored. Try again later.');
    }
    return this.db.transaction(async (tx) => {
      const row = await store.insertInvitation(tx, {
        id: uuidv7(),
        orgId,
        email: address,
        // Only its SHA-256 is stored, so a read of the database cannot enrol anyone.
        tokenHash: sha256(token),
        createdBy: actor.userId,
        ttlSeconds: ttl,
      });
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action: 'invitation.create',
        detail: { invitationId: row.id, email: address },
      });
      return presentInvitation(row);
    });
  }

  /**
   * Invites the holder of an existing account when staff add them as an individual by username
   * (`IndividualService.add`; docs/consents.md "Adding individuals"): the same link and mail as
   * `create`, stored with the organisation as its creator, so that it is neither listed to staff nor
   * given an audit entry of its own: either would tell them that the address has an account
   * (OWASP ASVS 5.0 V6.3.8, no account enumeration). The add itself is audited, alike for both outcomes.
   * Run after the answer (the mail would otherwise make this outcome the slower one).
   * @param address - the account's e-mail address (`isEmailAddress`).
   * @throws the mailer's error (nothing is stored) or the database's.
   */
  async inviteAccount(orgId: string, address: string): Promise<void> {
    const name = await store.organisationName(this.db, orgId);
    if (name === null) return;
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const ttl = this.config.invitationTtlSeconds;
    await this.mailer.send(
      invitationMail(address, name, `${this.config.publicUrl}/invitations/accept#token=${token}`, ttl),
    );
    await store.insertInvitation(this.db, {
      id: uuidv7(),
      orgId,
      email: address,
      tokenHash: sha256(token),
      createdBy: orgId,
      ttlSeconds: ttl,
    });
  }

  /**
   * The link mailed for `token`. The token travels in the fragment: browsers never send it to a
   * server, so it stays out of access logs and Referer.
   */
  private link(token: string): string {
    return `${this.config.publicUrl}/invitations/accept#token=${token}`;
  }

  /**
   * One page of the organisation's pending invitations, by ID.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - page size (count).
   */
  async page(
    orgId: string,
    startId: string | undefined,
    limit: number,
  ): Promise<{ invitations: InvitationBody[]; next?: string }> {
    if (startId !== undefined && !isId(startId)) return { invitations: [] };
    const page = keysetPage(
      await store.pendingPage(this.db, orgId, startId?.toLowerCase(), limit + 1),
      limit,
      (i) => i.id,
    );
    return { invitations: page.items.map(presentInvitation), next: page.next };
  }

  /**
   * Revokes a pending invitation: its link stops working at once.
   * @throws {NotFound} when the organisation has no pending invitation with this ID.
   */
  async revoke(actor: Principal, orgId: string, invitationId: string): Promise<void> {
    const id = isId(invitationId) ? invitationId.toLowerCase() : null;
    const revoked =
      id !== null &&
      (await this.db.transaction(async (tx) => {
        if (!(await store.revokeInvitation(tx, orgId, id))) return false;
        await recordAudit(tx, {
          orgId,
          ...auditActor(actor),
          action: 'invitation.revoke',
          detail: { invitationId: id },
        });
        return true;
      }));
    if (!revoked) throw new NotFound('Invitation not found');
  }

  /**
   * Accepts an invitation for the caller: spends it and subscribes them, with the organisation's
   * consent record (a record kept from an earlier subscription is reused).
   * @param principal - the invited person, with their own access token (the policy row is `session`).
   * @param token - the token of the link's fragment.
   * @returns the organisation, the consent record, and whether the caller was newly subscribed.
   * @throws {InvalidRequest} `INVALID_INVITATION` for an unknown, accepted or revoked token,
   *   `EXPIRED_INVITATION` for an expired one; nothing changes.
   */
  async accept(principal: Principal, token: string): Promise<{ body: AcceptedBody; subscribed: boolean }> {
    const hash = sha256(token);
    const done = await this.db.transaction(async (tx) => {
      const spent = await store.acceptInvitation(tx, hash, principal.userId);
      if (!spent) return null;
      const { subscribed, consentId } = await subscribe(tx, principal.userId, spent.orgId);
      await recordAudit(tx, {
        orgId: spent.orgId,
        actorUserId: principal.userId,
        actorApiKeyId: null,
        action: 'invitation.accept',
        detail: { invitationId: spent.id },
      });
      return { orgId: spent.orgId, subscribed, consentId };
    });
    if (!done) {
      // The lookup is by the SHA-256 of what was sent: its timing says nothing about stored tokens.
      const state = await store.tokenState(this.db, hash);
      throw new InvalidRequest(state && !state.spent && state.expired ? EXPIRED_INVITATION : INVALID_INVITATION);
    }
    const name = (await store.organisationName(this.db, done.orgId)) ?? '';
    return { body: { Org: { OrgID: done.orgId, Name: name }, ConsentID: done.consentId }, subscribed: done.subscribed };
  }
}
