/**
 * The Security page of the dashboard and the console (docs/security.md; docs/web.md "Security"): the person's
 * authenticator app and recovery codes, set up, confirmed, renewed and removed, and their sessions, each ended or all
 * others at once, with the API's services. The QR code is
 * Assent's own SVG, shown as an image; the secret is written out beside it for typing; recovery codes are shown once,
 * on the answer page of the change that made them (`Cache-Control: no-store`, like every page).
 */
import type { ComponentChildren } from 'preact';
import type { OwnSessionBody, PasskeyBody } from '../../identity/index.js';
import { Layout } from '../shared/layout.js';

/** Which front end the page belongs to: its path, name and navigation. */
export interface SecurityFrame {
  /** `/dashboard` or `/console`. */
  base: string;
  app: string;
  nav: Array<{ href: string; label: string }>;
  csrfToken: string;
}

function Shell({ frame, title, children }: { frame: SecurityFrame; title: string; children: ComponentChildren }) {
  return (
    <Layout
      passkeys
      title={title}
      app={frame.app}
      home={frame.base}
      nav={frame.nav}
      current={`${frame.base}/security`}
      csrfToken={frame.csrfToken}
      signOutAction={`${frame.base}/sign-out`}
    >
      <h1>{title}</h1>
      {children}
    </Layout>
  );
}

function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

function Message({ done, error }: { done?: string; error?: string }) {
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  return done ? (
    <p class="ok" role="status">
      {done}
    </p>
  ) : null;
}

/** The password and code a change asks for (a fresh sign-in: docs/security.md "Re-authentication"). */
function Reauth({ id }: { id: string }) {
  return (
    <>
      <label for={`${id}-password`}>Your password</label>
      <input id={`${id}-password`} name="password" type="password" autocomplete="current-password" required />
      <label for={`${id}-code`}>A code of your authenticator app, or a recovery code</label>
      <input id={`${id}-code`} name="code" autocomplete="one-time-code" maxLength={40} required />
    </>
  );
}

/** What the Security page shows. */
export interface SecurityProps {
  frame: SecurityFrame;
  totp: { Enabled: boolean; Since: string | null };
  recoveryCodesLeft: number;
  /** The person's live sessions, last used first. */
  sessions: OwnSessionBody[];
  /** The person's passkeys. */
  passkeys: PasskeyBody[];
  /** Set when an organisation's policy requires a second factor that the person lacks. */
  required?: boolean;
  done?: string;
  error?: string;
}

/** The Security page. */
export function SecurityPage(p: SecurityProps) {
  const { frame } = p;
  return (
    <Shell frame={frame} title="Security">
      <Message done={p.done} error={p.error} />
      {p.required && (
        <p class="error" role="alert">
          An organisation you administer requires a second factor: set up an authenticator app to continue.
        </p>
      )}
      <section class="card" aria-labelledby="totp">
        <h2 id="totp">Authenticator app</h2>
        {p.totp.Enabled ? (
          <>
            <p>
              Set up on {p.totp.Since!.slice(0, 10)}. Signing in asks for its code. {p.recoveryCodesLeft} unused
              recovery code{p.recoveryCodesLeft === 1 ? '' : 's'} left.
            </p>
            <form method="post" action={`${frame.base}/security/recovery-codes`}>
              <Csrf token={frame.csrfToken} />
              <h3>New recovery codes</h3>
              <p class="muted">The ten codes you have now stop working.</p>
              <Reauth id="renew" />
              <p>
                <button type="submit">Make new recovery codes</button>
              </p>
            </form>
            <form method="post" action={`${frame.base}/security/totp/remove`}>
              <Csrf token={frame.csrfToken} />
              <h3>Remove the authenticator app</h3>
              <p class="muted">Your recovery codes go with it, and every other session of yours ends.</p>
              <Reauth id="remove" />
              <p>
                <button type="submit" class="danger">
                  Remove the app
                </button>
              </p>
            </form>
          </>
        ) : (
          <form method="post" action={`${frame.base}/security/totp`}>
            <Csrf token={frame.csrfToken} />
            <p>
              No authenticator app is set up: signing in needs your password only. An app (any TOTP app: FreeOTP, Aegis,
              Google Authenticator, 1Password…) adds a code that changes every 30 seconds.
            </p>
            <p>
              <button type="submit">Set up an authenticator app</button>
            </p>
          </form>
        )}
      </section>
      <Passkeys frame={frame} passkeys={p.passkeys} />
      <Sessions frame={frame} sessions={p.sessions} />
    </Shell>
  );
}

