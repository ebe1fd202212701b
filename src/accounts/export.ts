/**
 * The individual's data export (GDPR Art. 15 "right of access" and Art. 20 "right to data portability"; docs/identity.md
 * "Data export (GDPR Art. 15 and 20)"): one JSON document with everything Assent keeps about a user. As account
 * deletion asks each domain to erase what it holds, the export asks each domain for its part (its `export.ts`) and
 * runs no SQL of its own. Every part is built field by field, so that no column reaches the document by accident: no
 * password hash, API key, token, reset token or other secret.
 */
import { type Static, Type } from 'typebox';
import { type ConsentExport, ExportedEvent, type ExportedEventBody, ExportedRecord } from '../consent/index.js';
import { ExportedFederatedIdentity, exportFederatedIdentities } from '../federation/index.js';
import {
  ExportedApiKey,
  ExportedProfile,
  ExportedSession,
  exportCredentials,
  exportProfile,
} from '../identity/index.js';
import { ExportedRole, ExportedSubscription, exportMemberships } from '../organisations/index.js';
import { NotFound } from '../platform/core/errors.js';
import type { Db } from '../platform/db/open.js';
import { isId } from '../platform/util/ids.js';
import { ExportedWalletIdentity, exportWalletIdentities } from '../provider/index.js';

/** The version of the document's layout: a new one when a field changes meaning or goes (one that is added keeps it). */
export const EXPORT_FORMAT = 'assent-export/1';

/** Characters of JSON text gathered before they are handed on (about as many bytes: the text is mostly ASCII). */
const PIECE_CHARS = 64 * 1024;

/** The export document (`GET {base}/user/export`); `ConsentHistory` comes last, so that it can be streamed. */
export const ExportDocument = Type.Object(
  {
    Format: Type.String({ description: `the layout's version: ${EXPORT_FORMAT}` }),
    ExportedAt: Type.String({ description: 'RFC 3339: when the export began' }),
    Subject: Type.String({ description: 'the user ID' }),
    Profile: ExportedProfile,
    Subscriptions: Type.Array(ExportedSubscription),
    AdminRoles: Type.Array(ExportedRole, { description: 'the user’s own admin roles; empty for an individual' }),
    ConsentRecords: Type.Array(ExportedRecord, { description: 'one per organisation ever subscribed to' }),
    FederatedIdentities: Type.Array(ExportedFederatedIdentity),
    WalletIdentities: Type.Array(ExportedWalletIdentity),
    Sessions: Type.Array(ExportedSession),
    APIKeys: Type.Array(ExportedApiKey),
    ConsentHistory: Type.Array(ExportedEvent, {
      description:
        'every event of the user’s consent records sealed when the export began, across organisations, oldest first',
    }),
  },
  { description: 'Everything Assent keeps about the signed-in user (GDPR Art. 15 and 20)' },
);

/** The export: every part read, and the consent history to be read while it is iterated. */
export type AccountExport = Omit<Static<typeof ExportDocument>, 'ConsentHistory'> & {
  /** Read in chunks from the database as it is iterated (at most `EXPORT_CHUNK` events per record held at once). */
  ConsentHistory: AsyncIterable<ExportedEventBody>;
};

/** What the assembler reads from. */
export interface ExportSources {
  db: Db;
  /** `ASSENT_PUBLIC_URL`, for the profile's `ImageURL`. */
  publicUrl: string;
  consents: ConsentExport;
}

/**
 * Reads every part of the user's export but the consent history, which is read as it is iterated.
 * @throws {NotFound} when there is no such live account (never existed, or deleted).
 */
export async function assembleExport(src: ExportSources, userId: string): Promise<AccountExport> {
  if (!isId(userId)) throw new NotFound('User not found');
  const exportedAt = new Date();
  const profile = await exportProfile(src.db, userId, src.publicUrl);
  if (!profile) throw new NotFound('User not found');
  const memberships = await exportMemberships(src.db, userId);
  const records = await src.consents.records(userId);
  const credentials = await exportCredentials(src.db, userId);
  return {
    Format: EXPORT_FORMAT,
    ExportedAt: exportedAt.toISOString(),
    Subject: userId,
    Profile: profile,
    Subscriptions: memberships.subscriptions,
    AdminRoles: memberships.roles,
    ConsentRecords: records,
    FederatedIdentities: await exportFederatedIdentities(src.db, userId),
    WalletIdentities: await exportWalletIdentities(src.db, userId),
    Sessions: credentials.sessions,
    APIKeys: credentials.apiKeys,
    ConsentHistory: await src.consents.history(records),
  };
}

/**
 * The export as JSON text (UTF-8, one history event a line), in pieces of about `PIECE_CHARS`, so
 * that a long history is never held whole.
 * @throws the database's error of a history chunk (the text then stops short).
 */
export async function* exportJson(doc: AccountExport): AsyncGenerator<string> {
  const { ConsentHistory, ...parts } = doc;
  let piece = `${JSON.stringify(parts).slice(0, -1)},"ConsentHistory":[`;
  let separator = '\n';
  for await (const event of ConsentHistory) {
    piece += separator + JSON.stringify(event);
    separator = ',\n';
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}\n]}\n`;
}
