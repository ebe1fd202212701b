/** Response bodies of purposes and organisations (the iGrant.io API family's shapes). */
import { type Static, Type } from 'typebox';
import type { findOrganisation, PurposeRow } from './store.js';

/** A purpose (the Purpose of docs/api.md "Resources": ID, Name, Description, LawfulUsage, PolicyURL). */
export const PurposeBody = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  Description: Type.String(),
  LawfulUsage: Type.Boolean({ description: 'true: the lawful basis is not consent, and attributes default to Allow' }),
  PolicyURL: Type.String(),
});
/** A Purpose body. */
export type PurposeBody = Static<typeof PurposeBody>;

/** An organisation with its purposes. */
export const OrganisationBody = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  Location: Type.String(),
  Description: Type.String(),
  PolicyURL: Type.String(),
  Type: Type.Object({ ID: Type.String(), Type: Type.String() }),
  DataRetention: Type.Object({ Enabled: Type.Boolean(), RetentionPeriod: Type.Integer({ description: 'seconds' }) }),
  Purposes: Type.Array(PurposeBody),
});
/** An Organization body. */
export type OrganisationBody = Static<typeof OrganisationBody>;

/** The Purpose body of a stored purpose. */
export function presentPurpose(row: PurposeRow): PurposeBody {
  return {
    ID: row.id,
    Name: row.name,
    Description: row.description,
    LawfulUsage: row.lawfulUsage,
    PolicyURL: row.policyUrl,
  };
}

/** The Organization body of a stored organisation and its live purposes. */
export function presentOrganisation(
  found: NonNullable<Awaited<ReturnType<typeof findOrganisation>>>,
  purposes: PurposeRow[],
): OrganisationBody {
  const { org, typeName } = found;
  return {
    ID: org.id,
    Name: org.name,
    Location: org.location,
    Description: org.description,
    PolicyURL: org.policyUrl,
    Type: { ID: org.typeId ?? '', Type: typeName ?? '' },
    DataRetention: { Enabled: org.retentionEnabled, RetentionPeriod: org.retentionPeriodSeconds },
    Purposes: purposes.map(presentPurpose),
  };
}
