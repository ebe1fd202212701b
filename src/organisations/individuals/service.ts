/**
 * The rules of an organisation's individuals (docs/decisions/0008-consent-records-and-catalogue.md "Individuals"):
 * listing, counting, creating or subscribing, unsubscribing. Subscribing gives the individual the organisation's
 * consent record; unsubscribing keeps it, with its history (evidence outlives the relation).
 *
 * An existing user joins an organisation only by their own act (GDPR Art. 7: consent is the
 * individual's own statement): they subscribe themselves, or accept an invitation
 * (`src/organisations/invitations/`). Staff create new users, and see only users already subscribed. Staff who add
 * a username that already has an account are answered as if it were new, and the account's holder
 * is invited instead (docs/consents.md "Adding individuals"): the answer never says whether an
 * address has an account anywhere in Assent (OWASP ASVS 5.0 V6.3.8, no account enumeration).
 */
import type { FastifyBaseLogger } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import {
  assertPasswordPolicy,
  type BackgroundTasks,
  hashPassword,
  normaliseUsername,
  Role,
} from '../../identity/index.js';
import type { Config } from '../../platform/config/load.js';
import { AccessDenied, Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isEmailAddress } from '../../platform/mail/address.js';
import { isUniqueViolation } from '../../platform/util/errors.js';
import { isId } from '../../platform/util/ids.js';
import { auditActor, recordAudit } from '../audit/service.js';
import type { InvitationService } from '../invitations/service.js';
import { subscribe } from '../membership/membership.js';
import type { RolesCache } from '../membership/roles-cache.js';
import * as store from './store.js';

/** An individual as the API shows them. */
export interface IndividualBody {
  ID: string;
  Name: string;
  Email: string;
  Phone: string;
}

/** What `POST /organizations/{organizationID}/users` takes: an existing user's ID, or a new user. */
export interface AddIndividual {
  userid?: string;
  username?: string;
  name?: string;
  email?: string;
  phone?: string;
  password?: string;
}

/**
 * The API shape of a stored individual.
 * @param row - the user's row.
 */
export function presentIndividual(row: store.IndividualRow): IndividualBody {
  return { ID: row.id, Name: row.name, Email: row.email, Phone: row.phone };
}

/**
 * Creates a user who signs in only through an organisation's identity provider: no password
 * (docs/federation.md "Flow"; docs/decisions/0013-federation-broker.md). Federation calls it inside
 * its sign-in transaction, so that the user and their link to the provider commit together.
 * @param tx - the caller's transaction.
 * @param user - the username (federation's `idp:<random>`), and name, e-mail and phone from the
 *   provider's claims, already cut to the columns' lengths.
 * @returns the new user's ID.
 * @throws the database's error (a taken username is a unique violation).
 */
export async function createFederatedUser(
  tx: Executor,
  user: { username: string; name: string; email: string; phone: string },
): Promise<string> {
  return (await store.createUser(tx, { ...user, passwordHash: null })).id;
}

/**
 * Roles that may create individuals and re-read those they manage
 * (docs/access-policy.md "Access policy", `individuals.add`).
 */
const MANAGERS: readonly number[] = [Role.Owner, Role.Admin];

/**
 * Whether roles in an organisation let their holder create individuals there (the rule `add` applies,
 * for front ends that show the control only to those the API lets use it).
 * @param roles - RoleIDs held in the organisation.
 */
export function managesIndividuals(roles: readonly number[]): boolean {
  return roles.some((r) => MANAGERS.includes(r));
}

/** What `enrol` did: created an individual, or found an account to invite (its address, null without one). */
type Enrolment = { user: IndividualBody; consentId: string; created: boolean } | { invite: string | null };

