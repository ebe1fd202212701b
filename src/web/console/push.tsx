/**
 * The mobile push section of the console's Integrations page (docs/web.md "Console",
 * docs/notifications.md "Mobile push"): the FCM and APNs credentials' public identifiers, and for the
 * roles the API lets change transports (`notifications.transports.update`) the forms that set,
 * replace and remove them. The keys are write-only: their fields are always empty; left empty on an
 * APNs edit, the stored `.p8` key is kept (as the API's PUT without `key`).
 */
import { FieldError, invalidAttrs, TextField } from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';
import type { FormState, IntegrationsView } from './integrations.js';
import { allows } from './shell.js';

function Refused({ state }: { state?: FormState }) {
  if (!state) return null;
  return (
    <p class="error" role="alert">
      {state.error}
    </p>
  );
}

/** A removal behind its confirmation box (a 400 without it, nothing changes). */
function RemoveForm({ v, which, what }: { v: IntegrationsView; which: 'fcm' | 'apns'; what: string }) {
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/push/${which}/delete`}>
      <Csrf token={v.csrfToken} />
      <label>
        <input type="checkbox" name="confirm" value="on" required /> I confirm: remove the {what} credentials of{' '}
        {v.orgName}. Pushes through it stop at once.
      </label>
      <p>
        <button type="submit" class="danger">
          Remove {what}
        </button>
      </p>
    </form>
  );
}

function FcmForm({ v, enabled }: { v: IntegrationsView; enabled: boolean }) {
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/push/fcm`}>
      <Csrf token={v.csrfToken} />
      <h3>{enabled ? 'Replace the FCM service-account key' : 'Set up FCM'}</h3>
      <Refused state={v.fcmForm} />
      <label for="fcm-serviceaccount">Service-account key file of the Firebase project (its JSON)</label>
      {/* Threat: the stored key read off the page (screen, cache, extensions): the field never carries it. */}
      <textarea
        id="fcm-serviceaccount"
        name="serviceaccount"
        rows={6}
        maxLength={20000}
        autoComplete="off"
        required
        {...invalidAttrs(v.fcmForm, 'serviceaccount', 'fcm-serviceaccount')}
      />
      <FieldError refused={v.fcmForm} name="serviceaccount" id="fcm-serviceaccount" />
      <p>
        <button type="submit">Save FCM</button>
      </p>
    </form>
  );
}

function ApnsForm({ v, enabled }: { v: IntegrationsView; enabled: boolean }) {
  const a = v.transports!.APNs;
  const values = v.apnsForm?.values ?? {
    keyid: a.KeyID,
    teamid: a.TeamID,
    bundleid: a.BundleID,
    environment: a.Environment,
  };
  const env = values.environment === 'sandbox' ? 'sandbox' : 'production';
  const r = v.apnsForm;
  // A required field's value as sent (or stored) and its error, if any.
  const at = (name: string) => ({ value: values[name] ?? '', required: true, refused: r });
  return (
    <form method="post" action={`/console/${v.orgId}/integrations/push/apns`}>
      <Csrf token={v.csrfToken} />
      <h3>{enabled ? 'Edit APNs' : 'Set up APNs'}</h3>
      <Refused state={v.apnsForm} />
      <label for="apns-key">
        Signing key (.p8, PEM){enabled ? ' (write-only: leave empty to keep the stored one)' : ''}
      </label>
      {/* Threat: as for FCM, the stored key is never put in the page. */}
      <textarea
        id="apns-key"
        name="key"
        rows={5}
        maxLength={4000}
        autoComplete="off"
        required={!enabled}
        {...invalidAttrs(r, 'key', 'apns-key')}
      />
      <FieldError refused={r} name="key" id="apns-key" />
      <TextField id="apns-keyid" name="keyid" label="Key ID (10 characters)" maxLength={10} {...at('keyid')} />
      <TextField id="apns-teamid" name="teamid" label="Team ID (10 characters)" maxLength={10} {...at('teamid')} />
      <TextField
        id="apns-bundleid"
        name="bundleid"
        label="App bundle ID (the apns-topic)"
        maxLength={155}
        {...at('bundleid')}
      />
      <fieldset>
        <legend>Environment</legend>
        <label>
          <input type="radio" name="environment" value="production" checked={env === 'production'} /> Production
        </label>
        <label>
          <input type="radio" name="environment" value="sandbox" checked={env === 'sandbox'} /> Sandbox (development
          builds)
        </label>
      </fieldset>
      <p>
        <button type="submit">Save APNs</button>
      </p>
    </form>
  );
}

/** The section, shown with the transports (`notifications.transports.read`); its forms for the roles of `…update`. */
export function PushSection({ v }: { v: IntegrationsView }) {
  const t = v.transports;
  if (!t) return null;
  const mayChange = allows(v.roles, 'notifications.transports.update');
  return (
    <section class="card" aria-labelledby="push">
      <h2 id="push">Mobile push</h2>
      <p class="muted">
        Firebase Cloud Messaging (Android, web) and the Apple Push Notification service (iOS) reach individuals whose
        app registered a device token.
      </p>
      {mayChange && (
        <>
          <FcmForm v={v} enabled={t.FCM.Enabled} />
          {t.FCM.Enabled && <RemoveForm v={v} which="fcm" what="FCM" />}
          <ApnsForm v={v} enabled={t.APNs.Enabled} />
          {t.APNs.Enabled && <RemoveForm v={v} which="apns" what="APNs" />}
        </>
      )}
      <p class="note">The keys are write-only: Assent never shows them, here or in the API.</p>
    </section>
  );
}
