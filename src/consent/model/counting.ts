/**
 * The counting rule of docs/api.md "Count" in SQL, for statements that combine consents with other things in one
 * round trip (the consented-user pages, the recipient scan of a special consent request). `counts` in `values.ts` is
 * the same rule for one consent in memory.
 */
import { sql } from 'drizzle-orm';

/** A stored attribute consent `c` that counts at `now()`: Allow, or an AskMe that has not run out. */
export const COUNTING = sql`c.value <> 'Disallow' AND (c.expires_at IS NULL OR c.expires_at > now())`;