function Passkeys({ frame, passkeys }: { frame: SecurityFrame; passkeys: PasskeyBody[] }) {
  return (
    <section class="card" aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p class="muted">
        A passkey signs you in without a password, with your device's screen lock or a security key; it also serves as
        the second factor after a password.
      </p>
      <ul class="passkeys">
        {passkeys.map((k) => (
          <li key={k.ID}>
            <strong>{k.Name}</strong>
            <div class="muted">
              Added {when(k.CreatedAt)}; last used {when(k.LastUsedAt)}
              {k.BackedUp ? '; synced' : ''}
            </div>
            <form method="post" action={`${frame.base}/security/passkeys/${k.ID}`}>
              <Csrf token={frame.csrfToken} />
              <label for={`name-${k.ID}`}>Name</label>
              <input id={`name-${k.ID}`} name="name" value={k.Name} maxLength={100} required />
              <button type="submit">Rename</button>
            </form>
            <form method="post" action={`${frame.base}/security/passkeys/${k.ID}/remove`}>
              <Csrf token={frame.csrfToken} />
              <Reauth id={`remove-${k.ID}`} />
              <button type="submit" class="danger">
                Remove this passkey
              </button>
            </form>
          </li>
        ))}
      </ul>
      <form
        method="post"
        action={`${frame.base}/security/passkeys`}
        data-passkey="register"
        data-options={`${frame.base}/security/passkeys/options`}
      >
        <Csrf token={frame.csrfToken} />
        <input type="hidden" name="response" value="" />
        <label for="passkey-name">Name of the new passkey</label>
        <input id="passkey-name" name="name" maxLength={100} required placeholder="Laptop, phone, security key…" />
        <p>
          <button type="submit" id="add-passkey">
            Add a passkey
          </button>
        </p>
        <p class="muted" role="status" />
      </form>
    </section>
  );
}

/** A time as `2026-12-08 14:05 UTC`, or `—`. */
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

function Sessions({ frame, sessions }: { frame: SecurityFrame; sessions: OwnSessionBody[] }) {
  return (
    <section class="card" aria-labelledby="sessions">
      <h2 id="sessions">Sessions</h2>
      <p class="muted">Where you are signed in now: browsers and apps. End any you do not recognise.</p>
      <ul class="sessions">
        {sessions.map((s) => (
          <li key={s.ID}>
            <strong>
              {s.Current ? 'This browser' : s.Kind === 'web' ? 'A browser' : `App or API client ${s.ClientID}`}
            </strong>
            <div class="muted">{s.UserAgent || 'Unknown device'}</div>
            <div class="muted">
              From {s.IPPrefix || 'an unknown network'}; signed in {when(s.CreatedAt)}; last used {when(s.LastUsedAt)}
            </div>
            {!s.Current && (
              <form method="post" action={`${frame.base}/security/sessions/${s.ID}/end`}>
                <Csrf token={frame.csrfToken} />
                <button type="submit">End this session</button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {sessions.some((s) => !s.Current) && (
        <form method="post" action={`${frame.base}/security/sessions/end-others`}>
          <Csrf token={frame.csrfToken} />
          <button type="submit" class="danger">
            End every other session
          </button>
        </form>
      )}
    </section>
  );
}

/** The pending enrolment: the QR code, the secret to type, and the confirming code. */
export function EnrolmentPage(p: {
  frame: SecurityFrame;
  enrolment: { Secret: string; URI: string; QRCodeSVG: string };
  error?: string;
}) {
  const { frame, enrolment } = p;
  const qr = `data:image/svg+xml;base64,${Buffer.from(enrolment.QRCodeSVG).toString('base64')}`;
  // The secret in groups of four, as apps that take it typed show it.
  const grouped = enrolment.Secret.match(/.{1,4}/g)!.join(' ');
  return (
    <Shell frame={frame} title="Set up an authenticator app">
      <Message error={p.error} />
      <ol>
        <li>
          Scan this code with the app:
          <p>
            <img src={qr} width={220} height={220} alt="QR code of the authenticator app's setup (the key below)" />
          </p>
          or type this key into it: <code id="totp-secret">{grouped}</code>
        </li>
        <li>
          <form method="post" action={`${frame.base}/security/totp/confirm`}>
            <Csrf token={frame.csrfToken} />
            <label for="confirm-code">The six digits the app now shows</label>
            <input
              id="confirm-code"
              name="code"
              inputMode="numeric"
              autocomplete="one-time-code"
              maxLength={20}
              required
            />
            <p>
              <button type="submit">Confirm</button>
            </p>
          </form>
        </li>
      </ol>
    </Shell>
  );
}

/** Ten recovery codes, shown this once. */
export function RecoveryCodesPage({ frame, codes }: { frame: SecurityFrame; codes: string[] }) {
  return (
    <Shell frame={frame} title="Your recovery codes">
      <p class="ok" role="status">
        Keep these ten codes somewhere safe, apart from your phone: each lets you sign in once without the app. They are
        shown only now.
      </p>
      <ul id="recovery-codes" class="codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <p>
        <a href={`${frame.base}/security`}>Back to Security</a>
      </p>
    </Shell>
  );
}
