/** TypeBox schemas of the data-retention routes (docs/api.md). */
import { type Static, Type } from 'typebox';

/** Longest accepted retention period: 100 years (seconds). */
export const MAX_PERIOD = 100 * 365 * 86400;

/** The answer of every data-retention route: whether retention is on, and its period in seconds. */
export const RetentionBody = Type.Object({
  DataRetention: Type.Object({ Enabled: Type.Boolean(), RetentionPeriod: Type.Integer({ description: 'seconds' }) }),
});
/** A data-retention body. */
export type RetentionBody = Static<typeof RetentionBody>;

/** The body of `POST …/data-retention`: the period, 1 second to `MAX_PERIOD`. */
export const PeriodBody = Type.Object({
  RetentionPeriod: Type.Integer({ minimum: 1, maximum: MAX_PERIOD, description: 'seconds' }),
});
/** A `POST …/data-retention` body. */
export type PeriodBody = Static<typeof PeriodBody>;
