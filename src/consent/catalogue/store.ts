/**
 * SQL of an organisation's consent catalogue: its live purposes, each with its live data attributes,
 * and the `catalogue_version` they were read at (migration 0009), in one statement, so that the
 * version names exactly the snapshot read.
 */
import { sql } from 'drizzle-orm';
import { type Db, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';

/** A live data attribute of a purpose. */
export interface CatalogueAttribute {
  id: string;
  name: string;
}

/** A live purpose of an organisation with its live data attributes, in link order. */
export interface CataloguePurpose {
  id: string;
  name: string;
  description: string;
  /** True when the lawful basis is not consent (attributes default to Allow). */
  lawfulUsage: boolean;
  policyUrl: string;
  attributes: CatalogueAttribute[];
}

/** An organisation's catalogue as of one `catalogue_version`. */
export interface Catalogue {
  version: number;
  /** In creation order (`created_at`, then ID), as the consent records list them. */
  purposes: CataloguePurpose[];
  /** The same purposes by ID. */
  byId: Map<string, CataloguePurpose>;
}

// Live means: purpose not deleted, link not removed, attribute not deleted
// (docs/decisions/0008-consent-records-and-catalogue.md: deleting a
// purpose or attribute hides it from current records and keeps its evidence).
const catalogueStatement = perDb((db) =>
  prepareRaw(
    db,
    'consent_catalogue',
    sql`SELECT o.catalogue_version,
        (SELECT coalesce(json_agg(json_build_array(p.id, p.name, p.description, p.lawful_usage, p.policy_url,
           (SELECT coalesce(json_agg(json_build_array(a.id, a.name) ORDER BY pa.created_at, a.id), '[]')
              FROM purpose_attributes pa JOIN data_attributes a ON a.id = pa.attribute_id AND a.deleted_at IS NULL
             WHERE pa.purpose_id = p.id AND pa.unlinked_at IS NULL)) ORDER BY p.created_at, p.id), '[]')
          FROM purposes p WHERE p.org_id = o.id AND p.deleted_at IS NULL) AS purposes
      FROM organisations o WHERE o.id = ${sql.placeholder('orgId')}::uuid`,
  ),
);

type PurposeTuple = [string, string, string, boolean, string, Array<[string, string]>];

/**
 * Reads an organisation's catalogue in one prepared statement.
 * @param db - the root handle.
 * @param orgId - a well-formed organisation ID.
 * @returns null when the organisation does not exist.
 */
export async function loadCatalogue(db: Db, orgId: string): Promise<Catalogue | null> {
  const [row] = rowsOf<{ catalogue_version: string | number; purposes: PurposeTuple[] | string }>(
    await catalogueStatement(db).execute({ orgId }),
  );
  if (!row) return null;
  const tuples: PurposeTuple[] = typeof row.purposes === 'string' ? JSON.parse(row.purposes) : row.purposes;
  const purposes = tuples.map(([id, name, description, lawfulUsage, policyUrl, attributes]) => ({
    id,
    name,
    description,
    lawfulUsage,
    policyUrl,
    attributes: attributes.map(([attributeId, attributeName]) => ({ id: attributeId, name: attributeName })),
  }));
  return { version: Number(row.catalogue_version), purposes, byId: new Map(purposes.map((p) => [p.id, p])) };
}
