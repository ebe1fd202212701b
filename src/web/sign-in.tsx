/** The dashboard's sign-in page (docs/web.md "Sessions"). */
import { Layout } from './layout.js';

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
}

/** The sign-in form: username and password, posted to this origin. */
export function SignInPage({ next, action, app, home, error, username }: SignInProps) {
  return (
    <Layout title="Sign in" app={app} home={home}>
      <h1>Sign in</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form method="post" action={action}>
        <input type="hidden" name="next" value={next} />
        <label for="username">E-mail or username</label>
        <input id="username" name="username" type="text" autocomplete="username" required value={username ?? ''} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    </Layout>
  );
}

/**
 * The path to go to after signing in: only a path of this origin under `prefix`, else `prefix`.
 * Threat: an open redirect through `next` (ASVS 5.0 V5.1.5).
 */
export function safeNext(next: unknown, prefix: string): string {
  if (typeof next !== 'string' || !next.startsWith(`${prefix}/`) || next.startsWith('//') || next.includes('\\'))
    return prefix;
  return next;
}
