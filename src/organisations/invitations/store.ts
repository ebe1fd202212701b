/** SQL of invitations to an organisation (table `invitations`, migration 0013). */
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
}

const columns = {
  id: invitations.id,
  email: invitations.email,
  createdBy: invitations.createdBy,
  createdAt: invitations.createdAt,
  expiresAt: invitations.expiresAt,
};

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
 */
export async function insertInvitation(
  db: Executor,
  invitation: { id: string; orgId: string; email: string; tokenHash: Buffer; createdBy: string; ttlSeconds: number },
): Promise<InvitationRow> {
  const { ttlSeconds, ...values } = invitation;
  const [row] = await db
    .insert(invitations)
    .values({ ...values, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})` })
    .returning(columns);
  return row!;
}

/**
 * One page of the organisation's pending invitations that staff sent as invitations, by ID, after
 * `afterId` (at most `limit` rows); not those sent by adding an individual (`created_by` = the organisation).
 */
export async function pendingPage(
  db: Executor,
  orgId: string,
  afterId: string | undefined,
  limit: number,
): Promise<InvitationRow[]> {
  return db
    .select(columns)
    .from(invitations)
    .where(
      and(
        eq(invitations.orgId, orgId),
        afterId ? gt(invitations.id, afterId) : undefined,
        pending,
        // Sent by adding an individual whose account exists (`created_by` = the organisation): listing it
        // would tell staff that the address has an account (docs/consents.md "Adding individuals").
        ne(invitations.createdBy, invitations.orgId),
      ),
    )
    .orderBy(asc(invitations.id))
    .limit(limit);
}

/** Revokes a pending invitation of the organisation. @returns whether there was one. */
export async function revokeInvitation(db: Executor, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(invitations.id, id), eq(invitations.orgId, orgId), pending))
    .returning({ id: invitations.id });
  return rows.length > 0;
}

/** What a token names: its invitation's state, for the answer to a refused acceptance. */
export interface TokenState {
  /** Accepted or revoked. */
  spent: boolean;
  /** Past its expiry (database clock). */
  expired: boolean;
}

/** The state of the invitation with this token hash, or null when none has it. */
export async function tokenState(db: Executor, tokenHash: Buffer): Promise<TokenState | null> {
  const [row] = await db
    .select({
      spent: sql<boolean>`(${invitations.acceptedAt} IS NOT NULL OR ${invitations.revokedAt} IS NOT NULL)`,
      expired: sql<boolean>`(${invitations.expiresAt} <= now())`,
    })
    .from(invitations)
    .where(eq(invitations.tokenHash, tokenHash));
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
    .where(and(eq(invitations.tokenHash, tokenHash), pending))
    .returning({ id: invitations.id, orgId: invitations.orgId });
  return row ?? null;
}
