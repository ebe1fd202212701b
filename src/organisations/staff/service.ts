/**
 * The rules of an organisation's staff (docs/staff.md): who holds its admin roles, and changing or removing them.
 * - Only an Owner manages staff (the access policy checks the role; docs/access-policy.md).
 * - The last Owner can be neither removed nor demoted: an organisation always has someone who can manage it.
 * - Nobody raises their own roles: an Owner may drop roles of their own, never add one.
 * - Every change is an audit entry in its transaction (docs/audit.md, `staff.*`), with the roles before and after.
 */
import { ROLES } from '../../identity/index.js';
import { AccessDenied, Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { Role } from '../../platform/core/roles.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isId } from '../../platform/util/ids.js';
import { auditActor, auditChanges, recordAudit } from '../audit/service.js';
import type { RolesCache } from '../membership/roles-cache.js';
import * as store from './store.js';

/** The name of each RoleID (docs/api.md "Roles and logins"). */
const ROLE_NAMES: ReadonlyMap<number, string> = new Map(ROLES.map((r) => [r.ID, r.Role]));

/**
 * The name of a RoleID (`Admin`, `Dpo`, `Developer`, `Owner`; docs/api.md "Roles and logins").
 * @param roleId - 1 to 4.
 */
export function roleName(roleId: number): string {
  return ROLE_NAMES.get(roleId) ?? String(roleId);
}

/** A staff member as the API shows them. */
export interface StaffBody {
  /** The user's ID. */
  ID: string;
  Username: string;
  Name: string;
  Email: string;
  /** Their roles in the organisation, by RoleID. */
  Roles: Array<{ RoleID: number; Role: string }>;
}

/**
 * The API shape of a staff row.
 * @param row - the user and their RoleIDs.
 */
export function presentStaff(row: store.StaffRow): StaffBody {
  return {
    ID: row.id,
    Username: row.username,
    Name: row.name,
    Email: row.email,
    Roles: row.roles.map((r) => ({ RoleID: r, Role: roleName(r) })),
  };
}

/**
 * The set of RoleIDs a request names, ascending and without repeats.
 * @param roles - RoleIDs as sent (the schema admits integers 1–4 only).
 * @param allowEmpty - whether no role is a valid answer.
 * @throws {InvalidRequest} when a role is unknown, or when there is none and `allowEmpty` is false.
 */
export function roleSet(roles: readonly number[], allowEmpty = false): number[] {
  const set = [...new Set(roles)].sort((a, b) => a - b);
  if (set.some((r) => !ROLE_NAMES.has(r))) throw new InvalidRequest('roles must be RoleIDs 1 to 4');
  if (set.length === 0 && !allowEmpty) throw new InvalidRequest('roles must name at least one role');
  return set;
}

/**
 * Checks a change of `userId`'s roles from `before` to `after` against the rules of the module comment, inside the
 * transaction that holds the organisation's staff lock.
 * @throws {Conflict} when the last Owner would lose Owner (checked first); {AccessDenied} when the actor would add a
 *   role to themselves.
 */
export async function assertRoleChange(
  tx: Executor,
  actor: Principal,
  orgId: string,
  userId: string,
  before: readonly number[],
  after: readonly number[],
): Promise<void> {
  // Threat: an organisation locked out of its own administration; the staff lock makes the count exact.
  if (before.includes(Role.Owner) && !after.includes(Role.Owner) && (await store.ownerCount(tx, orgId)) <= 1)
    throw new Conflict('This is the organisation’s last Owner: make someone else an Owner first');
  // Threat: privilege escalation by one's own hand (ASVS 5.0 V8.2.1); only others can give a person more power.
  if (userId === actor.userId && after.some((r) => !before.includes(r)))
    throw new AccessDenied('You cannot add roles to yourself; another Owner must');
}

/** Lists, changes and removes an organisation's staff. */
export class StaffService {
  /**
   * @param db - the store.
   * @param roles - the access checks' role cache, told of each change after its commit.
   */
  constructor(
    private readonly db: Db,
    private readonly roles: RolesCache,
  ) {}

  /**
   * One page of the organisation's staff by user ID.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - the page size (count).
   */
  async page(
    orgId: string,
    startId: string | undefined,
    limit: number,
  ): Promise<{ staff: StaffBody[]; next?: string }> {
    if (startId !== undefined && !isId(startId)) return { staff: [] };
    const rows = await store.staffPage(this.db, orgId, startId?.toLowerCase(), limit + 1);
    const page = keysetPage(rows, limit, (s) => s.id);
    return { staff: page.items.map(presentStaff), next: page.next };
  }

  /**
   * Makes a staff member's roles exactly `roles`.
   * @param actor - an Owner of the organisation (checked by the access policy).
   * @param roles - the RoleIDs to hold, at least one (removing every role is `remove`).
   * @returns the member with their new roles.
   * @throws {NotFound} when the user holds no role in the organisation; {InvalidRequest} for an empty or unknown role
   *   set; {AccessDenied} or {Conflict} from `assertRoleChange`. Nothing changes then.
   */
  async setRoles(actor: Principal, orgId: string, userId: string, roles: readonly number[]): Promise<StaffBody> {
    const after = roleSet(roles);
    const member = await this.change(actor, orgId, userId, after, 'staff.roles.update');
    return presentStaff({ ...member, roles: after });
  }

  /**
   * Removes a staff member: they keep their account (and any subscription as an individual), without a role here.
   * @throws {NotFound} when the user holds no role in the organisation; {Conflict} for the last Owner.
   */
  async remove(actor: Principal, orgId: string, userId: string): Promise<void> {
    await this.change(actor, orgId, userId, [], 'staff.remove');
  }

  /** Applies one change of a member's roles under the organisation's staff lock, with its audit entry. */
  private async change(
    actor: Principal,
    orgId: string,
    userId: string,
    after: number[],
    action: 'staff.roles.update' | 'staff.remove',
  ): Promise<store.StaffRow> {
    if (!isId(userId)) throw new NotFound('Staff member not found');
    const id = userId.toLowerCase();
    const member = await this.db.transaction(async (tx) => {
      if (!(await store.lockStaff(tx, orgId))) throw new NotFound('Organisation not found');
      const member = await store.staffMember(tx, orgId, id);
      if (!member) throw new NotFound('Staff member not found');
      await assertRoleChange(tx, actor, orgId, id, member.roles, after);
      const changes = auditChanges({ roles: member.roles }, { roles: after });
      if (Object.keys(changes).length === 0) return member;
      await store.setRoles(tx, orgId, id, after);
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action,
        target: { type: 'staff', id },
        changes,
        detail: { username: member.username },
      });
      return member;
    });
    // Threat: a removed role still honoured by this process until the change's notification comes back.
    this.roles.forgetUser(id);
    return member;
  }
}
