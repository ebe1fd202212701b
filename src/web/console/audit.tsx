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
  /** The filters in force, if any. */
  action?: string;
  actor?: string;
}

/** The page's URL with these filters and start. */
function auditUrl(orgId: string, q: { action?: string; actor?: string; startid?: string }): string {
  const params = new URLSearchParams();
  for (const [k, val] of Object.entries(q)) if (val) params.set(k, val);
  const query = params.toString();
  return `/console/${orgId}/audit${query ? `?${query}` : ''}`;
}

/** The export's URL with these filters (docs/audit.md "Export"). */
function exportUrl(orgId: string, format: 'csv' | 'jsonl', q: { action?: string; actor?: string }): string {
  const params = new URLSearchParams({ format });
  for (const [k, val] of Object.entries(q)) if (val) params.set(k, val);
  return `/console/${orgId}/audit/export?${params.toString()}`;
}

/** The page. */
export function AuditPage(props: AuditProps) {
  const { orgId, page, action, actor } = props;
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
        <input id="action" name="action" type="text" maxLength={100} value={action ?? ''} />
        <label for="actor">Acting user (e-mail or user ID)</label>
        <input id="actor" name="actor" type="text" maxLength={320} value={actor ?? ''} />
        <p>
          <button type="submit">Filter</button> {(action || actor) && <a href={auditUrl(orgId, {})}>Show all</a>}
        </p>
      </form>
      <p>
        Download the entries these filters admit, oldest first:{' '}
        <a href={exportUrl(orgId, 'csv', { action, actor })} download>
          CSV
        </a>{' '}
        or{' '}
        <a href={exportUrl(orgId, 'jsonl', { action, actor })} download>
          JSON lines
        </a>
        .
      </p>
      {page.items.length === 0 ? (
        <p>No entries{action || actor ? ' match these filters' : ''}.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="muted">Newest first; times in UTC.</caption>
            <ColumnHeads names={['When', 'Action', 'Actor', 'Detail']} />
            <tbody>
              {page.items.map((e) => (
                <tr key={e.id}>
                  <td>{e.at.toISOString()}</td>
                  <td>
                    <a href={auditUrl(orgId, { action: e.action, actor })}>{e.action}</a>
                  </td>
                  <td>
                    {e.actorUserId ? (
                      <>
                        <a href={auditUrl(orgId, { action, actor: e.actorUserId })}>
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
                    <code>{JSON.stringify(e.detail)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.next && (
        <p class="pager">
          <a href={auditUrl(orgId, { action, actor, startid: page.next })}>Older entries</a>
        </p>
      )}
    </ConsolePage>
  );
}
