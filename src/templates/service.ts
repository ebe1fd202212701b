/**
 * Rules of data attributes, called templates in the iGrant.io API family (ISO/IEC TS 27560
 * "data" / "personal data category"). A template names an attribute and the purposes that use
 * it; a purpose's consents are per attribute. Deleting a template or unlinking a purpose hides it
 * from current consent records but keeps it for the evidence (docs/decisions/0008-consent-records-and-catalogue.md).
 */
import type { Db } from '../db/open.js';
import { BadRequest, NotFound } from '../http/errors.js';
import { isId } from '../util/ids.js';
import * as store from './store.js';

/** A template as answered: `{ID, Consent (the attribute name), PurposeIDs}`. */
export interface TemplateBody {
  ID: string;
  Consent: string;
  PurposeIDs: string[];
}

/** A template as a request describes it. */
export interface TemplateInput {
  consent: string;
  purposeids?: string[];
}

const present = (row: store.TemplateRow): TemplateBody => ({ ID: row.id, Consent: row.name, PurposeIDs: row.purposeIds });

/** Manages templates; the caller's right to do so is checked by the access policy. */
export class TemplateService {
  constructor(private readonly db: Db) {}

  /**
   * The distinct purpose IDs of `inputs`, all live purposes of the organisation.
   * @throws {BadRequest} naming the first ID that is not.
   */
  private async checkPurposes(orgId: string, inputs: TemplateInput[]): Promise<void> {
    const wanted = [...new Set(inputs.flatMap((i) => i.purposeids ?? []))];
    const live = await store.livePurposeIds(this.db, orgId, wanted.filter(isId));
    const missing = wanted.find((id) => !live.has(id));
    if (missing !== undefined) throw new BadRequest(`Invalid request: purpose ${JSON.stringify(missing)} is not a purpose of this organisation`);
  }

  /**
   * Creates templates, all or none.
   * @returns the created templates, in request order.
   * @throws {BadRequest} when a purpose ID is not one of the organisation's live purposes.
   */
  async create(orgId: string, inputs: TemplateInput[]): Promise<TemplateBody[]> {
    await this.checkPurposes(orgId, inputs);
    const ids = await this.db.transaction(async (tx) => {
      const out: string[] = [];
      for (const i of inputs) out.push(await store.insertTemplate(tx, orgId, i.consent.trim(), [...new Set(i.purposeids ?? [])]));
      return out;
    });
    const rows = new Map((await store.listTemplates(this.db, orgId, ids)).map((r) => [r.id, r]));
    return ids.map((id) => present(rows.get(id)!));
  }

  /** Live templates of the organisation. */
  async list(orgId: string): Promise<TemplateBody[]> {
    return (await store.listTemplates(this.db, orgId)).map(present);
  }

  /**
   * Renames a template and replaces its purposes.
   * @throws {NotFound} when it is not a live template of this organisation.
   * @throws {BadRequest} when a purpose ID is not one of the organisation's live purposes.
   */
  async update(orgId: string, id: string, input: TemplateInput): Promise<TemplateBody> {
    if (!isId(id)) throw new NotFound('Template not found');
    await this.checkPurposes(orgId, [input]);
    const found = await this.db.transaction((tx) => store.updateTemplate(tx, orgId, id, input.consent.trim(), [...new Set(input.purposeids ?? [])]));
    if (!found) throw new NotFound('Template not found');
    return present((await store.listTemplates(this.db, orgId, [id]))[0]!);
  }

  /** Deletes a template (soft: evidence keeps it). @throws {NotFound} */
  async delete(orgId: string, id: string): Promise<void> {
    if (!isId(id) || !(await store.softDeleteTemplate(this.db, orgId, id))) throw new NotFound('Template not found');
  }
}
