/**
 * The audit log's export (docs/audit.md "Export"): the entries a filter admits, oldest first, as CSV (RFC 4180, a
 * header row, `Changes` and `Detail` as JSON text) or as JSON lines (one entry per line, as the API shows it), in
 * pieces of about 64 KiB while the entries are read in batches.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { presentAuditEntry } from './present.js';
import type { AuditEntryBody, AuditExportQuery } from './schemas.js';
import { type AuditLogService, auditFilter } from './service.js';
import type { AuditRow } from './store.js';

/** The export's formats. */
export type AuditExportFormat = 'csv' | 'jsonl';

/** Characters gathered before a piece is handed on (about as many bytes: the text is mostly ASCII). */
const PIECE_CHARS = 64 * 1024;

/** The CSV columns, in order: every field of an entry as the API shows it. */
const COLUMNS: Array<keyof AuditEntryBody> = [
  'Seq',
  'ID',
  'At',
  'Action',
  'Source',
  'ActorUserID',
  'ActorAPIKeyID',
  'ActorName',
  'ActorEmail',
  'TargetType',
  'TargetID',
  'Changes',
  'Detail',
  'RequestID',
  'ClientIP',
  'Link',
];

/**
 * One CSV field (RFC 4180 §2): quoted when it holds a comma, a quote or a line break, its quotes doubled. A field that
 * a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed
 * with `'`, so that opening the export runs nothing (threat: CSV injection through a staff member's name).
 */
function csvField(value: unknown): string {
  let text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The HTTP content type of a format. */
function exportContentType(format: AuditExportFormat): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8';
}

/**
 * The export's text, in pieces of about `PIECE_CHARS` characters, read from `entries` as it is iterated.
 * @param entries - the entries, oldest first (`AuditLogService.entries`).
 * @param format - `csv` (with a header row, lines ending in CRLF as RFC 4180 says) or `jsonl` (lines ending in LF).
 */
export async function* exportPieces(
  entries: AsyncIterable<AuditRow>,
  format: AuditExportFormat,
): AsyncGenerator<string> {
  let piece = format === 'csv' ? `${COLUMNS.join(',')}\r\n` : '';
  for await (const row of entries) {
    const entry = presentAuditEntry(row);
    piece +=
      format === 'csv' ? `${COLUMNS.map((c) => csvField(entry[c])).join(',')}\r\n` : `${JSON.stringify(entry)}\n`;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece.length > 0) yield piece;
}

/**
 * Answers an export request (the API's `GET …/audit-log/export` and the console's `GET /console/{org}/audit/export`):
 * an attachment streamed while the entries are read.
 * @param query - the format and the filters, as the schema validated them.
 * @throws {InvalidRequest} for a malformed filter (`auditFilter`, `AuditLogService.entries`), before anything is sent.
 */
export async function sendAuditExport(
  reply: FastifyReply,
  auditLog: AuditLogService,
  orgId: string,
  query: AuditExportQuery,
): Promise<FastifyReply> {
  const entries = await auditLog.entries(orgId, auditFilter(query));
  // Staff names and e-mails: no browser or proxy cache may keep a copy.
  reply.header('Cache-Control', 'no-store');
  reply.header('Content-Type', exportContentType(query.format));
  reply.header('Content-Disposition', `attachment; filename="audit-log-${orgId}.${query.format}"`);
  return reply.send(Readable.from(exportPieces(entries, query.format), { objectMode: false }));
}