/** An organisation's individuals. */
export class IndividualService {
  /**
   * @param db - the store.
   * @param config - argon2 parameters for new users' passwords.
   * @param roles - the caller's roles in an organisation (the check of `add`).
   * @param invitations - invites the holder of an existing account that staff add.
   * @param background - runs that invitation after the answer.
   */
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly roles: RolesCache,
    private readonly invitations: InvitationService,
    private readonly background: BackgroundTasks,
    /** Woken after a subscription or unsubscription wrote its outbox event (docs/events.md). */
    private readonly events?: EventSequencer,
  ) {}

  /**
   * One page of subscribed users by ID.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - the page size (count).
   * @param search - only users whose name or e-mail contains it, ignoring case (surrounding
   *   whitespace ignored; empty: everyone). Its `%` and `_` are plain characters.
   * @returns the users and the next page's start when more exist.
   */
  async page(
    orgId: string,
    startId: string | undefined,
    limit: number,
    search?: string,
  ): Promise<{ users: IndividualBody[]; next?: string }> {
    if (startId !== undefined && !isId(startId)) return { users: [] };
    const text = search?.trim() || undefined;
    const rows = await store.subscribersPage(this.db, orgId, startId, limit + 1, text);
    const page = keysetPage(rows, limit, (u) => u.id);
    return { users: page.items.map(presentIndividual), next: page.next };
  }

  /**
   * One subscribed user.
   * @throws {NotFound} when the user is not subscribed to the organisation (or the ID is malformed).
   */
  async get(orgId: string, userId: string): Promise<IndividualBody> {
    const user = isId(orgId) && isId(userId) ? await store.findSubscriber(this.db, orgId, userId.toLowerCase()) : null;
    if (!user) throw new NotFound('User not subscribed to this organisation');
    return presentIndividual(user);
  }

  /** How many users are subscribed (count). */
  count(orgId: string): Promise<number> {
    return store.countSubscribers(this.db, orgId);
  }

  /**
   * `POST /organizations/{organizationID}/users`: the caller subscribes themselves (their own ID
   * as `userid`), or the organisation's Owner or Admin adds an individual by `username`, or names
   * one already subscribed (`userid`, answered as it is).
   *
   * A `username` with no account is created and subscribed (201). One already subscribed here is a
   * 409, as before (staff see the organisation's subscribers anyway). One whose account exists but is not subscribed here is not enrolled:
   * its holder is mailed an invitation after the answer (`InvitationService.inviteAccount`), and the
   * answer is the 201 a new account gets, with the name, e-mail and phone sent and fresh IDs that
   * name nothing, so that staff cannot tell whether the address has an account elsewhere (OWASP ASVS
   * 5.0 V6.3.8). Both outcomes hash the password, when one is sent, and write one audit entry
   * `individual.add` with the username.
   * @param principal - the caller.
   * @param log - the request's logger, where a failed invitation is reported.
   * @returns the user, their consent record ID, and whether the answer is a creation (201).
   * @throws {NotFound} for an unknown organisation, and for a `userid` that is neither the caller
   *   nor subscribed (an unknown and an unmanaged user get the same answer); {AccessDenied} when the
   *   caller is neither the user named nor the Owner or Admin; {InvalidRequest} unless exactly one of
   *   `userid` and `username` is given; {PasswordPolicyError} (400) when `password` breaks the
   *   password policy; {Conflict} when `username` is already subscribed to this organisation.
   */
  async add(
    principal: Principal,
    orgId: string,
    input: AddIndividual,
    log: FastifyBaseLogger,
  ): Promise<{ user: IndividualBody; consentId: string; created: boolean }> {
    const held = isId(orgId) ? await this.roles.rolesIn(orgId, principal.userId) : null;
    if (held === null) throw new NotFound('Organisation not found');
    if (input.username === undefined && input.userid?.toLowerCase() === principal.userId)
      return this.subscribeSelf(orgId, principal.userId);
    if (!managesIndividuals(held))
      throw new AccessDenied('Your roles in this organisation do not allow this operation');
    if ((input.userid === undefined) === (input.username === undefined))
      throw new InvalidRequest('Send either userid (an existing user) or username (a new user)');
    if (input.userid !== undefined) {
      // Enrolling someone else would hand their profile and consents to the organisation without
      // their act: staff only see users already subscribed, and any other ID is "not found".
      const user = isId(input.userid) ? await store.findSubscriber(this.db, orgId, input.userid.toLowerCase()) : null;
      if (!user) throw new NotFound('User not found');
      return { user: presentIndividual(user), consentId: user.consentId, created: false };
    }
    const username = normaliseUsername(input.username!);
    // A password, when given, must pass the policy (NIST SP 800-63B §5.1.1.2): it is hashed in its NFKC form.
    const password = input.password === undefined ? undefined : assertPasswordPolicy(input.password, { username });
    // Hashed whatever the outcome, and before the transaction (argon2id must not hold a connection):
    // hashing only for new accounts would tell existing ones by time.
    const passwordHash = password === undefined ? null : await hashPassword(password, this.config.argon2);
    let outcome: Enrolment;
    try {
      outcome = await this.enrol(principal, orgId, username, input, passwordHash);
    } catch (err) {
      // Two concurrent creations of one username: the loser finds the winner's account.
      if (!isUniqueViolation(err)) throw err;
      outcome = await this.enrol(principal, orgId, username, input, passwordHash);
    }
    if (!('invite' in outcome)) {
      this.events?.wake(orgId);
      return outcome;
    }
    const address = outcome.invite;
    if (address !== null)
      this.background.run('individuals.invite', () => this.invitations.inviteAccount(orgId, address), log);
    else log.warn({ orgId }, 'an added individual has an account but no e-mail address: no invitation sent');
    const user = { ID: uuidv7(), Name: input.name ?? '', Email: input.email ?? '', Phone: input.phone ?? '' };
    return { user, consentId: uuidv7(), created: true };
  }

  /**
   * In one transaction: creates and subscribes the account of `username` when there is none, or
   * names the address to invite when it exists; audits the add.
   * @throws {Conflict} when the account is subscribed to the organisation already.
   */
  private enrol(
    principal: Principal,
    orgId: string,
    username: string,
    input: { name?: string; email?: string; phone?: string },
    passwordHash: string | null,
  ): Promise<Enrolment> {
    return this.db.transaction(async (tx) => {
      const account = await store.findAccount(tx, username);
      const subscriber = account ? await store.findSubscriber(tx, orgId, account.id) : null;
      // Staff see this organisation's subscribers anyway: saying so tells them nothing new.
      if (subscriber) throw new Conflict('This user is already subscribed to this organisation');
      // The same entry for a new account and an invited one: the audit log is read by staff too.
      const audit = (userId: string) =>
        recordAudit(tx, {
          orgId,
          ...auditActor(principal),
          action: 'individual.add',
          target: { type: 'individual', id: userId },
          detail: { username },
        });
      if (account) {
        await audit(account.id);
        const address = [username, account.email.trim()].find(isEmailAddress) ?? null;
        return { invite: address };
      }
      const user = await store.createUser(tx, {
        username,
        name: input.name ?? '',
        email: input.email ?? '',
        phone: input.phone ?? '',
        passwordHash,
      });
      await audit(user.id);
      const { consentId } = await subscribe(tx, user.id, orgId);
      return { user: presentIndividual(user), consentId, created: true };
    });
  }

  /** The caller subscribes themselves; 201 when new, 200 when they were already subscribed. */
  private async subscribeSelf(
    orgId: string,
    userId: string,
  ): Promise<{ user: IndividualBody; consentId: string; created: boolean }> {
    const user = await store.findUser(this.db, userId);
    if (!user) throw new NotFound('User not found');
    const { subscribed, consentId } = await this.db.transaction((tx) => subscribe(tx, user.id, orgId));
    if (subscribed) this.events?.wake(orgId);
    return { user: presentIndividual(user), consentId, created: subscribed };
  }

  /**
   * Unsubscribes a user; the consent record and its history are kept. Audited as `individual.unsubscribe`, target
   * the individual (docs/audit.md), in the same transaction.
   * @param actor - who unsubscribes them (staff, or the individual themselves).
   * @throws {NotFound} when the user is not subscribed; nothing is recorded then.
   */
  async remove(actor: Principal, orgId: string, userId: string): Promise<void> {
    const removed =
      isId(userId) &&
      (await this.db.transaction(async (tx) => {
        if (!(await store.unsubscribe(tx, orgId, userId))) return false;
        await recordAudit(tx, {
          orgId,
          ...auditActor(actor),
          action: 'individual.unsubscribe',
          target: { type: 'individual', id: userId },
          detail: {},
        });
        return true;
      }));
    if (!removed) throw new NotFound('User not subscribed to this organisation');
    this.events?.wake(orgId);
  }
}

/** An individual as the listings show them (`id`, `name`, `email`, `phone`), for other domains' listings. */
export type { IndividualRow } from './store.js';
