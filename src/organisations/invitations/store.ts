/**
 * SQL of invitations to an organisation (table `invitations`, migrations 0013 and 0032): an individual's invitation
 * (no roles) or a staff invitation (roles to grant, docs/staff.md). Every lookup names its kind, so that a token of one
 * kind is never spent by the other's acceptance.
 */
import { and, asc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { invitations, organisations } from '../../platform/db/schema/index.js';

/** A pending invitation as staff see it (never the token or its hash). */
export interface InvitationRow {
  id: string;
  email: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** The RoleIDs a staff invitation grants; empty for an individual's. */
  roles: number[];
}

/** Which invitations a statement reads: an individual's (no roles) or staff's (roles to grant). */
export type InvitationKind = 'individual' | 'staff';

const columns = {
  id: invitations.id,
  email: invitations.email,
  createdBy: invitations.createdBy,
  createdAt: invitations.createdAt,
  expiresAt: invitations.expiresAt,
  roles: invitations.roles,
};

/** The SQL condition of one kind. */
const ofKind = (kind: InvitationKind) =>
  kind === 'staff' ? sql`cardinality(${invitations.roles}) > 0` : sql`cardinality(${invitations.roles}) = 0`;

/** Neither accepted nor revoked, and not expired (on the database clock). */
const pending = and(
  isNull(invitations.acceptedAt),
  isNull(invitations.revokedAt),
  gt(invitations.expiresAt, sql`now()`),
);

/** The organisation's name, or null when it does not exist. */
export async function organisationName(db: Executor, orgId: string): Promise<string | null> {
  const [row] = await db.select({ name: organisations.name }).from(organisations).where(eq(organisations.id, orgId));
  return row?.name ?? null;
}

/**
 * Stores an invitation.
 * @param tokenHash - SHA-256 of the token (32 bytes).
 * @param ttlSeconds - lifetime (seconds), counted on the database clock.
 * @param roles - the RoleIDs a staff invitation grants; absent or empty for an individual's invitation.
 */
export async function insertInvitation(
  db: Executor,
  invitation: {
    id: string;
    orgId: string;
    email: string;
    tokenHash: Buffer;
    createdBy: string;
    ttlSeconds: number;
    roles?: number[];
  },
): Promise<InvitationRow> {
  const { ttlSeconds, ...values } = invitation;
  const [row] = await db
    .insert(invitations)
    .values({ ...values, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})` })
    .returning(columns);
  return row!;
}

/**
 * One page of the organisation's pending invitations of one kind that staff sent as invitations, by ID, after
 * `afterId` (at most `limit` rows); not those sent by adding an individual (`created_by` = the organisation).
 */
export async function pendingPage(
  db: Executor,
  orgId: string,
  afterId: string | undefined,
  limit: number,
  kind: InvitationKind = 'individual',
): Promise<InvitationRow[]> {
  return db
    .select(columns)
    .from(invitations)
    .where(
      and(
        eq(invitations.orgId, orgId),
        afterId ? gt(invitations.id, afterId) : undefined,
        pending,
        ofKind(kind),
        // Sent by adding an individual whose account exists (`created_by` = the organisation): listing it
        // would tell staff that the address has an account (docs/consents.md "Adding individuals").
        ne(invitations.createdBy, invitations.orgId),
      ),
    )
    .orderBy(asc(invitations.id))
    .limit(limit);
}

/** Revokes a pending invitation of one kind of the organisation. @returns the revoked invitation, or null. */
export async function revokeInvitation(
  db: Executor,
  orgId: string,
  id: string,
  kind: InvitationKind = 'individual',
): Promise<InvitationRow | null> {
  const [row] = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(invitations.id, id), eq(invitations.orgId, orgId), pending, ofKind(kind)))
    .returning(columns);
  return row ?? null;
}

/** What a token names: its invitation's state, for the answer to a refused acceptance. */
export interface TokenState {
  /** Accepted or revoked. */
  spent: boolean;
  /** Past its expiry (database clock). */
  expired: boolean;
}

/** The state of the invitation of this kind with this token hash, or null when none has it. */
export async function tokenState(
  db: Executor,
  tokenHash: Buffer,
  kind: InvitationKind = 'individual',
): Promise<TokenState | null> {
  const [row] = await db
    .select({
      spent: sql<boolean>`(${invitations.acceptedAt} IS NOT NULL OR ${invitations.revokedAt} IS NOT NULL)`,
      expired: sql<boolean>`(${invitations.expiresAt} <= now())`,
    })
    .from(invitations)
    .where(and(eq(invitations.tokenHash, tokenHash), ofKind(kind)));
  return row ?? null;
}

/**
 * Spends a pending invitation for `userId`: of two acceptances racing with one token, only one
 * updates the row.
 * @returns the invitation's ID and organisation, or null when no pending invitation has this hash.
 */
export async function acceptInvitation(
  db: Executor,
  tokenHash: Buffer,
  userId: string,
): Promise<{ id: string; orgId: string } | null> {
  const [row] = await db
    .update(invitations)
    .set({ acceptedAt: sql`now()`, acceptedBy: userId })
    .where(and(eq(invitations.tokenHash, tokenHash), pending, ofKind('individual')))
    .returning({ id: invitations.id, orgId: invitations.orgId });
  return row ?? null;
}

/**
 * The pending staff invitation with this token hash, locked until the transaction ends (so that two acceptances
 * racing with one token spend it once), or null when there is none.
 */
export async function pendingStaffInvitation(
  tx: Executor,
  tokenHash: Buffer,
): Promise<(InvitationRow & { orgId: string }) | null> {
  const [row] = await tx
    .select({ ...columns, orgId: invitations.orgId })
    .from(invitations)
    .where(and(eq(invitations.tokenHash, tokenHash), pending, ofKind('staff')))
    .for('update');
  return row ?? null;
}

/** Marks an invitation accepted by `userId` (after `pendingStaffInvitation` locked it). */
export async function spendInvitation(tx: Executor, id: string, userId: string): Promise<void> {
  await tx.update(invitations).set({ acceptedAt: sql`now()`, acceptedBy: userId }).where(eq(invitations.id, id));
}
