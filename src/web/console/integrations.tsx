/**
 * The console's Integrations page (docs/web.md "Console"): notification transports and the webhook
 * delivery log and the app redirect URIs (this file), the FCM and APNs credentials (`push.tsx`), the
 * external OpenID provider (`idp.tsx`), and
 * the wallet settings (`wallet.tsx`, `wallet-form.tsx`) and relying parties (`wallet.tsx`). A section is shown to the roles whose API read
 * operation allows it, a control to those whose API write operation does; no stored secret is ever
 * shown, and a generated one only once, on the answer page (`SecretPage`).
 */
import type { FederationConfigService } from '../../federation/index.js';
import type { NotificationService, TransportsView } from '../../notifications/index.js';
import type { ClientView, WalletSettingsView } from '../../provider/index.js';
import { FormError, type RefusedForm, shown, TextArea, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import { IdpSection } from './idp.js';
import { PushSection } from './push.js';
import { allows, ConsolePage, IntegrationsNav, integrationsHome } from './shell.js';
import { ColumnHeads } from './table.js';
import { RelyingPartiesSection, WalletSection } from './wallet.js';

/**
 * A form the schema or service refused: the values as sent (secrets left out), the message shown
 * beside the form, and the message of the field that caused it when one did (`form-state.tsx`).
 */
export interface FormState {
  values: Record<string, string>;
  error: string;
  fields?: Record<string, string>;
}

/** What the page shows; null: the roles may not read that section; for `idp` and `wallet`, undefined likewise and null: none configured. */
export interface IntegrationsView {
  orgId: string;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
  /** The confirmation of the change just made, if any. */
  done?: string;
  transports: TransportsView | null;
  /** One page of the webhook log, newest first, and the next page's start when there is one. */
  attempts: Awaited<ReturnType<NotificationService['attempts']>> | null;
  idp: Awaited<ReturnType<FederationConfigService['read']>> | null | undefined;
  /** The callback to register at the provider (`federation.redirect-uri.read`), or null. */
  idpCallback: string | null;
  /** The transports, app redirect URIs and relying-party forms as refused: as typed, the error by its field. */
  transportsForm?: RefusedForm;
  redirectUrisForm?: RefusedForm;
  clientForm?: RefusedForm;
  /** The IdP form as refused, shown again with its error. */
  idpForm?: FormState;
  /** The FCM and APNs forms as refused, shown again with their error (never a key). */
  fcmForm?: FormState;
  apnsForm?: FormState;
  redirectUris: string[] | null;
  wallet: WalletSettingsView | null | undefined;
  /** The wallet form as refused, shown again with its error. */
  walletForm?: FormState;
  clients: ClientView[] | null;
}

function TransportsSection({ v }: { v: IntegrationsView }) {
  const t = v.transports;
  if (!t) return null;
  const r = v.transportsForm;
  const base = `/console/${v.orgId}/integrations`;
  return (
    <section class="card" aria-labelledby="transports">
      <h2 id="transports">Notification transports</h2>
      <p class="muted">
        How special consent requests reach individuals: a push to their device through FCM or APNs when set (below),
        else the webhook when set, else e-mail.
      </p>
      <dl class="facts">
        <dt>FCM</dt>
        <dd>{t.FCM.Enabled ? `project ${t.FCM.ProjectID} (${t.FCM.ClientEmail})` : 'off'}</dd>
        <dt>APNs</dt>
        <dd>
          {t.APNs.Enabled
            ? `${t.APNs.BundleID}, key ${t.APNs.KeyID}, team ${t.APNs.TeamID}, ${t.APNs.Environment}`
            : 'off'}
        </dd>
        <dt>Webhook</dt>
        <dd>{t.Webhook.Enabled ? t.Webhook.URL : 'off'}</dd>
        <dt>E-mail</dt>
        <dd>{t.Email.Enabled ? `on (${t.Email.Delivery})` : 'off'}</dd>
      </dl>
      {allows(v.roles, 'notifications.transports.update') && (
        <form method="post" action={`${base}/transports`}>
          <FormError refused={r} />
          <Csrf token={v.csrfToken} />
          <TextField
            id="webhookurl"
            name="webhookurl"
            label="Webhook URL (https; empty: no webhook)"
            inputMode="url"
            maxLength={2000}
            value={shown(r, 'webhookurl', t.Webhook.URL)}
            refused={r}
          />
          <label>
            <input type="checkbox" name="rotatesecret" value="on" checked={r?.values.rotatesecret === 'on'} /> Generate
            a new signing secret
          </label>
          <label>
            <input type="checkbox" name="email" value="on" checked={r ? r.values.email === 'on' : t.Email.Enabled} />{' '}
            E-mail individuals who have an address when no webhook is set
          </label>
          <p class="muted">A new webhook URL gets a new signing secret, shown once after saving.</p>
          <p>
            <button type="submit">Save transports</button>
          </p>
        </form>
      )}
    </section>
  );
}

function AttemptsSection({ v }: { v: IntegrationsView }) {
  const page = v.attempts;
  if (!page) return null;
  return (
    <section class="card" aria-labelledby="webhook-log">
      <h2 id="webhook-log">Webhook delivery log</h2>
      {page.items.length === 0 ? (
        <p>No webhook deliveries here.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <ColumnHeads names={['When (UTC)', 'State', 'HTTP status', 'Attempt', 'Individual', 'Error']} />
            <tbody>
              {page.items.map((a) => (
                <tr key={a.id}>
                  <td>{a.at.toISOString()}</td>
                  <td>{a.state}</td>
                  <td>{a.status ?? '—'}</td>
                  <td>{a.attempt}</td>
                  <td>
                    <code>{a.userId}</code>
                  </td>
                  <td>{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.next && (
        <p class="pager">
          <a href={`/console/${v.orgId}/integrations?startid=${page.next}#webhook-log`}>Older deliveries</a>
        </p>
      )}
    </section>
  );
}

function RedirectUrisSection({ v }: { v: IntegrationsView }) {
  if (!v.redirectUris) return null;
  return (
    <section class="card" aria-labelledby="redirect-uris">
      <h2 id="redirect-uris">App redirect URIs</h2>
      <p class="muted">Where a sign-in with the external OpenID provider may return to.</p>
      {v.redirectUris.length === 0 ? (
        <p>None registered.</p>
      ) : (
        <ul>
          {v.redirectUris.map((u) => (
            <li key={u}>
              <code>{u}</code>
            </li>
          ))}
        </ul>
      )}
      {allows(v.roles, 'federation.app-redirect-uris.update') && (
        <form method="post" action={`/console/${v.orgId}/integrations/app-redirect-uris`}>
          <FormError refused={v.redirectUrisForm} />
          <Csrf token={v.csrfToken} />
          <TextArea
            id="uris"
            name="uris"
            label="Replace the list (one URI per line)"
            rows={5}
            value={shown(v.redirectUrisForm, 'uris', v.redirectUris.join('\n'))}
            refused={v.redirectUrisForm}
          />
          <p>
            <button type="submit">Save redirect URIs</button>
          </p>
        </form>
      )}
    </section>
  );
}

/** The page. */
export function IntegrationsPage(v: IntegrationsView) {
  return (
    <ConsolePage
      title="Integrations"
      orgId={v.orgId}
      orgName={v.orgName}
      roles={v.roles}
      current={`/console/${v.orgId}/integrations`}
      csrfToken={v.csrfToken}
    >
      <IntegrationsNav orgId={v.orgId} roles={v.roles} current={`/console/${v.orgId}/integrations`} />
      {v.done && (
        <p class="ok" role="status">
          {v.done}
        </p>
      )}
      <TransportsSection v={v} />
      <PushSection v={v} />
      <AttemptsSection v={v} />
      <IdpSection v={v} />
      <RedirectUrisSection v={v} />
      <WalletSection v={v} />
      <RelyingPartiesSection v={v} />
    </ConsolePage>
  );
}

/**
 * The answer page of a change that generated a secret: the only time it is shown (the page is no-store, the secret
 * is in no URL and not kept in the session).
 * @param props.note - what else to know about it (a rotation's overlap), if anything.
 * @param props.back - the page to return to; the Integrations page when absent.
 */
export function SecretPage(props: {
  orgId: string;
  orgName: string;
  roles: readonly number[];
  csrfToken: string;
  title: string;
  what: string;
  secret: string;
  note?: string;
  back?: { href: string; label: string };
}) {
  const back = props.back ?? { href: `/console/${props.orgId}/integrations`, label: 'Back to Integrations' };
  return (
    <ConsolePage
      title={props.title}
      orgId={props.orgId}
      orgName={props.orgName}
      roles={props.roles}
      current={integrationsHome(props.orgId, props.roles)}
      csrfToken={props.csrfToken}
    >
      <p>{props.what}</p>
      <label for="secret">Secret</label>
      <input id="secret" type="text" readOnly value={props.secret} />
      <p class="note" role="status">
        Copy it now: it is shown this once. Assent cannot show it again; a lost secret is replaced by generating a new
        one.
      </p>
      {props.note && <p>{props.note}</p>}
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    </ConsolePage>
  );
}
