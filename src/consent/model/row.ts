/**
 * The shape a consent record is read in, shared by the record's own reads (records/) and the history's events
 * (evidence/): one (purpose, data attribute) pair with its stored consent (docs/api.md "Permissions and consents").
 */
import type { ConsentValue } from './values.js';

/** One (purpose, attribute) pair of a record with its stored consent (null fields when undecided). */
export interface ConsentRow {
  purposeId: string;
  purposeName: string;
  purposeDescription: string;
  lawfulUsage: boolean;
  policyUrl: string;
  /** Null for a purpose with no attributes. */
  attributeId: string | null;
  attributeName: string | null;
  value: ConsentValue | null;
  days: number | null;
  decidedAt: Date | null;
}
