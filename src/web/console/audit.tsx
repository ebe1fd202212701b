/**
 * The console's Audit log page (docs/web.md "Console"; docs/audit.md; ASVS 5.0 V16.2.1): who changed the
 * organisation's administration, what and when, newest first, filtered by action and by acting user, with the
 * filtered entries to download. Entries never hold a secret (src/organisations/audit/service.ts), so the page shows their
 * detail as it is stored.
 */
import type { AuditRow } from '../../organisations/index.js';
import { ConsolePage } from './shell.js';
import { ColumnHeads } from './table.js';

/** What the page shows. */
export interface AuditProps {
  orgId: string;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
  /** One page of entries, newest first, and the next page's start (an entry ID) when there is one. */
  page: { items: AuditRow[]; next?: string };
  /** The filters in force (as typed: `from` and `to` may be days, YYYY-MM-DD, UTC). */
  filters: AuditFilters;
  /** The actions and actor e-mails in the log, offered as the filters' suggestions. */
  choices: { actions: string[]; actorEmails: string[] };
}

/** The page's filters, as the form sends them. */
export interface AuditFilters {
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
}

/** The page's URL with these filters and start. */
function auditUrl(orgId: string, q: AuditFilters & { startid?: string }): string {
  const params = new URLSearchParams();
  for (const [k, val] of Object.entries(q)) if (val) params.set(k, val);
  const query = params.toString();
  return `/console/${orgId}/audit${query ? `?${query}` : ''}`;
}

/** The export's URL with these filters (docs/audit.md "Export"). */
function exportUrl(orgId: string, format: 'csv' | 'jsonl', q: AuditFilters): string {
  const params = new URLSearchParams({ format });
  for (const [k, val] of Object.entries(q)) if (val) params.set(k, val);
  return `/console/${orgId}/audit/export?${params.toString()}`;
}

/** The page. */
export function AuditPage(props: AuditProps) {
  const { orgId, page, filters, choices } = props;
  const { action, actor } = filters;
  const filtered = Object.values(filters).some(Boolean);
  return (
    <ConsolePage
      title="Audit log"
      orgId={orgId}
      orgName={props.orgName}
      roles={props.roles}
      current={`/console/${orgId}/audit`}
      csrfToken={props.csrfToken}
    >
      <form method="get" action={`/console/${orgId}/audit`} aria-label="Filter the audit log">
        <label for="action">Action (e.g. idp.update; purpose. for every purpose action)</label>
        <input id="action" name="action" type="text" maxLength={100} value={action ?? ''} list="audit-actions" />
        <datalist id="audit-actions">
          {[...new Set(choices.actions.map((a) => `${a.split('.')[0]}.`)), ...choices.actions].map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <label for="actor">Acting user (e-mail or user ID)</label>
        <input id="actor" name="actor" type="text" maxLength={320} value={actor ?? ''} list="audit-actors" />
        <datalist id="audit-actors">
          {choices.actorEmails.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <label for="from">From (UTC day, inclusive)</label>
        <input id="from" name="from" type="date" value={filters.from ?? ''} />
        <label for="to">To (UTC day, inclusive)</label>
        <input id="to" name="to" type="date" value={filters.to ?? ''} />
        <p>
          <button type="submit">Filter</button> {filtered && <a href={auditUrl(orgId, {})}>Show all</a>}
        </p>
      </form>
      <p>
        Download the entries these filters admit, oldest first:{' '}
        <a href={exportUrl(orgId, 'csv', filters)} download>
          CSV
        </a>{' '}
        or{' '}
        <a href={exportUrl(orgId, 'jsonl', filters)} download>
          JSON lines
        </a>
        .
      </p>
      {page.items.length === 0 ? (
        <p>No entries{filtered ? ' match these filters' : ''}.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="muted">Newest first; times in UTC.</caption>
            <ColumnHeads names={['When', 'Action', 'Actor', 'What changed']} />
            <tbody>
              {page.items.map((e) => (
                <tr key={e.id}>
                  <td>{e.at.toISOString()}</td>
                  <td>
                    <a href={auditUrl(orgId, { ...filters, action: e.action })}>{e.action}</a>
                  </td>
                  <td>
                    {e.actorUserId ? (
                      <>
                        <a href={auditUrl(orgId, { ...filters, actor: e.actorUserId })}>
                          {e.actorName || e.actorEmail || <code>{e.actorUserId}</code>}
                        </a>
                        {e.actorEmail && e.actorName && <div class="muted">{e.actorEmail}</div>}
                        <div class="muted">
                          <code>{e.actorUserId}</code>
                        </div>
                      </>
                    ) : (
                      `assent ${e.source}`
                    )}
                    <div class="muted">via {e.source}</div>
                    {e.actorApiKeyId && <div class="muted">with API key {e.actorApiKeyId}</div>}
                  </td>
                  <td>
                    {e.targetType && (
                      <div class="muted">
                        {e.targetType} <code>{e.targetId}</code>
                      </div>
                    )}
                    {Object.entries(e.changes as Record<string, { old: unknown; new: unknown }>).map(([field, c]) => (
                      <div key={field}>
                        <code>{field}</code>: {JSON.stringify(c.old)} → {JSON.stringify(c.new)}
                      </div>
                    ))}
                    {Object.keys(e.detail as object).length > 0 && <code>{JSON.stringify(e.detail)}</code>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.next && (
        <p class="pager">
          <a href={auditUrl(orgId, { ...filters, startid: page.next })}>Older entries</a>
        </p>
      )}
    </ConsolePage>
  );
}
