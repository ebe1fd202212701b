/** SQL of passkeys and pending WebAuthn ceremonies (migration 0035; docs/security.md "Passkeys"). */
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Executor, rowsOf } from '../../platform/db/open.js';

/** A stored passkey. */
export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

type Raw = {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer | Uint8Array;
  counter: string | number;
  transports: string[];
  device_type: string;
  backed_up: boolean;
  name: string;
  created_at: string | Date;
  last_used_at: string | Date | null;
};

const toRow = (r: Raw): PasskeyRow => ({
  id: r.id,
  userId: r.user_id,
  credentialId: r.credential_id,
  publicKey: Buffer.from(r.public_key),
  counter: Number(r.counter),
  transports: r.transports,
  deviceType: r.device_type,
  backedUp: r.backed_up,
  name: r.name,
  createdAt: new Date(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at),
});

/** Stores a new passkey; returns it. */
export async function insertPasskey(
  db: Executor,
  p: Omit<PasskeyRow, 'id' | 'createdAt' | 'lastUsedAt'>,
): Promise<PasskeyRow> {
  const transports = sql`ARRAY[${sql.join(
    p.transports.map((t) => sql`${t}`),
    sql`, `,
  )}]::text[]`;
  const [row] = rowsOf<Raw>(
    await db.execute(sql`INSERT INTO passkeys
        (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name)
      VALUES (${uuidv7()}, ${p.userId}, ${p.credentialId}, ${p.publicKey}, ${p.counter},
        ${p.transports.length > 0 ? transports : sql`'{}'::text[]`}, ${p.deviceType}, ${p.backedUp}, ${p.name})
      RETURNING *`),
  );
  return toRow(row!);
}

/** The user's passkeys, oldest first. */
export async function passkeysOf(db: Executor, userId: string): Promise<PasskeyRow[]> {
  return rowsOf<Raw>(
    await db.execute(sql`SELECT * FROM passkeys WHERE user_id = ${userId} ORDER BY created_at, id`),
  ).map(toRow);
}

/** The passkey of a credential ID, or null. */
export async function passkeyByCredential(db: Executor, credentialId: string): Promise<PasskeyRow | null> {
  const [row] = rowsOf<Raw>(await db.execute(sql`SELECT * FROM passkeys WHERE credential_id = ${credentialId}`));
  return row ? toRow(row) : null;
}

/** Records a use: the authenticator's new signature counter and the time. */
export async function markUsed(db: Executor, id: string, counter: number): Promise<void> {
  await db.execute(sql`UPDATE passkeys SET counter = ${counter}, last_used_at = now() WHERE id = ${id}`);
}

/** Renames one of the user's passkeys. @returns whether there was one. */
export async function renamePasskey(db: Executor, userId: string, id: string, name: string): Promise<boolean> {
  return (
    rowsOf(
      await db.execute(sql`UPDATE passkeys SET name = ${name} WHERE id = ${id} AND user_id = ${userId} RETURNING id`),
    ).length > 0
  );
}

/** Deletes one of the user's passkeys. @returns whether there was one. */
export async function deletePasskey(db: Executor, userId: string, id: string): Promise<boolean> {
  return (
    rowsOf(await db.execute(sql`DELETE FROM passkeys WHERE id = ${id} AND user_id = ${userId} RETURNING id`)).length > 0
  );
}

/**
 * Stores a ceremony's challenge.
 * @param ttlSeconds - how long it may be answered (seconds).
 */
export async function insertChallenge(
  db: Executor,
  c: { challenge: string; purpose: 'register' | 'authenticate'; userId: string | null; ttlSeconds: number },
): Promise<void> {
  await db.execute(sql`INSERT INTO webauthn_challenges (id, challenge, purpose, user_id, expires_at)
    VALUES (${uuidv7()}, ${c.challenge}, ${c.purpose}, ${c.userId},
      now() + make_interval(secs => ${c.ttlSeconds}))`);
}

/**
 * Spends a live challenge of this purpose (and person, when one is named): of two answers to one challenge, one wins.
 * @returns whether it was live.
 */
export async function spendChallenge(
  db: Executor,
  challenge: string,
  purpose: 'register' | 'authenticate',
  userId: string | null,
): Promise<boolean> {
  return (
    rowsOf(
      await db.execute(sql`UPDATE webauthn_challenges SET used_at = now()
        WHERE challenge = ${challenge} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > now()
          AND user_id IS NOT DISTINCT FROM ${userId}
        RETURNING id`),
    ).length > 0
  );
}

/** Deletes ceremonies whose challenge expired more than an hour ago (the purge). @returns how many (count). */
export async function purgeCeremonies(db: Executor): Promise<number> {
  return rowsOf(
    await db.execute(sql`DELETE FROM webauthn_challenges WHERE expires_at < now() - interval '1 hour' RETURNING id`),
  ).length;
}
