/** The sign-in page of the web front ends (docs/web.md "Sign-in"). */
import { Layout } from '../shared/layout.js';

/**
 * The other ways an organisation's sign-in page offers (the dashboard's, docs/web.md "Sign-in"):
 * its external OpenID provider, and its wallet sign-in; each a link that starts it.
 */
export interface SignInWays {
  idp?: { name: string; href: string };
  wallet?: { href: string };
}

/** What the page shows. */
export interface SignInProps {
  /** Where to go once signed in (a path of this origin). */
  next: string;
  /** The form's action. */
  action: string;
  app: string;
  home: string;
  /** An error to show (wrong credentials, too many attempts). */
  error?: string;
  username?: string;
  /** The organisation of an organisation-specific page (kept by the form, so an error page shows its ways again). */
  organisation?: string;
  /** The organisation's other ways to sign in. */
  ways?: SignInWays;
}

/** The sign-in form: username and password, posted to this origin. */
export function SignInPage({ next, action, app, home, error, username, organisation, ways }: SignInProps) {
  return (
    <Layout title="Sign in" app={app} home={home} passkeys>
      <h1>Sign in</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form method="post" action={action}>
        <input type="hidden" name="next" value={next} />
        {organisation && <input type="hidden" name="organisation" value={organisation} />}
        <label for="username">E-mail or username</label>
        <input id="username" name="username" type="text" autocomplete="username" required value={username ?? ''} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p>
          <button type="submit">Sign in</button>
        </p>
        <p>
          <a href={`${home}/forgot-password`}>Forgot your password?</a>
        </p>
      </form>
      <form
        method="post"
        action={`${home}/sign-in/passkey`}
        data-passkey="authenticate"
        data-options={`${home}/sign-in/passkey/options`}
      >
        <input type="hidden" name="next" value={next} />
        <input type="hidden" name="response" value="" />
        <p>
          <button type="submit" id="sign-in-passkey">
            Sign in with a passkey
          </button>
        </p>
        <p class="muted" role="status" />
      </form>
      {(ways?.idp || ways?.wallet) && (
        <section aria-label="Other ways to sign in">
          <h2>Or</h2>
          {ways.idp && (
            <p>
              <a class="button" id="sign-in-idp" href={ways.idp.href}>
                Sign in with {ways.idp.name}
              </a>
            </p>
          )}
          {ways.wallet && (
            <p>
              <a class="button" id="sign-in-wallet" href={ways.wallet.href}>
                Sign in with your wallet
              </a>
            </p>
          )}
        </section>
      )}
    </Layout>
  );
}

/** What the second step's page shows. */
export interface SecondFactorProps {
  next: string;
  /** The form's action (`{base}/sign-in/second-factor`). */
  action: string;
  app: string;
  home: string;
  /** The second step's token, carried by the form (single use, 5 minutes). */
  mfaToken: string;
  error?: string;
}

/**
 * The second step of a password sign-in (docs/security.md "Second factors"): a code of the authenticator app, or a
 * recovery code in its own field.
 */
export function SecondFactorPage({ next, action, app, home, mfaToken, error }: SecondFactorProps) {
  return (
    <Layout title="Second factor" app={app} home={home} passkeys>
      <h1>Confirm it is you</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form method="post" action={action}>
        <input type="hidden" name="next" value={next} />
        <input type="hidden" name="mfa_token" value={mfaToken} />
        <label for="code">The six digits of your authenticator app</label>
        <input id="code" name="code" inputMode="numeric" autocomplete="one-time-code" maxLength={20} autofocus />
        <details>
          <summary>Use a recovery code instead</summary>
          <label for="recoverycode">Recovery code</label>
          <input id="recoverycode" name="recoverycode" autocomplete="off" maxLength={40} />
        </details>
        <p>
          <button type="submit">Continue</button>
        </p>
      </form>
      <form method="post" action={action} data-passkey="authenticate" data-options={`${action}/passkey-options`}>
        <input type="hidden" name="next" value={next} />
        <input type="hidden" name="mfa_token" value={mfaToken} />
        <input type="hidden" name="response" value="" />
        <p>
          <button type="submit" id="second-factor-passkey">
            Use a passkey instead
          </button>
        </p>
        <p class="muted" role="status" />
      </form>
    </Layout>
  );
}

/**
 * The forgotten-password page (docs/identity.md "Passwords"): a username or e-mail, posted to this origin; the answer is
 * the same whether or not the account exists, as the API's `PUT {base}/user/password/forgot` (no account enumeration).
 */
export function ForgotPasswordPage({
  app,
  home,
  sent,
  error,
}: {
  app: string;
  home: string;
  sent?: string;
  error?: string;
}) {
  return (
    <Layout title="Forgot your password" app={app} home={home}>
      <h1>Forgot your password</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sent ? (
        <p class="ok" role="status">
          {sent}
        </p>
      ) : (
        <form method="post" action={`${home}/forgot-password`}>
          <label for="username">E-mail or username</label>
          <input id="username" name="username" type="text" autocomplete="username" required maxLength={320} />
          <p>
            <button type="submit">Send me a reset link</button>
          </p>
        </form>
      )}
      <p>
        <a href={`${home}/sign-in`}>Back to sign-in</a>
      </p>
    </Layout>
  );
}

/** A path and query of printable ASCII only: no space, control character (CR, LF, NUL, DEL) or non-ASCII text. */
const PRINTABLE_PATH = /^[\x21-\x7e]+$/;
/** The origin `safeNext` resolves a path against; any fixed origin would do. */
const HERE = 'http://assent.invalid';

/**
 * The path to go to after signing in: a path of this origin under `prefix` (with its query), else
 * `prefix`. Refused: anything not a string; control characters, spaces and non-ASCII text (a
 * `Location` header cannot carry them: Node.js refuses to send it, RFC 9110 §5.5); a backslash; a
 * path that resolves elsewhere (`//host`, a scheme, `/dashboard/../x`, a fragment).
 * Threat: an open redirect or a response-splitting header through `next` (ASVS 5.0 V5.1.5, V4.1.1).
 * @param next - as the browser sent it (query or form field).
 * @param prefix - the front end's path, `/dashboard` or `/console`.
 * @returns a same-origin path starting with `{prefix}/`, or `prefix`.
 */
export function safeNext(next: unknown, prefix: string): string {
  if (typeof next !== 'string' || !PRINTABLE_PATH.test(next) || next.includes('\\') || next.includes('#'))
    return prefix;
  if (!next.startsWith(`${prefix}/`) || next.startsWith('//')) return prefix;
  let resolved: URL;
  try {
    resolved = new URL(next, HERE);
  } catch {
    return prefix;
  }
  // The resolved path must be the one sent: no dot segments nor anything the URL parser rewrites.
  if (resolved.origin !== HERE || `${resolved.pathname}${resolved.search}` !== next) return prefix;
  return next;
}
