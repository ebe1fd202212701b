/** Column helpers shared by the schema files. */
import { customType, timestamp } from 'drizzle-orm/pg-core';

/** `bytea`, read as a Buffer from either driver. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

/**
 * A `timestamptz` column read as a Date.
 * @param name - the column name.
 */
export const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
